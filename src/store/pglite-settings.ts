// PGlite's memory, measured (docs/benchmarks.md, "Memory"). PGlite runs PostgreSQL inside this process's
// WebAssembly memory, which grows to the most it ever held and never shrinks, so every buffer
// PostgreSQL sizes for a server machine is paid for in our resident memory for good:
// - shared_buffers 128 MB by default, the largest part. 16 MB holds the hot pages of a single
//   instance's working set (the lists read index ranges, not whole tables).
// - maintenance_work_mem 64 MB (index builds in migrations), wal_buffers 4 MB, temp_buffers 8 MB.
// None of these touches durability: the write-ahead log, commits and checkpoints work as before
// (PGlite's own defaults, which we keep, decide fsync).
// The first start's peak (about 1.1 GB) is PGlite creating a cluster: it runs initdb in a second
// PGlite instance and a third WebAssembly module beside the first, and copies the new data folder
// across. No option changes that; initCluster (below) does it once per installation in a
// short-lived child process and keeps the result to copy (clusterTemplate), so neither the
// service nor a CLI command ever holds three copies of PostgreSQL.
// What remained (a peak of 750-840 MB at every start, 300-340 MB kept after) was V8, not
// PostgreSQL: V8 compiles WebAssembly with Liftoff, its baseline compiler, and recompiles the
// functions that run most with TurboFan in background threads. PostgreSQL's `raw_parser` (the
// Bison grammar, 104,930 bytes of WebAssembly, function 2272 of pglite.wasm) is hot as soon as
// queries run, and TurboFan takes 604 MB of compiler memory and 4-13 s to compile it
// (`--trace-wasm-compilation-times`, `--turbo-stats-wasm`); no TurboFan or tiering option tried
// shrinks that. With `--liftoff-only` (WASM_FLAGS) the service peaks at 200-255 MB and keeps
// 200-250 MB. The price: once TurboFan would have finished, a move costs about a third more CPU on
// PGlite (docs/benchmarks.md, "Memory"); list reads stayed within the runs' noise.
// `v8.setFlagsFromString('--liftoff-only')` at run time does not take effect, so it is a start flag.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const pgliteSettings = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
  max_wal_size: '64MB',
  min_wal_size: '32MB',
} as const;

/**
 * V8 flags for a process that runs PGlite: its WebAssembly is compiled by Liftoff, V8's baseline
 * compiler, and never tiered up to TurboFan (see the top of this file). `npm start` passes the
 * same flag (package.json's start script, kept equal by test/config/pglite-flags.test.ts), and
 * initCluster passes it to its child.
 */
export const WASM_FLAGS = ['--liftoff-only'] as const;

/** `-c name=value` for each setting, after PGlite's own start parameters. */
export const pgliteStartParams = (defaults: readonly string[]) => [
  ...defaults,
  ...Object.entries(pgliteSettings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/** True when `dataDir` holds no cluster yet (PGlite would run initdb). */
export const needsCluster = (dataDir: string) => !existsSync(path.join(dataDir, 'PG_VERSION'));

/**
 * Creates the cluster in `dataDir` in a child process that exits when done, so initdb's memory is
 * returned to the system instead of staying in this process's WebAssembly memory.
 *
 * The child builds it in a staging folder inside `dataDir`, and the finished cluster is moved in
 * with `PG_VERSION` last, the file needsCluster looks for. A start killed at any moment of this
 * (the reliability suite's first-start kills) leaves either no `PG_VERSION`, and the next start
 * clears what a cut move left and creates the cluster again, or a whole cluster. Built in place,
 * a killed start left its orphaned child still writing the folder (PGlite writes `PG_VERSION`
 * first) while the next start opened it half made, and PGlite aborted.
 */
export async function initCluster(dataDir: string): Promise<void> {
  // Inside the folder, so the moves are renames on one file system (a data folder may be a mount).
  for (const entry of readdirSync(dataDir)) if (entry.startsWith('.initdb-')) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
  // Absolute: the child runs in another working directory (a relative DATA_DIR would land there).
  const staging = mkdtempSync(path.join(path.resolve(dataDir), '.initdb-'));
  try {
    const template = clusterTemplate();
    if (template !== undefined && existsSync(path.join(template, 'PG_VERSION'))) cpSync(template, staging, { recursive: true });
    else {
      await runInitdb(staging, dataDir);
      if (template !== undefined) keepAsTemplate(staging, template);
    }
    // What a cut move left (no PG_VERSION yet): cluster files only; the folder's own lock stays.
    const made = new Set(readdirSync(staging));
    for (const entry of readdirSync(dataDir)) if (made.has(entry)) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    for (const entry of [...made].filter((e) => e !== 'PG_VERSION')) renameSync(path.join(staging, entry), path.join(dataDir, entry));
    renameSync(path.join(staging, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function runInitdb(staging: string, dataDir: string): Promise<void> {
  const script = `const { PGlite } = await import('@electric-sql/pglite'); const db = await PGlite.create(${JSON.stringify(staging)}); await db.close();`;
  // --liftoff-only: see WASM_FLAGS. Whatever flags this process was started with, the child's
  // initdb never compiles PostgreSQL's parser with TurboFan (measured: 1,043 MB peak without, 640 MB with).
  const child = spawn(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: import.meta.dirname,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`could not create the database in ${dataDir} (exit ${code}): ${stderr.trim()}`);
}

/**
 * Where a freshly made, cleanly closed cluster of the installed PGlite version is kept
 * (node_modules/.cache/dealflow/pglite-<version>), or undefined when PGlite's folder is not found.
 * A new data folder is a copy of it: initdb's 640 MB and 3 s are paid once per installation
 * (`npm install` makes it, scripts/cluster-template.ts), not by every first start and every CLI
 * command on a new folder. The version in the name keeps an upgraded PGlite from copying an old one.
 */
export function clusterTemplate(): string | undefined {
  try {
    const { packageDir, version } = installedPGlite();
    return path.join(packageDir, '..', '..', '.cache', 'dealflow', `pglite-${version}`);
  } catch {
    return undefined;
  }
}

/** Where the installed PGlite package is, and its version (caches of its clusters are named by it). */
export function installedPGlite(): { packageDir: string; version: string } {
  const packageDir = path.dirname(path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))));
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return { packageDir, version };
}

/** Copies a new cluster to `template`, whole or not at all (a rename); best effort, as it is only a cache. */
function keepAsTemplate(cluster: string, template: string): void {
  const partial = `${template}.${process.pid}-${Date.now()}`;
  try {
    mkdirSync(path.dirname(template), { recursive: true });
    cpSync(cluster, partial, { recursive: true });
    renameSync(partial, template);
  } catch {
    // Another process kept one first, or the cache is not writable: the next start runs initdb again.
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Makes the template now (`npm install` runs this), so that no start or command pays initdb. */
export async function prepareClusterTemplate(): Promise<string | undefined> {
  const template = clusterTemplate();
  if (template === undefined || existsSync(path.join(template, 'PG_VERSION'))) return template;
  mkdirSync(path.dirname(template), { recursive: true });
  const scratch = mkdtempSync(path.join(path.dirname(template), '.cluster-'));
  try {
    await runInitdb(scratch, scratch);
    keepAsTemplate(scratch, template);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return template;
}
