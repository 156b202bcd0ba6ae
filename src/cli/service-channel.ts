// PGlite is one process's database, so while the service runs no CLI command can open DATA_DIR.
// Some commands an operator needs without downtime (a new token, a check of the audit chains, a backup) run
// inside the service instead: it listens on a Unix socket beside its data folder, readable and
// writable by its own user only, and runs the command there, on the database it holds, with the
// same code and the same output as the command line. Nothing else is reachable that way: no
// network port, and only the commands in THROUGH_SERVICE.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../config.ts';
import { AppError, errorKinds, type ErrorKind } from '../domain/errors.ts';
import type { Database } from '../store/database.ts';
import { type Command, inService } from './command.ts';

/** The commands that run through a running service on the embedded database. */
export const THROUGH_SERVICE = ['token', 'verify', 'backup', 'staff'] as const;

export const runsThroughService = (command: string) => (THROUGH_SERVICE as readonly string[]).includes(command);

/** A request is a command line: a few hundred bytes. */
const MAX_REQUEST = 64 * 1024;

type Values = Record<string, string | boolean | undefined>;

interface Request {
  command: string;
  values: Values;
  positionals: string[];
}

type Reply = { lines: string[]; code: number } | { lines: string[]; error: { kind?: ErrorKind; message: string } };

/**
 * The socket of the service that holds `dataDir`: in the folder, or in the temporary folder when
 * that path is too long for a socket (about 100 bytes).
 */
export function channelPath(dataDir: string): string {
  const inFolder = path.join(path.resolve(dataDir), 'dealflow.sock');
  if (Buffer.byteLength(inFolder) < 100) return inFolder;
  return path.join(tmpdir(), `dealflow-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}.sock`);
}

/**
 * Serves the channel for the service holding `database`, running the given table of commands (the
 * CLI's, passed in so that the table and the channel import each other in one direction only);
 * returns the function that closes it.
 */
export async function openServiceChannel(config: Config, database: Database, commands: Record<string, Command>): Promise<() => Promise<void>> {
  const socket = channelPath(config.dataDir);
  // The service holds the folder's lock, so a socket found here is one a killed service left.
  rmSync(socket, { force: true });
  const server = createServer((connection) => {
    let input = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      input += chunk;
      if (input.length > MAX_REQUEST) return void connection.destroy();
      if (!input.includes('\n')) return;
      void answer(config, database, commands, input.slice(0, input.indexOf('\n'))).then((reply) => connection.end(`${JSON.stringify(reply)}\n`));
    });
    connection.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  chmodSync(socket, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      rmSync(socket, { force: true });
    });
}

async function answer(config: Config, database: Database, commands: Record<string, Command>, text: string): Promise<Reply> {
  const lines: string[] = [];
  try {
    const request = JSON.parse(text) as Request;
    const command = commands[request.command];
    if (!command || !runsThroughService(request.command)) throw new AppError('validation', `"${request.command}" does not run through the service`);
    const code = await inService.run({ database, out: (line) => lines.push(line) }, () => command.run(config, request.values, request.positionals));
    return { lines, code: code ?? 0 };
  } catch (err) {
    return { lines, error: { ...(err instanceof AppError ? { kind: err.kind } : {}), message: err instanceof Error ? err.message : String(err) } };
  }
}

/**
 * Runs a command through the service that holds `dataDir`: prints its lines and returns its exit
 * code, or throws its error as the command would have. Undefined when no service answers there.
 */
export async function runThroughService(dataDir: string, command: string, values: Values, positionals: string[]): Promise<number | undefined> {
  const socket = channelPath(dataDir);
  if (!existsSync(socket)) return undefined;
  const reply = await new Promise<Reply | undefined>((resolve) => {
    const connection = createConnection(socket);
    let output = '';
    connection.setEncoding('utf8');
    connection.on('connect', () => connection.write(`${JSON.stringify({ command, values, positionals } satisfies Request)}\n`));
    connection.on('data', (chunk: string) => (output += chunk));
    connection.on('end', () => resolve(output.trim() === '' ? undefined : (JSON.parse(output) as Reply)));
    connection.on('error', () => resolve(undefined));
  });
  if (reply === undefined) return undefined;
  for (const line of reply.lines) process.stdout.write(`${line}\n`);
  if ('error' in reply) {
    const { kind, message } = reply.error;
    throw kind !== undefined && (errorKinds as readonly string[]).includes(kind) ? new AppError(kind, message) : new Error(message);
  }
  return reply.code;
}
