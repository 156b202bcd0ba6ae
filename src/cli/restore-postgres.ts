// `dealflow restore --postgres <folder>`: makes a restored PostgreSQL data folder start as a server
// of its own. A base backup carries the configuration of the node it was taken from, and a node of
// a pg_auto_failover formation carries much that a lone copy must not keep:
// - synchronous_standby_names naming the formation's standby (set by pg_autoctl with ALTER
//   SYSTEM): every commit on the copy would wait for a standby that never comes;
// - the node's port, listen_addresses ('*') and shared_buffers (sized for the node's machine);
// - pg_autoctl's own settings (postgresql-auto-failover.conf, postgresql-auto-failover-standby.conf,
//   included by postgresql.conf: replication, ssl files in the node's folder, hot_standby…);
// - standby.signal and primary_conninfo when the copy came from a standby.
// It edits files only, with the server stopped, and says what it changed. A recovery.signal and the
// restore_command a point-in-time restore wrote (pgBackRest's restore) are kept.
import { chownSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../domain/errors.ts';

export interface PostgresRestoreOptions {
  port: number;
  listenAddresses: string;
  /** Leave shared_buffers to postgresql.conf when undefined. */
  sharedBuffers?: string;
}

/** Settings of postgresql.auto.conf that belong to the node the backup came from. */
const nodeSettings = [
  'synchronous_standby_names',
  'synchronous_commit',
  'primary_conninfo',
  'primary_slot_name',
  'port',
  'listen_addresses',
  'shared_buffers',
  'cluster_name',
];

/** pg_autoctl's files, included by postgresql.conf: emptied, their contents kept beside them. */
const autoctlFiles = ['postgresql-auto-failover.conf', 'postgresql-auto-failover-standby.conf'];

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Resets `dataDir` as above; returns one line per change. */
export function resetRestoredPostgres(dataDir: string, options: PostgresRestoreOptions): string[] {
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) throw new AppError('validation', `${dataDir} is not a PostgreSQL data folder (no PG_VERSION)`);
  const pid = path.join(dataDir, 'postmaster.pid');
  if (existsSync(pid)) {
    const running = Number(readFileSync(pid, 'utf8').split('\n')[0]);
    if (running > 0 && isAlive(running)) throw new AppError('conflict', `a server runs on ${dataDir} (pid ${running}): stop it first`);
  }
  const owner = statSync(dataDir);
  const write = (file: string, text: string) => {
    writeFileSync(file, text, { mode: 0o600 });
    // Run as root, the files keep the data folder's owner (PostgreSQL reads them as that user).
    if (process.getuid?.() === 0) chownSync(file, owner.uid, owner.gid);
  };
  const changes: string[] = [];

  const auto = path.join(dataDir, 'postgresql.auto.conf');
  const kept: string[] = [];
  for (const line of existsSync(auto) ? readFileSync(auto, 'utf8').split('\n') : []) {
    const name = /^\s*([a-z_.]+)\s*=/i.exec(line)?.[1]?.toLowerCase();
    if (name !== undefined && nodeSettings.includes(name)) changes.push(`postgresql.auto.conf: dropped ${line.trim()}`);
    else if (line.trim() !== '') kept.push(line);
  }
  const own = [
    `# Set by dealflow restore: this copy is a server of its own.`,
    `synchronous_standby_names = ''`,
    `port = ${options.port}`,
    `listen_addresses = ${quote(options.listenAddresses)}`,
    ...(options.sharedBuffers ? [`shared_buffers = ${quote(options.sharedBuffers)}`] : []),
  ];
  write(auto, `${[...kept, ...own].join('\n')}\n`);
  changes.push(`postgresql.auto.conf: ${own.slice(1).join(', ')}`);

  for (const name of autoctlFiles) {
    const file = path.join(dataDir, name);
    if (!existsSync(file)) continue;
    const before = `${file}.before-restore`;
    renameSync(file, before);
    write(file, `# Emptied by dealflow restore: the settings of the pg_auto_failover node this copy came from are in ${name}.before-restore\n`);
    changes.push(`${name}: emptied (was kept as ${name}.before-restore)`);
  }

  const standby = path.join(dataDir, 'standby.signal');
  if (existsSync(standby)) {
    rmSync(standby);
    changes.push('standby.signal: removed (the copy starts as a primary)');
  }
  if (existsSync(path.join(dataDir, 'recovery.signal')))
    changes.push('recovery.signal: kept (a point-in-time restore: the server recovers to its target, then promotes)');
  return changes;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
