// The empty, migrated embedded database each test file's PGlite starts from. Creating a cluster in
// memory and migrating it costs about 5 s per test file; loading a dump of one about 0.7 s. The dump
// is made once and kept in node_modules/.cache/dealflow, named by PGlite's version and a hash of the
// migrations, so a changed or added migration, or another PGlite, makes a new one.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PGliteDialect } from 'kysely';
import { pgliteOptions } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { installedPGlite } from '../../src/store/pglite-settings.ts';

const migrations = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
const cache = fileURLToPath(new URL('../../node_modules/.cache/dealflow/', import.meta.url));

function dumpName(): string {
  const { version } = installedPGlite();
  const hash = createHash('sha256');
  for (const file of readdirSync(migrations).sort())
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(migrations, file)))
      .update('\0');
  return `test-pglite-${version}-${hash.digest('hex').slice(0, 16)}.tar`;
}

export async function migratedPGliteDump(): Promise<Blob> {
  const file = path.join(cache, dumpName());
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const { PGlite, options } = await pgliteOptions();
  const pglite = await PGlite.create('memory://', options);
  const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('none');
    // Whole or not at all: test files starting together may each make one; the last rename wins.
    mkdirSync(cache, { recursive: true });
    const partial = `${file}.${process.pid}`;
    try {
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
    } catch {
      rmSync(partial, { force: true }); // not writable: the next file makes its own again
    }
    return dump;
  } finally {
    await db.destroy();
  }
}
