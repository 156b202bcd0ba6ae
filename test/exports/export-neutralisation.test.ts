// CSV exports neutralise what a spreadsheet could take for a formula in every form it comes in:
// after leading white space or a line break, and in full-width form (＝ ＋ － ＠), as in ASCII.
// The active-investors export still reads back through the investor import to the same values.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';

describe('export neutralisation', () => {
  const t = startApp();
  const admin = t.admin;

  const csv = (url: string, method: 'GET' | 'POST' = 'GET') =>
    t.app
      .inject({ method, url, headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' } })
      .then((r) => parse(r.body, { columns: true }) as Record<string, string>[]);

  test('leading white space, line breaks and full-width formula characters are neutralised like their ASCII forms', async () => {
    const deal = await createDeal(admin);
    const notes: [string, string][] = [
      [' =1+1', "' =1+1"],
      ['\n=cmd|"/c calc"!A1', '\'\n=cmd|"/c calc"!A1'],
      ['＝HYPERLINK("http://x")', `'＝HYPERLINK("http://x")`],
      ['＋1 call me', "'＋1 call me"],
      ['－2+3', "'－2+3"],
      ['＠SUM(A1)', "'＠SUM(A1)"],
      ['\u3000@SUM(A1)', "'\u3000@SUM(A1)"],
      ['-5', '-5'],
      [' plain', ' plain'],
    ];
    const ids: string[] = [];
    for (const [note] of notes) {
      const id = await deal.addInvestor();
      ids.push(id);
      await deal.move(id, 'interest', { note });
    }
    const rows = await csv(`/deals/deal/${deal.dealId}/all-investor-workflows`);
    for (const [i, [note, expected]] of notes.entries()) {
      assert.equal(rows.find((r) => r.investorUserId === ids[i])!.note, expected, JSON.stringify(note));
    }
  });

  test('an investor named in full-width formula characters is exported neutralised and reads back unchanged', async () => {
    const id = uniqueId('fw');
    const body = investorBody({ forename: '＝HYPERLINK("http://x")', surname: ' @SUM(A1)', email: null });
    assert.equal((await admin.put(`/investors/${id}`, body)).status, 201);
    const deal = await createDeal(admin);
    await deal.move(id, 'interest', { note: 'x' });
    const rows = await csv(`/deals/deal/all-transactions`, 'POST');
    const row = rows.find((r) => r.id === id)!;
    assert.equal(row['contact.forename'], `'＝HYPERLINK("http://x")`);
    assert.equal(row['contact.surname'], "' @SUM(A1)");
    // Read back through the import: the apostrophes go, the values are the ones stored.
    const header = Object.keys(row).filter((k) => !k.startsWith('deals'));
    const line = header.map((k) => `"${(row[k] ?? '').replace(/"/g, '""')}"`).join(',');
    const imported = await t.app.inject({
      method: 'POST',
      url: '/investors/import',
      payload: `${header.join(',')}\n${line}\n`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.deepEqual(
      JSON.parse(imported.body).rows.map((r: any) => r.outcome),
      ['unchanged'],
    );
  });
});
