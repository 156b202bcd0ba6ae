// A throwaway PostgreSQL cluster for the restore drill: initdb into a temp folder, started on a free
// loopback port (as the `postgres` OS user when run as root, as replica-pair.ts does), with
// pg_basebackup copies of it started as clusters of their own. The shared server is never touched.
// Everything is stopped and removed at the end, and at exit whatever happened.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, serverBinDir, serverFolder, serverUnavailable } from './pg-server.ts';

/** Undefined when a cluster can be made here, else why not. */
export const clusterUnavailable = serverUnavailable;

export { freePort };

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
  const bin = serverBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  // pg_basebackup runs while the test's clients keep writing: runAsync does not block them.
  const { dir, run, runAsync } = serverFolder('dealflow-cluster-');
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
