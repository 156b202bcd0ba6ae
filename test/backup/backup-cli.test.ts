// dealflow backup and restore refuse what they cannot do, in one line and a hint, and change nothing:
// a file that is not a backup, an existing backup file, a PostgreSQL database (whose backups are
// pg_basebackup's), a data folder that is not empty.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const run = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, ['bin/dealflow.js', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });

describe('dealflow backup and restore refusals', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-backup-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('on PostgreSQL both point to pg_basebackup', () => {
    for (const command of ['backup', 'restore']) {
      const result = run({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, command, join(dir, 'x.tar.gz'));
      assert.equal(result.status, 1);
      assert.match(result.stderr, new RegExp(`^dealflow ${command}: .*pg_basebackup|base backup`, 'm'));
    }
  });

  test('a file that is not a backup, and a missing one, are refused; the folder stays empty', () => {
    const notBackup = join(dir, 'notes.txt');
    writeFileSync(notBackup, 'hello');
    const target = join(dir, 'target');
    const refused = run({ DATA_DIR: target }, 'restore', notBackup);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /is not a backup made by dealflow backup/);
    assert.ok(!existsSync(target) || readdirSync(target).length === 0);
    const missing = run({ DATA_DIR: target }, 'restore', join(dir, 'nothing.tar.gz'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /No backup file/);
  });

  test('an existing backup file is kept unless --force; a folder that is not empty unless --force', () => {
    const data = join(dir, 'data');
    const file = join(dir, 'b.tar.gz');
    assert.equal(run({ DATA_DIR: data }, 'backup', file).status, 0);
    const again = run({ DATA_DIR: data }, 'backup', file);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists: choose another name, or pass --force/);
    assert.equal(run({ DATA_DIR: data }, 'backup', file, '--force').status, 0);
    const occupied = join(dir, 'occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'keep.txt'), 'mine');
    const refused = run({ DATA_DIR: occupied }, 'restore', file);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /is not empty \(keep\.txt\)/);
    assert.ok(existsSync(join(occupied, 'keep.txt')));
    const forced = run({ DATA_DIR: occupied }, 'restore', file, '--force');
    assert.equal(forced.status, 0, forced.stderr);
    assert.ok(!existsSync(join(occupied, 'keep.txt')));
    assert.match(forced.stdout, /^OK: /m);
  });
});
