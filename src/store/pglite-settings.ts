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
// across. No option changes that; initCluster (below) does it in a short-lived child process, so
// the service's own memory never holds three copies of PostgreSQL.
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
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

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
 * same flag (package.json's start script, kept equal by test/foundation/pglite-flags.test.ts), and
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
  const staging = mkdtempSync(path.join(dataDir, '.initdb-'));
  try {
    const script = `const { PGlite } = await import('@electric-sql/pglite'); const db = await PGlite.create(${JSON.stringify(staging)}); await db.close();`;
    // --liftoff-only: see WASM_FLAGS. Whatever flags this process was started with, the child's
    // initdb never compiles PostgreSQL's parser with TurboFan (measured: 1,043 MB peak without, 605 MB with).
    const child = spawn(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'], cwd: import.meta.dirname });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`could not create the database in ${dataDir} (exit ${code}): ${stderr.trim()}`);
    // What a cut move left (no PG_VERSION yet): cluster files only; the folder's own lock stays.
    const made = new Set(readdirSync(staging));
    for (const entry of readdirSync(dataDir)) if (made.has(entry)) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    for (const entry of [...made].filter((e) => e !== 'PG_VERSION')) renameSync(path.join(staging, entry), path.join(dataDir, entry));
    renameSync(path.join(staging, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
