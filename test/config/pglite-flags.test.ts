// The V8 flags PGlite's memory depends on (src/store/pglite-settings.ts, WASM_FLAGS) are the ones
// `npm start` passes: the two cannot drift apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCommand } from '../../scripts/start-command.ts';
import { WASM_FLAGS } from '../../src/store/pglite-settings.ts';

test("npm start passes PGlite's WebAssembly flags to Node, before the script", () => {
  const { nodeFlags, entry } = startCommand();
  assert.equal(entry, 'dist/cli/main.js', 'npm start runs the built service');
  for (const flag of WASM_FLAGS) assert.ok(nodeFlags.includes(flag), `${flag} missing from the start script's flags: ${nodeFlags.join(' ')}`);
  assert.ok(nodeFlags.includes('--max-old-space-size=256') && nodeFlags.includes('--max-semi-space-size=2'), nodeFlags.join(' '));
});

test('the dealflow command runs the built CLI with the same flags, and serve with the same heap limits', async () => {
  const launcher = await import('../../bin/dealflow.js');
  const { nodeFlags: startFlags } = startCommand();
  for (const args of [['verify'], ['token', 'list'], ['--help']]) {
    for (const flag of WASM_FLAGS) assert.ok(launcher.nodeFlags(args).includes(flag), `${flag} missing for dealflow ${args.join(' ')}`);
  }
  assert.deepEqual([...launcher.nodeFlags(['serve'])].sort(), [...startFlags].sort(), 'dealflow serve starts as npm start does');
});

test('npm test runs its files with the same WebAssembly flags (scripts/test.ts passes them to each shard)', async () => {
  const { readFile } = await import('node:fs/promises');
  const script: string = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).scripts.test;
  for (const flag of WASM_FLAGS) assert.match(script, new RegExp(`^(\\S+=\\S+ )*node (\\S+ )*${flag} `), script);
  assert.ok(
    process.execArgv.some((arg) => (WASM_FLAGS as readonly string[]).includes(arg)) || !process.env.npm_lifecycle_event?.startsWith('test'),
    'this file runs with them under npm test',
  );
});
