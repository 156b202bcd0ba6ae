// The demo deal on the first start of the embedded database, and `dealflow seed` from the command line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';

describe('demo data on the embedded database', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const folders: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'dealflow-seed-'));
    folders.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  test('the first start prints the demo deal id beside the admin token, and the deal is there', async () => {
    const lines: string[] = [];
    const config = loadConfig({ DATA_DIR: folder(), PORT: '0', LOG_LEVEL: 'silent' });
    const service = await serve(config, { print: (line) => lines.push(line) });
    try {
      const token = /Admin token.*: (dfk_\S+)/.exec(lines.join('\n'))?.[1];
      assert.ok(token, lines.join('\n'));
      assert.ok(
        lines.some((line) => /^Demo deal: +demo\b/.test(line)),
        lines.join('\n'),
      );
      const response = await checkedFetch(service.url, '/deals/deal/demo/all-investor-workflows?limit=1', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
      assert.equal((response.json as { totalPages: number }).totalPages, 200);
    } finally {
      await service.close();
    }
  });

  test('--no-demo: no demo deal', async () => {
    const lines: string[] = [];
    const service = await serve(loadConfig({ DATA_DIR: folder(), PORT: '0', LOG_LEVEL: 'silent' }), { demo: false, print: (line) => lines.push(line) });
    await service.close();
    assert.ok(lines.some((line) => line.startsWith('Admin token')));
    assert.ok(!lines.some((line) => line.startsWith('Demo deal')));
  });

  test('dealflow seed --demo and --investors N --deals M', () => {
    const dataDir = folder();
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/dealflow.js', 'seed', ...args], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, encoding: 'utf8' });
    const first = run('--demo');
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /Created the demo deal "demo" with 200 investors/);
    const bench = run('--investors', '30', '--deals', '2');
    assert.equal(bench.status, 0, bench.stderr);
    assert.match(bench.stdout, /Created 30 investors and 60 journeys in 2 deal\(s\): bench-\w+-1, bench-\w+-2/);
    const bad = run('--investors', 'many');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--investors must be a whole number/);
  });
});
