#!/usr/bin/env node
// The `dealflow` command (package.json "bin", `npx dealflow`, `npm run dealflow`). It runs the built
// CLI, dist/cli/main.js, in a Node 24 child with the V8 flags the service runs with: PGlite's
// WebAssembly compiled by Liftoff only (src/store/pglite-settings.ts, WASM_FLAGS), which keeps a
// command on the embedded database to a couple of seconds and about 200 MB instead of 5-13 s and
// 800 MB while TurboFan compiles PostgreSQL's parser. Plain JavaScript, so that the system's older
// Node can start it: the child runs on the Node 24 of the `node` package when it is installed.
// When a source file is newer than the last build, it builds first (`npm run build`'s command).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist/cli/main.js');
const stamp = join(root, 'dist/.tsbuildinfo');

/** The V8 flags of every command; `serve` also gets `npm start`'s heap limits. */
export const WASM_FLAGS = ['--liftoff-only'];
export const SERVE_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=256'];

export function nodeFlags(args) {
  return args[0] === 'serve' ? [...SERVE_FLAGS, ...WASM_FLAGS] : [...WASM_FLAGS];
}

/** Node 24: the `node` package's binary when installed (npm scripts put it first on PATH too). */
export function nodeBinary() {
  const bundled = join(root, 'node_modules/node/bin/node');
  return Number(process.versions.node.split('.')[0]) >= 24 || !existsSync(bundled) ? process.execPath : bundled;
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than src/ (a checkout without sources just runs dist/). */
function buildIfStale() {
  const src = join(root, 'src');
  if (!existsSync(src)) return;
  const built = existsSync(entry) && existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  if (built >= newestSource(src)) return;
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  if (!existsSync(tsc)) {
    if (built === 0) fail('dist/ is missing and TypeScript is not installed: run npm install (it builds dist/)');
    return;
  }
  process.stderr.write('dealflow: building dist/ (the sources changed since the last build)\n');
  const build = spawnSync(nodeBinary(), [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) fail('the build failed (npm run build shows why)');
  // tsc leaves its files alone when nothing changed: mark the build as newer than the sources.
  const now = new Date();
  utimesSync(stamp, now, now);
}

function fail(message) {
  process.stderr.write(`dealflow: ${message}\n`);
  process.exit(1);
}

function main() {
  const args = process.argv.slice(2);
  buildIfStale();
  const node = nodeBinary();
  const argv = [...nodeFlags(args), entry, ...args];
  // Node 24 replaces this process with the CLI: one process, signals and exit code its own.
  if (typeof process.execve === 'function' && node === process.execPath) process.execve(node, [node, ...argv], process.env);
  // An older Node (the system's, started directly) runs it as a child.
  const child = spawn(node, argv, { stdio: 'inherit' });
  // Ctrl-C reaches the child from the terminal itself; other signals are passed on.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => fail(`could not start Node: ${err.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
}

// Run as the command, not when imported (by the tests, whose process's argv[1] may name no file).
const invoked = process.argv[1] && existsSync(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invoked) main();
