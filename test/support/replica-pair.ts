// A throwaway PostgreSQL primary with one streaming replica, for the read-replica tests: initdb
// into a temp folder, pg_basebackup -R from it into another, both started on free loopback ports
// (as the `postgres` OS user when run as root: PostgreSQL refuses to run as root). The shared
// server is never touched. Removed at the end, and at exit whatever happened.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReplicaPair {
  primaryUrl: string;
  replicaUrl: string;
  stopReplica(): void;
  /** Stops the primary at once (pg_ctl -m immediate): the host is gone. */
  stopPrimary(): void;
  /** Promotes the replica (pg_ctl promote, waiting until it takes writes). */
  promoteReplica(): void;
  destroy(): void;
}

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** Undefined when a pair can be made here, else why not. */
export function replicaPairUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries (initdb, pg_basebackup) under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and no postgres OS user';
  return undefined;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

const pairs = new Set<ReplicaPair>();
process.on('exit', () => {
  for (const pair of pairs) pair.destroy();
});

export async function createReplicaPair(): Promise<ReplicaPair> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-replica-'));
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const run = (args: string[]) => {
    const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    const result = spawnSync(command!, rest, { encoding: 'utf8', timeout: 90_000, cwd: dir });
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.stdout || result.error?.message}`);
  };
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryData = join(dir, 'primary');
  const replicaData = join(dir, 'replica');
  const running = new Map<string, boolean>();
  const pgCtl = (data: string, action: string, extra: string[] = []) => {
    run([join(bin, 'pg_ctl'), '-D', data, '-l', `${data}.log`, '-w', '-t', '60', ...extra, action]);
    running.set(data, action === 'start');
  };
  const options = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40 -c shared_buffers=16MB`;
  const pair: ReplicaPair = {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
    stopReplica: () => pgCtl(replicaData, 'stop', ['-m', 'fast']),
    stopPrimary: () => pgCtl(primaryData, 'stop', ['-m', 'immediate']),
    promoteReplica: () => {
      run([join(bin, 'pg_ctl'), '-D', replicaData, '-w', '-t', '60', 'promote']);
    },
    destroy() {
      pairs.delete(pair);
      for (const [data, up] of running) {
        try {
          if (up) pgCtl(data, 'stop', ['-m', 'immediate']);
        } catch {
          // already down
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  pairs.add(pair);
  try {
    // initdb's pg_hba.conf lets local replication connections in (trust).
    run([join(bin, 'initdb'), '-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    pgCtl(primaryData, 'start', ['-o', options(primaryPort)]);
    run([join(bin, 'pg_basebackup'), '-D', replicaData, '-R', '-X', 'stream', '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '--no-sync']);
    pgCtl(replicaData, 'start', ['-o', `${options(replicaPort)} -c hot_standby=on`]);
  } catch (err) {
    pair.destroy();
    throw err;
  }
  return pair;
}
