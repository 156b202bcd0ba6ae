// `dealflow import` end to end on its own embedded database folder: a CRM file of investors in one
// command (and again: unchanged), a dry run, and moves of the demo deal from a file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { onPostgres } from '../support/app.ts';

describe('dealflow import', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-import-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/dealflow.js', ...args], { env: { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' }, encoding: 'utf8' });
  const report = (stdout: string) => parse(stdout, { columns: true }) as { row: string; id: string; outcome: string; detail: string }[];

  test('investors from a CSV file, a re-run, a dry run, then their moves', () => {
    const header =
      'id,remoteId,dataSource,kycCheckLevel,guid,userType,status,contact.forename,contact.surname,contact.email,username,name,fullName,tfaEnabled,compliance,classifications';
    const line = (id: string, forename: string) =>
      `${id},crm-${id},crm,2,g-${id},1,active,${forename},Lamarr,${id}@example.com,${id},${forename} Lamarr,${forename} Lamarr,false,approved,`;
    const investors = join(dir, 'crm.csv');
    writeFileSync(investors, [header, line('cli-1', 'Hedy'), line('cli-2', 'Hedwig'), 'cli-3,broken'].join('\n'));
    const first = run('import', 'investors', investors);
    assert.equal(first.status, 2, first.stderr);
    assert.deepEqual(
      report(first.stdout).map((r) => r.outcome),
      ['created', 'created', 'refused'],
    );
    assert.match(first.stderr, /3 rows in .* 2 created, 0 updated, 0 unchanged, 1 refused/);
    writeFileSync(investors, [header, line('cli-1', 'Hedy'), line('cli-2', 'Hedwig')].join('\n'));
    const again = run('import', 'investors', investors);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(
      report(again.stdout).map((r) => r.outcome),
      ['unchanged', 'unchanged'],
    );
    writeFileSync(investors, [header, line('cli-1', 'Hedda')].join('\n'));
    const dry = run('import', 'investors', investors, '--dry-run');
    assert.deepEqual(
      report(dry.stdout).map((r) => r.outcome),
      ['updated'],
    );
    assert.match(dry.stderr, /Dry run, nothing written/);
    assert.deepEqual(
      report(run('import', 'investors', investors).stdout).map((r) => r.outcome),
      ['updated'],
    );

    assert.equal(run('seed', '--demo').status, 0);
    const moves = join(dir, 'moves.csv');
    writeFileSync(moves, ['investorUserId,targetStepId,source', 'cli-1,demo.interest,event', 'cli-2,demo.interest,nowhere'].join('\n'));
    const moved = run('import', 'moves', moves, '--deal', 'demo');
    assert.deepEqual(
      report(moved.stdout).map((r) => r.outcome),
      ['created', 'refused'],
    );
    assert.deepEqual(
      report(run('import', 'moves', moves, '--deal', 'demo').stdout).map((r) => r.outcome),
      ['unchanged', 'refused'],
    );
    assert.equal(run('import', 'moves', moves).status, 1, 'moves need --deal');
  });

  test('a CRM export of another shape through --columns: ids from the e-mail, the same ids again', () => {
    const file = join(dir, 'export.csv');
    writeFileSync(file, ['name,email,amount', 'Hedy Lamarr,hedy@example.com,1000.00', 'Alan Turing,alan@example.com,2000.00'].join('\n'));
    const columns = JSON.stringify({ name: 'fullName', email: 'contact.email', amount: null });
    const first = run('import', 'investors', file, '--columns', columns);
    assert.equal(first.status, 0, first.stderr);
    const rows = report(first.stdout);
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['created', 'created'],
    );
    assert.match(rows[0]!.id, /^inv-[0-9a-f]{20}$/);
    const again = report(run('import', 'investors', file, '--columns', columns).stdout);
    assert.deepEqual(
      again.map((r) => [r.id, r.outcome]),
      rows.map((r) => [r.id, 'unchanged']),
    );
    const unnamed = run('import', 'investors', file, '--columns', JSON.stringify({ name: 'fullName', email: 'contact.email' }));
    assert.equal(unnamed.status, 1);
    assert.match(unnamed.stderr, /amount/);
  });

  test('a European export (semicolons, 25.000,00, dd.mm.yyyy) placed in a step of the demo deal, duplicates added up', () => {
    // The demo deal was seeded by the first test.
    const file = join(dir, 'salesforce.csv');
    writeFileSync(
      file,
      [
        'Full Name;Email;Account Name;Amount;Amount Currency;Stage;Close Date',
        'Marie Curie;marie@example.eu;Curie SARL;25.000,00;EUR;Closed Won;01.03.2026',
        'Otto Hahn;otto@example.eu;Hahn KG;5.000,00;EURO;Closed Won;02.03.2026',
        'Marie Curie;MARIE@example.eu;Curie SARL;"10.000,50";EUR;Closed Won;09.03.2026',
      ].join('\n'),
    );
    const columns = JSON.stringify({
      'Full Name': 'fullName',
      Email: 'contact.email',
      'Account Name': null,
      Amount: 'data.committed_amount',
      'Amount Currency': 'data.currency',
      Stage: null,
      'Close Date': null,
    });
    const args = [
      'import',
      'investors',
      file,
      '--columns',
      columns,
      '--numbers',
      '1.234,56',
      '--dates',
      'dd.mm.yyyy',
      '--duplicates',
      'sum',
      '--deal',
      'demo',
      '--step',
      'demo.commitment',
    ];
    const dry = run(...args, '--dry-run');
    const first = run(...args);
    assert.equal(first.status, 2, first.stderr);
    const rows = report(first.stdout);
    assert.deepEqual(
      report(dry.stdout).map((r) => r.outcome),
      rows.map((r) => r.outcome),
      'the dry run says what the import does',
    );
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['created', 'refused', 'unchanged'],
    );
    assert.match(rows[0]!.detail, /^placed [0-9a-f-]{36}; e-mail on rows 1, 3$/);
    assert.match(rows[1]!.detail, /data\.currency: .*the row gives "EURO"/);
    // Placed with the sum, exactly: the same file again finds that very data in place.
    const again = report(run(...args).stdout);
    assert.deepEqual(
      again.map((r) => [r.outcome, r.detail.split(';')[0]]),
      [
        ['unchanged', 'already placed'],
        ['refused', rows[1]!.detail.split(';')[0]],
        ['unchanged', 'e-mail on rows 1, 3'],
      ],
    );
    const twice = run(...args.map((a) => (a === 'sum' ? 'first' : a)));
    assert.match(report(twice.stdout)[0]!.detail, /already stands at "demo.commitment"/, 'first: 25000.00 is not the 35000.50 in place');
    assert.equal(run(...args.map((a) => (a === 'sum' ? 'most' : a))).status, 1, '--duplicates outside its choices');
  });

  test('a line longer than 1 MiB stops the import with a problem naming its row, before it is handled', () => {
    const file = join(dir, 'long.ndjson');
    writeFileSync(file, `{"id":"long-1","remoteId":"${'x'.repeat(2 * 1024 * 1024)}"}\n`);
    const refused = run('import', 'investors', file);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /Data row 1 \(line 1\) is longer than 1048576 bytes/);
  });
});
