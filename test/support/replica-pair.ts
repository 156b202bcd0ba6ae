// A throwaway PostgreSQL primary with one streaming replica, for the read-replica tests: initdb
// into a temp folder, pg_basebackup -R from it into another, both started on free loopback ports
// (as the `postgres` OS user when run as root: PostgreSQL refuses to run as root). The shared
// server is never touched. Removed at the end, and at exit whatever happened.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, serverBinDir, serverFolder, serverUnavailable } from './pg-server.ts';

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

/** Undefined when a pair can be made here, else why not. */
export const replicaPairUnavailable = serverUnavailable;

const pairs = new Set<ReplicaPair>();
process.on('exit', () => {
  for (const pair of pairs) pair.destroy();
});

export async function createReplicaPair(): Promise<ReplicaPair> {
  const bin = serverBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const { dir, run: runIn } = serverFolder('dealflow-replica-');
  const run = (args: string[]) => runIn(args, 90_000);
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
