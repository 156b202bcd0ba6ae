// The dealflow command on a fresh checkout, before the service has ever started: every command that
// opens the embedded database creates it in the default folder, `.data` at the checkout's root,
// whatever folder of the checkout it is run from. The checkout is a copy of what `npm install`
// leaves (bin/, dist/, package.json, node_modules) in a temporary folder, so the real .data is
// never touched.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onPostgres } from '../support/app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The embedded database is the subject: a PostgreSQL run has nothing more to prove here.
describe('dealflow on a fresh checkout', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const checkout = mkdtempSync(join(tmpdir(), 'dealflow-clone-'));
  after(() => rmSync(checkout, { recursive: true, force: true }));
  for (const entry of ['bin', 'dist', 'package.json']) cpSync(join(root, entry), join(checkout, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  const env = { ...process.env };
  delete env.DATA_DIR;
  delete env.DATABASE_URL;
  const run = (cwd: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(checkout, 'bin/dealflow.js'), ...args], { cwd, env, encoding: 'utf8', timeout: 120_000 });

  test('verify from a subfolder creates the database in .data at the root, and token create and list use it', () => {
    const docs = join(checkout, 'docs', 'guides');
    mkdirSync(docs, { recursive: true });
    const verify = run(docs, 'verify');
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /^OK: 0 entries/);
    assert.ok(existsSync(join(checkout, '.data', 'PG_VERSION')), 'the database is in .data at the checkout root');
    assert.ok(!existsSync(join(docs, '.data')), 'nothing in the working directory');
    const created = run(join(checkout, 'dist'), 'token', 'create', '--role', 'admin', '--name', 'ops');
    assert.equal(created.status, 0, created.stderr);
    const id = /token ([0-9a-f-]{36})/.exec(created.stdout)?.[1] ?? assert.fail(created.stdout);
    const list = run(checkout, 'token', 'list');
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${id}.*admin.*live.*ops`), 'the same database from the root');
  });
});
