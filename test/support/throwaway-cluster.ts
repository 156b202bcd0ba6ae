// A throwaway PostgreSQL cluster for the restore drill: initdb into a temp folder, started on a free
// loopback port (as the `postgres` OS user when run as root, as replica-pair.ts does), with
// pg_basebackup copies of it started as clusters of their own. The shared server is never touched.
// Everything is stopped and removed at the end, and at exit whatever happened.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** Undefined when a cluster can be made here, else why not. */
export function clusterUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries (initdb, pg_basebackup) under /usr/lib/postgresql/*/bin';
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

export interface ThrowawayCluster {
  url: string;
  /** pg_basebackup of the running cluster (WAL streamed alongside) into a new folder; how long it took. */
  baseBackup(): Promise<{ data: string; ms: number }>;
  /** Starts a copy made by baseBackup as a cluster of its own; its URL. */
  startCopy(data: string): Promise<string>;
  destroy(): void;
}

const clusters = new Set<ThrowawayCluster>();
process.on('exit', () => {
  for (const cluster of clusters) cluster.destroy();
});

export async function createCluster(): Promise<ThrowawayCluster> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-cluster-'));
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const run = (args: string[]) => {
    const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    const result = spawnSync(command!, rest, { encoding: 'utf8', timeout: 120_000, cwd: dir });
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.stdout || result.error?.message}`);
  };
  // pg_basebackup runs while the test's clients keep writing: a child this process does not wait on.
  const runAsync = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
      const child = spawn(command!, rest, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} failed: ${stderr}`))));
    });
  const running = new Set<string>();
  const start = (data: string, port: number) => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60 -c shared_buffers=16MB -c wal_level=replica`;
    run([join(bin, 'pg_ctl'), '-D', data, '-l', `${data}.log`, '-w', '-t', '90', '-o', options, 'start']);
    running.add(data);
    return `postgres://postgres@127.0.0.1:${port}/postgres`;
  };
  const port = await freePort();
  const data = join(dir, 'source');
  let copies = 0;
  const cluster: ThrowawayCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async baseBackup() {
      const target = join(dir, `copy-${++copies}`);
      const started = Date.now();
      // -X stream: the WAL written while the copy runs comes along, so the copy is consistent.
      await runAsync([join(bin, 'pg_basebackup'), '-D', target, '-X', 'stream', '-c', 'fast', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres']);
      return { data: target, ms: Date.now() - started };
    },
    async startCopy(copy) {
      return start(copy, await freePort());
    },
    destroy() {
      clusters.delete(cluster);
      for (const folder of running) {
        try {
          run([join(bin, 'pg_ctl'), '-D', folder, '-w', '-t', '60', '-m', 'immediate', 'stop']);
        } catch {
          // already down
        }
      }
      running.clear();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  clusters.add(cluster);
  try {
    run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    start(data, port);
  } catch (err) {
    cluster.destroy();
    throw err;
  }
  return cluster;
}
