// npm test: every test file, in shards of about thirty files, each shard one process that loads its
// files into itself (node --test --test-isolation=none --test-shard=k/n), as many shards at a time
// as the machine has cores.
//
// Why: a test file's own work is mostly small, and in a process of its own each file first paid
// for loading the service's modules and compiling PGlite's WebAssembly: sharing a process takes
// about 40 % off the suite's CPU time. The files still cannot see each other's data: each test app
// has a database of its own (a PGlite in memory, or a schema of its own on PostgreSQL), and a file
// keeps its hooks inside a describe (test/architecture/test-tree.test.ts). Shards stay small so
// that a process's heap stays small and a file's tests run soon after it was loaded.
//
// TEST_SHARDS sets the number of shards, TEST_PARALLEL how many run at once. Arguments are test
// files to run instead of all of them, and options for node --test
// (npm test -- --test-name-pattern=paging test/deals/deals.test.ts).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { WASM_FLAGS } from '../src/store/pglite-settings.ts';

const patterns = ['src/**/*.test.ts', 'test/**/*.test.ts'];
const args = process.argv.slice(2);
const options = args.filter((arg) => arg.startsWith('-'));
const files = args.filter((arg) => !arg.startsWith('-'));
const shards = Number(process.env.TEST_SHARDS) || (files.length > 0 ? Math.max(1, Math.ceil(files.length / 30)) : 8);
const parallel = Number(process.env.TEST_PARALLEL) || Math.min(4, Math.max(2, availableParallelism()));

const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);

function runShard(shard: number): Promise<{ shard: number; code: number; seconds: number }> {
  const child = spawn(
    process.execPath,
    [...WASM_FLAGS, '--test', '--test-isolation=none', `--test-shard=${shard}/${shards}`, ...options, ...(files.length > 0 ? files : patterns)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Whole lines only, so that the reports of shards running together interleave line by line.
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop()!;
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      if (pending) process.stdout.write(`${pending}\n`);
      resolve({ shard, code: code ?? (signal ? 1 : 0), seconds: seconds() });
    }),
  );
}

const queue = Array.from({ length: shards }, (_, index) => index + 1);
const results: { shard: number; code: number; seconds: number }[] = [];
await Promise.all(
  Array.from({ length: Math.min(parallel, shards) }, async () => {
    for (let shard = queue.shift(); shard !== undefined; shard = queue.shift()) results.push(await runShard(shard));
  }),
);
const failed = results.filter((r) => r.code !== 0).map((r) => r.shard);
process.stdout.write(
  `npm test: ${shards} shards, ${parallel} at a time, ${seconds()} s: ${failed.length === 0 ? 'all passed' : `shard ${failed.sort((a, b) => a - b).join(', ')} failed (each prints its failing tests above)`}\n`,
);
process.exitCode = failed.length > 0 ? 1 : 0;
