#!/usr/bin/env node
// The `dealflow` command. Each subcommand calls the same operations as the HTTP API.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { commands } from './commands.ts';

const usage = `dealflow <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`)
  .join('\n')}

Run "dealflow <command> --help" for a command's options. Configuration comes from the environment
(see README.md: PORT, HOST, BASE_PATH, DATABASE_URL, DATA_DIR, ...).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage}\n`);
    return name ? 0 : 1;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`dealflow: unknown command "${name}"\n\n${usage}\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`dealflow ${name}: ${(err as Error).message}\n\n${command.help}\n`);
    return 1;
  }
  if (parsed.values.help) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  const config = loadConfig();
  return (await command.run(config, parsed.values as Record<string, string | boolean | undefined>, parsed.positionals)) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ConfigError) process.stderr.write(`dealflow: invalid configuration: ${err.message}\n`);
    else if (err instanceof AppError) process.stderr.write(`dealflow: ${err.message}\n`);
    else process.stderr.write(`dealflow: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
