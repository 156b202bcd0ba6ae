// `dealflow backup`: the embedded database copied to a file by the process that holds it
// (Database.backupTo, store/backup.ts), the running service or this command.
import { existsSync, statSync } from 'node:fs';
import { AppError } from '../domain/errors.ts';
import type { Database } from '../store/database.ts';

export async function writeBackup(database: Database, file: string, force: boolean): Promise<{ file: string; bytes: number; ms: number }> {
  if (!database.backupTo)
    throw new AppError('validation', 'dealflow backup copies the embedded database; on PostgreSQL use pg_basebackup (docs/operations/README.md)');
  if (existsSync(file) && !force) throw new AppError('conflict', `${file} exists: choose another name, or pass --force to replace it`);
  const started = Date.now();
  await database.backupTo(file);
  return { file, bytes: statSync(file).size, ms: Date.now() - started };
}
