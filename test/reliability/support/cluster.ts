// A throwaway PostgreSQL cluster for the outage check: initdb into a temp folder, start on a free
// loopback port, stop and start at will, removed at the end. The shared server is never touched.
// As root, the server must run as the `postgres` OS user (PostgreSQL refuses to run as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service.ts';

export interface Cluster {
  url: string;
  port: number;
  start(): void;
  /** `fast` shutdown: sessions are terminated, as when the database host is taken down. */
  stop(): void;
  /** SIGSTOP every process of the cluster: it accepts nothing and answers nothing (a dead link). */
  freeze(): void;
  thaw(): void;
  destroy(): void;
}

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** Undefined when a cluster can be made here, else why not. */
export function clusterUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and no postgres OS user';
  return undefined;
}

const clusters = new Set<Cluster>();
process.on('exit', destroyAllClusters);

/** Stops and removes every cluster still there (the `after` hook calls this, and so does exit). */
export function destroyAllClusters() {
  for (const cluster of clusters) cluster.destroy();
}

export async function createCluster(): Promise<Cluster> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-rel-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const run = (args: string[], timeoutMs = 60_000) => {
    const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    const result = spawnSync(command!, rest, { encoding: 'utf8', timeout: timeoutMs, cwd: dir });
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.stdout || result.error?.message}`);
    return result.stdout;
  };
  run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const pgCtl = (action: string, extra: string[] = []) =>
    run([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', ...extra, action], 45_000);
  let running = false;
  const pids = (): number[] => {
    const file = join(data, 'postmaster.pid');
    if (!existsSync(file)) return [];
    const postmaster = Number(readFileSync(file, 'utf8').split('\n')[0]);
    if (!(postmaster > 0)) return [];
    let children: number[] = [];
    try {
      children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0);
    } catch {
      // no children
    }
    return [postmaster, ...children];
  };
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of pids()) {
      try {
        process.kill(pid, sig);
      } catch {
        // gone meanwhile
      }
    }
  };
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      pgCtl('start', ['-o', options]);
      running = true;
    },
    stop() {
      pgCtl('stop', ['-m', 'fast']);
      running = false;
    },
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    destroy() {
      clusters.delete(cluster);
      signal('SIGCONT');
      try {
        if (running) pgCtl('stop', ['-m', 'immediate']);
      } catch {
        // already down
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  clusters.add(cluster);
  try {
    cluster.start();
  } catch (err) {
    cluster.destroy();
    throw err;
  }
  return cluster;
}
