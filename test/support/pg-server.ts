// What every throwaway PostgreSQL server of the tests needs (a streaming replica pair, a cluster for
// the restore drill, a pg_auto_failover formation): the server binaries, a free loopback port, and a
// temp folder the server may own, with commands run in it as the `postgres` OS user when the tests
// run as root (PostgreSQL refuses to run as root). The shared server is never touched.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest /usr/lib/postgresql/<version>/bin with the server tools (initdb, pg_ctl, pg_basebackup). */
export function serverBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** Undefined when a throwaway server can be made here, else why not. */
export function serverUnavailable(): string | undefined {
  if (!serverBinDir()) return 'no PostgreSQL server binaries (initdb, pg_basebackup) under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and no postgres OS user';
  return undefined;
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

export interface ServerFolder {
  dir: string;
  /** Runs a command in the folder (as `postgres` under root); throws with its output when it fails. */
  run(args: string[], timeoutMs?: number): void;
  /** The same without blocking the event loop (for a pg_basebackup while clients keep writing). */
  runAsync(args: string[]): Promise<void>;
}

export function serverFolder(prefix: string): ServerFolder {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const command = (args: string[]) => (asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args);
  return {
    dir,
    run(args, timeoutMs = 120_000) {
      const [program, ...rest] = command(args);
      const result = spawnSync(program!, rest, { encoding: 'utf8', timeout: timeoutMs, cwd: dir });
      if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.stdout || result.error?.message}`);
    },
    runAsync(args) {
      return new Promise<void>((resolve, reject) => {
        const [program, ...rest] = command(args);
        const child = spawn(program!, rest, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} failed: ${stderr}`))));
      });
    },
  };
}
