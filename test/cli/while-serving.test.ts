// The dealflow command while the service holds the embedded database (PGlite allows one process):
// `token` and `verify` run through the service, so an operator gets a token without downtime;
// another command that needs the database says so in one line and a hint, and changes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.ts';

describe('dealflow while the service runs', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-serving-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' };
  const run = (...args: string[]) => spawnSync(process.execPath, ['bin/dealflow.js', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  let service: ServiceProcess | undefined;
  let base = '';

  before(async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: '' }, { timeoutMs: 90_000 });
    base = service.base;
  });
  after(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('token create, list and revoke go through the running service, and the new token works at once', async () => {
    const created = run('token', 'create', '--role', 'admin', '--name', 'night shift');
    assert.equal(created.status, 0, created.stderr);
    const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] ?? assert.fail(created.stdout);
    const id = /token ([0-9a-f-]{36})/.exec(created.stdout)?.[1] ?? assert.fail(created.stdout);
    const whoami = await checkedFetch(base, '/whoami', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(whoami.status, 200);
    assert.equal(whoami.json.role, 'admin');
    assert.match(run('token', 'list').stdout, new RegExp(`${id}.*admin.*live.*night shift`));
    assert.equal(run('token', 'revoke', id).status, 0);
    assert.equal((await checkedFetch(base, '/whoami', { headers: { authorization: `Bearer ${token}` } })).status, 401, 'revoked at once');
  });

  test('a refusal inside the service is the same one line and hint as on the command line', () => {
    const again = run('token', 'revoke', '00000000-0000-4000-8000-000000000000');
    assert.equal(again.status, 1);
    assert.deepEqual(
      again.stderr
        .trim()
        .split('\n')
        .map((l) => l.split(':')[0]),
      ['dealflow token', 'hint'],
    );
    assert.match(again.stderr, /no live token/);
  });

  test('verify runs through the service', () => {
    const verify = run('verify');
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /^OK: \d+ entries/);
  });

  test('a command that needs the database to itself says so in one line and how to proceed', () => {
    const seed = run('seed', '--demo');
    assert.equal(seed.status, 1);
    const lines = seed.stderr.trim().split('\n');
    assert.equal(lines.length, 2, seed.stderr);
    assert.match(lines[0]!, /^dealflow seed: the embedded database in .* is in use by process \d+/);
    assert.match(lines[1]!, /^hint: .*stop the service.*"dealflow token", "dealflow verify" and "dealflow backup" go through it/);
  });
});
