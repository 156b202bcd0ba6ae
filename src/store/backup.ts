// Backups of the embedded database (`dealflow backup` and `dealflow restore`): a gzipped tar of the
// PGlite data folder, an ordinary .tar.gz that `tar xzf` also unpacks. PostgreSQL's backups are
// pg_basebackup's (docs/operations/README.md).
//
// The copy is consistent because PGlite is one process's database and runs one statement at a
// time: a checkpoint first writes every changed page to the files, and then, while PGlite's
// transaction lock is held, no statement runs and nothing writes the folder, so its files are the
// database as of the last commit before the copy. Requests wait for the copy (a few seconds for a
// few hundred MB); a transaction never straddles it.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import * as tar from 'tar';
import { AppError } from '../domain/errors.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';

/** What a data folder holds besides the database: our lock and socket, a cut cluster creation. */
const notDatabase = (name: string) => name.startsWith('dealflow.lock') || name === 'dealflow.sock' || name.startsWith('.initdb-');

/** Writes the backup of the running `pglite`, whose folder is `dataDir`, to `file` (whole or not at all). */
export async function backupPGlite(pglite: PGlite, dataDir: string, file: string): Promise<void> {
  const partial = `${file}.partial`;
  try {
    await pglite.exec('checkpoint');
    await pglite._runExclusiveTransaction(() =>
      tar.create(
        { gzip: { level: 6 }, file: partial, cwd: dataDir, portable: true, mode: 0o600 },
        readdirSync(dataDir).filter((name) => !notDatabase(name)),
      ),
    );
    const fd = openSync(partial, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** Whether `file` starts as gzip does (a backup of ours is a gzipped tar). */
function looksGzipped(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Restores `file` into `dataDir`, which must be missing or empty unless `force` (then what it holds
 * is deleted first; never while a process holds the folder). The service (or `dealflow verify`)
 * opening it next finds the database as of the copy.
 */
export async function restorePGlite(file: string, dataDir: string, options: { force?: boolean } = {}): Promise<{ bytes: number }> {
  if (!existsSync(file)) throw new AppError('not-found', `No backup file ${file}`);
  if (!looksGzipped(file)) throw new AppError('validation', `${file} is not a backup made by dealflow backup (a gzipped tar of the data folder)`);
  mkdirSync(dataDir, { recursive: true });
  // The lock first: a folder a running service holds is refused, with --force or without.
  const release = await acquireDataDirLock(dataDir);
  try {
    const present = readdirSync(dataDir).filter((entry) => !notDatabase(entry));
    if (present.length > 0) {
      if (!options.force) {
        throw new AppError(
          'conflict',
          `${dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): restore into a new folder, or pass --force to replace what it holds`,
        );
      }
      for (const entry of present) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    }
    // PG_VERSION last: a restore cut short leaves a folder that needsCluster() does not take for a database.
    await tar.extract({ file, cwd: dataDir, strict: true, filter: (p) => !notDatabase(p.split('/')[0]!) && p !== 'PG_VERSION' });
    await tar.extract({ file, cwd: dataDir, strict: true }, ['PG_VERSION']).catch(() => {});
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      for (const entry of readdirSync(dataDir)) if (!entry.startsWith('dealflow.lock')) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
      throw new AppError('validation', `${file} holds no database folder (no PG_VERSION)`);
    }
  } finally {
    release();
  }
  return { bytes: statSync(file).size };
}
