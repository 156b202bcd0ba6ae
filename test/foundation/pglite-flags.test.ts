// The V8 flags PGlite's memory depends on (src/store/pglite-settings.ts, WASM_FLAGS) are the ones
// `npm start` passes: the two cannot drift apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WASM_FLAGS } from '../../src/store/pglite-settings.ts';

test("npm start passes PGlite's WebAssembly flags to Node, before the script", () => {
  const start: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  const script = words.indexOf('src/cli/main.ts');
  assert.ok(script > 0, start);
  const nodeFlags = words.slice(1, script);
  for (const flag of WASM_FLAGS) assert.ok(nodeFlags.includes(flag), `${flag} missing from the start script: ${start}`);
  assert.ok(nodeFlags.includes('--max-old-space-size=256') && nodeFlags.includes('--max-semi-space-size=2'), start);
});
