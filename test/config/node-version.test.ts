// The Node the project runs on: the `node` package (Node 24) in dependencies, which npm scripts and
// the dealflow command use whatever the system's Node; `engines` and `.nvmrc` say the same major;
// `.npmrc` keeps npm from warning, on an older system Node, about engines the project does meet.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

test('the node package, engines and .nvmrc name the same Node major, and npm install stays quiet about engines', async () => {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string }> };
  const major = Number(lock.packages['node_modules/node']?.version?.split('.')[0]);
  assert.ok(major >= 24, 'the node package is locked at Node 24 or later');
  const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; dependencies: Record<string, string> };
  assert.equal(pkg.engines.node, `>=${major}`);
  assert.match(pkg.dependencies.node!, new RegExp(`^\\^${major}\\.`));
  assert.equal(read('.nvmrc').trim(), String(major));
  assert.match(read('.npmrc'), /^loglevel=error$/m);
  assert.equal(Number(process.versions.node.split('.')[0]), major, 'the tests run on that Node');
  const { nodeBinary } = await import('../../bin/dealflow.js');
  assert.equal(nodeBinary(), process.execPath, 'under Node 24 the dealflow command runs the CLI on the same binary');
});
