#!/usr/bin/env node
// The `dealflow` command. Each subcommand calls the same operations as the HTTP API.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { commands } from './commands.ts';
import { failureLines } from './failure.ts';
import { runsThroughService, runThroughService } from './service-channel.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';

const usage = `dealflow <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`)
  .join('\n')}

Run "dealflow <command> --help" for a command's options; --verbose prints the stack trace of a
failure. Configuration comes from the environment (see docs/reference/configuration.md: PORT, HOST, BASE_PATH,
DATABASE_URL, DATA_DIR, ...).`;

/** --verbose anywhere on the line, or LOG_LEVEL=debug or trace: failures print their stack. */
const verbose = process.argv.includes('--verbose') || ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
let commandName: string | undefined;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage}\n`);
    return name ? 0 : 1;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`dealflow: unknown command "${name}"\nhint: "dealflow --help" lists the commands\n`);
    return 1;
  }
  commandName = name;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`dealflow ${name}: ${(err as Error).message}\nhint: "dealflow ${name} --help" shows the options\n`);
    return 1;
  }
  if (parsed.values.help) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  const config = loadConfig();
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const positionals = command.resolvesPaths ? parsed.positionals.map((p) => path.resolve(p)) : parsed.positionals;
  try {
    return (await command.run(config, values, positionals)) ?? 0;
  } catch (err) {
    // The running service holds the embedded database: the commands it can run, it runs.
    if (!(err instanceof DataDirLockedError) || !runsThroughService(name)) throw err;
    const code = await runThroughService(config.dataDir, name, values, positionals);
    if (code === undefined) throw err;
    return code;
  }
}

main(process.argv.slice(2).filter((arg) => arg !== '--verbose')).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${failureLines(err, commandName, verbose).join('\n')}\n`);
    process.exitCode = 1;
  },
);
