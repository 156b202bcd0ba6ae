// The dealflow command end to end, on its own embedded database folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';

// The CLI opens the database the service would use; on a PostgreSQL run it would touch the shared
// server's default schema, so this file runs on the embedded database only.
describe('dealflow CLI', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-cli-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/dealflow.js', ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
    });

  test('--help lists the commands, and each command has its own', () => {
    const help = run('--help');
    assert.equal(help.status, 0);
    for (const command of ['serve', 'migrate', 'token']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
    assert.match(run('token', '--help').stdout, /token create --role admin/);
  });

  test('migrate twice, then create, list and revoke a token', () => {
    assert.equal(run('migrate').status, 0);
    assert.match(run('migrate').stdout, /up to date/);
    const created = run('token', 'create', '--role', 'investor', '--investor', 'inv-1', '--allow-unknown');
    assert.equal(created.status, 0, created.stderr);
    const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0];
    const id = /token ([0-9a-f-]{36})/.exec(created.stdout)?.[1];
    assert.ok(token && id);
    const list = run('token', 'list');
    assert.match(list.stdout, new RegExp(`${id}.*investor.*live`));
    assert.doesNotMatch(list.stdout, new RegExp(token), 'the token itself is never shown again');
    assert.equal(run('token', 'revoke', id).status, 0);
    assert.match(run('token', 'list').stdout, new RegExp(`${id}.*revoked`));
    const again = run('token', 'revoke', id);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /no live token/);
  });

  test('an investor token needs an investor id', () => {
    const result = run('token', 'create', '--role', 'investor');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /investor user id/);
  });
});
