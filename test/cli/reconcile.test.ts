// `dealflow reconcile FILE` end to end, on its own embedded database folder (as cli.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';

describe('dealflow reconcile', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-reconcile-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/dealflow.js', ...args], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, encoding: 'utf8' });
  const csv = [
    'test/payments/fixtures/statement.csv',
    '--delimiter',
    'semicolon',
    '--decimal-separator',
    'comma',
    '--date-column',
    'Buchungstag',
    '--amount-column',
    'Betrag',
    '--currency-column',
    'Waehrung',
    '--reference-column',
    'Verwendungszweck',
    '--bank-reference-column',
    'Bankreferenz',
  ];

  test('imports a CSV statement once, an XML one by its extension, and refuses a bad file', () => {
    const first = run('reconcile', ...csv);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^Imported: csv statement .*3 line\(s\), 3 new/m);
    assert.match(first.stdout, /debit 1/);
    const again = run('reconcile', ...csv);
    assert.match(again.stdout, /Imported before \(nothing changed\)/);
    const xml = run('reconcile', 'test/payments/fixtures/camt.053.001.08.xml');
    assert.equal(xml.status, 0, xml.stderr);
    assert.match(xml.stdout, /camt\.053 statement .*STMT-2026-11-22-001/);
    const bad = run('reconcile', 'package.json', '--format', 'xml');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /not well-formed|no ISO 20022 Document/);
  });

  test('refuses a statement that is not UTF-8, naming the line; nothing is imported', () => {
    const file = join(dataDir, 'latin1.csv');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('date,amount,currency,reference\n2026-01-02,10.00,EUR,Zahlung M'), Buffer.from([0xfc]), Buffer.from('ller\n')]),
    );
    const refused = run('reconcile', file);
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(refused.stderr, /not valid UTF-8 at line 2/);
  });
});
