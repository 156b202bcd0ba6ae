// What the CLI says when a command fails. Expected failures (bad arguments or configuration, the
// database unreachable, the data folder in use, an unknown token id) are one line saying what went
// wrong and one line saying what to do, exit code 1, no stack trace. Anything else is a bug: one
// line too, and the stack only with --verbose or LOG_LEVEL=debug (or trace).
import { ConfigError } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';
import { isDatabaseUnavailable, sqlState } from '../store/errors.ts';

export interface Failure {
  message: string;
  hint: string;
  /** A bug rather than a condition the user can fix. */
  unexpected: boolean;
}

/** SQLSTATEs of a server that answered but refused us the database: wrong password, no such database. */
const refusedConnection = new Set(['28P01', '28000', '3D000']);

export function describeFailure(err: unknown, command: string | undefined): Failure {
  const help = command ? `dealflow ${command} --help` : 'dealflow --help';
  if (err instanceof ConfigError) {
    return {
      message: `invalid configuration: ${err.message}`,
      hint: `fix ${err.variable} (docs/reference/configuration.md lists every variable)`,
      unexpected: false,
    };
  }
  if (err instanceof DataDirLockedError) {
    return {
      message: err.message,
      hint: `${command ? `"dealflow ${command}"` : 'this command'} needs the database to itself: stop the service (Ctrl-C where it runs), run the command, and start it again; while it runs, "dealflow token", "dealflow verify" and "dealflow backup" go through it, and the HTTP API does the rest (see /docs)`,
      unexpected: false,
    };
  }
  if (err instanceof AppError) {
    if (err.kind === 'not-found' && command === 'token' && err.message.startsWith('no live token')) {
      return { message: err.message, hint: '"dealflow token list" shows the ids of the tokens', unexpected: false };
    }
    if (err.kind === 'validation' || err.kind === 'not-found' || err.kind === 'conflict' || err.kind === 'unprocessable') {
      return { message: err.message, hint: `"${help}" shows the options`, unexpected: false };
    }
    if (err.kind === 'database-unavailable') return unreachable(err);
  }
  if (isDatabaseUnavailable(err)) return unreachable(err);
  if ((err as { code?: unknown })?.code === 'EADDRINUSE') {
    return {
      message: `the address is in use: ${(err as Error).message}`,
      hint: 'another process listens on that port: stop it, or set PORT (and HOST) to a free one',
      unexpected: false,
    };
  }
  const code = sqlState(err);
  if (code !== undefined && refusedConnection.has(code)) {
    return {
      message: `the database refused the connection: ${(err as Error).message}`,
      hint: 'check the user, password and database name in DATABASE_URL',
      unexpected: false,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { message: `unexpected error: ${message}`, hint: 'run again with --verbose for the details, and report them if it persists', unexpected: true };
}

function unreachable(err: unknown): Failure {
  const code = sqlState(err);
  const reason = code ?? (err instanceof Error ? err.message : String(err));
  return {
    message: `cannot reach the database (${reason})`,
    hint: 'check that PostgreSQL is running and that DATABASE_URL names its host and port, or unset DATABASE_URL to use the embedded database',
    unexpected: false,
  };
}

/** The lines to print for a failure: the message and the hint, and the stack when asked for. */
export function failureLines(err: unknown, command: string | undefined, verbose: boolean): string[] {
  const failure = describeFailure(err, command);
  const lines = [`dealflow${command ? ` ${command}` : ''}: ${failure.message}`, `hint: ${failure.hint}`];
  if (verbose && err instanceof Error && err.stack) lines.push(err.stack);
  return lines;
}
