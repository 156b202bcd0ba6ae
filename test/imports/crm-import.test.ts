// A CRM export read through a column map: no ids (derived from the e-mail or the CRM id, so a
// re-import updates), a full name split, rows of one e-mail merged, every column of the file named
// by the map; then the same people placed in a step with their own amounts by the move import. A
// file over 1 MiB goes as the console sends it: checked in pieces that answer every row's id, imported
// as a job, and placed by a move file sent as a job.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('investor import through a column map', () => {
  const t = startApp();
  const admin = t.admin;
  const send = (url: string, body: string, type = 'text/csv') =>
    t.app
      .inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type }, payload: body })
      .then((r) => ({ status: r.statusCode, headers: r.headers, body: r.body ? JSON.parse(r.body) : undefined, text: r.body }));
  const withMap = (map: Record<string, string | null>, extra = '') => `/investors/import?columns=${encodeURIComponent(JSON.stringify(map))}${extra}`;
  const sendAsync = (url: string, body: string) =>
    t.app
      .inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv', prefer: 'respond-async' }, payload: body })
      .then((r) => ({ status: r.statusCode, headers: r.headers, body: JSON.parse(r.body), text: r.body }));
  /** A job followed to its end, as the console does. */
  const follow = async (location: string) => {
    for (const deadline = Date.now() + 300_000; ; await sleep(200)) {
      const job = await client(t.app, t.adminToken).get(location);
      assert.equal(job.status, 200, JSON.stringify(job.body));
      if (job.body.status !== 'running') return job.body;
      assert.ok(Date.now() < deadline, 'the job ended within 5 minutes');
    }
  };

  test('a name,email,amount export with no ids is imported whole, a re-import updates, and the amounts place them in a step', async () => {
    const tag = uniqueId('crm');
    const file = [
      'name,email,amount',
      `Grace Brewster Hopper,grace.${tag}@example.com,25000.00`,
      `Ada Lovelace,ada.${tag}@example.com,50000.00`,
      `Linus,linus.${tag}@example.com,10000.00`,
      `Ada King,ADA.${tag}@example.com,55000.00`,
    ].join('\r\n');
    const map = { name: 'fullName', email: 'contact.email', amount: null };

    const dry = await send(withMap(map, '&dryRun=true'), file);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.dryRun, true);
    // Rows 2 and 4 share an e-mail: flagged, and by default the last of them counts.
    assert.deepEqual(
      dry.body.rows.map((r: any) => r.outcome),
      ['created', 'unchanged', 'created', 'created'],
    );
    assert.deepEqual(
      dry.body.rows.map((r: any) => r.duplicateRows),
      [undefined, [2, 4], undefined, [2, 4]],
    );
    assert.equal(dry.body.summary.duplicates, 2);

    const first = await send(withMap(map), file);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.rows.map((r: any) => r.outcome),
      ['created', 'unchanged', 'created', 'created'],
    );
    const ids = first.body.rows.map((r: any) => r.id as string);
    assert.equal(ids[3], ids[1], 'the same e-mail is the same investor');
    assert.match(ids[0], /^inv-[0-9a-f]{20}$/);

    const grace = (await admin.get(`/investors/${ids[0]}`)).body;
    assert.deepEqual(
      [grace.contact.contact.forename, grace.contact.contact.surname, grace.contact.fullName],
      ['Grace Brewster', 'Hopper', 'Grace Brewster Hopper'],
    );
    assert.equal(grace.contact.contact.email, `grace.${tag}@example.com`);
    assert.equal(grace.contact.status, 'active');
    const linus = (await admin.get(`/investors/${ids[2]}`)).body;
    assert.deepEqual([linus.contact.contact.forename, linus.contact.contact.surname], ['', 'Linus']);
    assert.equal((await admin.get(`/investors/${ids[1]}`)).body.contact.fullName, 'Ada King', 'the later row wins');

    const again = await send(withMap(map), file.replace('Grace Brewster Hopper', 'Grace Hopper'));
    assert.deepEqual(
      again.body.rows.map((r: any) => r.id),
      ids,
      'a re-import of the file finds the same investors',
    );
    assert.deepEqual(
      again.body.rows.map((r: any) => r.outcome),
      ['updated', 'unchanged', 'unchanged', 'unchanged'],
    );

    // Placement: the rows' amounts as a move file (what the console sends after the import).
    const deal = await createDeal(admin);
    const amounts = ['25000.00', '50000.00', '10000.00'];
    const moves = [
      'investorUserId,targetStepId,committed_amount,currency',
      ...ids.slice(0, 3).map((id: string, i: number) => `${id},${deal.step('commitment')},${amounts[i]},EUR`),
    ].join('\n');
    const placed = await send(`/deals/deal/${deal.dealId}/jump-to-step/import`, moves);
    assert.equal(placed.status, 200, placed.text);
    assert.deepEqual(placed.body.summary, { rows: 3, created: 3, updated: 0, unchanged: 0, refused: 0 });
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${ids[1]}`)).body.journey;
    assert.deepEqual(
      journey.map((e: any) => e.data),
      [{ committed_amount: '50000.00', currency: 'EUR' }],
    );
  });

  test('ids from a CRM id column; rows without a way to an id or with a bad e-mail are refused by field', async () => {
    const crm = uniqueId('c');
    const file = [
      'Contact ID,First,Last,E-mail',
      `${crm},Grace,Hopper,grace.${crm}@example.com`,
      `${crm}/2,Alan,Turing,`,
      ',Nobody,Known,',
      `,Bad,Mail,not-an-email`,
    ].join('\n');
    const map = { 'Contact ID': 'remoteId', First: 'contact.forename', Last: 'contact.surname', 'E-mail': 'contact.email' };
    const response = await send(withMap(map), file);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.rows.map((r: any) => r.outcome),
      ['created', 'created', 'refused', 'refused'],
    );
    assert.equal(response.body.rows[0].id, `crm-${crm}`);
    assert.match(response.body.rows[1].id, /^crm-[0-9a-f]{20}$/);
    assert.deepEqual(
      response.body.rows[2].errors.map((e: any) => e.field),
      ['id'],
    );
    assert.ok(response.body.rows[3].errors.some((e: any) => e.field === 'contact.email'));
    const stored = (await admin.get(`/investors/crm-${crm}`)).body;
    assert.equal(stored.remoteId, crm);
    assert.equal(stored.contact.fullName, 'Grace Hopper');
  });

  test('an investor already in the directory keeps what the mapped columns do not give', async () => {
    const { id, body } = await createInvestor(admin, { classes: ['sophisticated'], kycCheckLevel: 3 });
    const map = { Ref: 'id', Name: 'fullName', Mail: 'contact.email', Notes: null };
    const response = await send(withMap(map), `Ref,Name,Mail,Notes\n${id},Grace Murray,grace.${id}@example.com,call back`);
    assert.deepEqual(
      response.body.rows.map((r: any) => r.outcome),
      ['updated'],
    );
    const stored = (await admin.get(`/investors/${id}`)).body;
    assert.deepEqual(
      [stored.contact.contact.forename, stored.contact.contact.surname, stored.contact.contact.email],
      ['Grace', 'Murray', `grace.${id}@example.com`],
    );
    assert.equal(stored.kycCheckLevel, 3);
    assert.equal(stored.remoteId, body.remoteId);
    assert.equal(stored.contact.classifications[0].investorClass, 'sophisticated');
    const again = await send(withMap(map), `Ref,Name,Mail,Notes\n${id},Grace Murray,grace.${id}@example.com,`);
    assert.deepEqual(
      again.body.rows.map((r: any) => r.outcome),
      ['unchanged'],
    );
  });

  test('a column the map does not name, a map to an unknown column, a map with NDJSON: 400 naming them', async () => {
    const unnamed = expectProblem(await send(withMap({ name: 'fullName', email: 'contact.email' }), 'name,email,amount\nA B,a@example.com,1'), 400);
    assert.deepEqual(
      unnamed.errors!.map((e: any) => e.field),
      ['amount'],
    );
    const unknown = expectProblem(await send(withMap({ name: 'fullName', email: 'mail' }), 'name,email\nA B,a@example.com'), 400);
    assert.deepEqual(
      unknown.errors!.map((e: any) => e.field),
      ['columns.email'],
    );
    const twice = expectProblem(await send(withMap({ a: 'fullName', b: 'fullName' }), 'a,b\nx,y'), 400);
    assert.deepEqual(
      twice.errors!.map((e: any) => e.field),
      ['columns.b'],
    );
    const noKey = expectProblem(await send(withMap({ name: 'fullName' }), 'name\nA B'), 400);
    assert.deepEqual(
      noKey.errors!.map((e: any) => e.field),
      ['id'],
    );
    expectProblem(await send('/investors/import?columns=%7Bnot-json', 'name\nA'), 400);
    expectProblem(await send(withMap({ name: 'fullName' }), '{}', 'application/x-ndjson'), 400);
  });

  test("a file over 1 MiB: checked in pieces with every row's id, imported as a job, its kept investors placed by a move file sent as a job", async () => {
    const tag = uniqueId('big');
    const amount = (i: number) => `${(i % 50) * 1000 + 5000}.00`;
    const email = (i: number) => `investor.number.${i}.of.the.closing.day.${tag}@example-capital-partners.com`;
    const rows = Array.from({ length: 9000 }, (_, i) => `Investor ${i} Of The Closing Day List With A Long Name,${email(i)},${amount(i)}`);
    rows[4] = `Not Placed,not-an-e-mail-${tag},1000.00`; // refused by the import
    rows[8990] = `Investor Two Again,${email(2).toUpperCase()},77000.00`; // row 2's investor, in the second piece
    const header = 'name,email,amount';
    const file = [header, ...rows].join('\n');
    assert.ok(file.length > 1024 * 1024);
    const map = { name: 'fullName', email: 'contact.email', amount: null };

    // The check, as the console makes it for a file this size: pieces of at most 1 MiB, answered at once.
    const ids: (string | null)[] = [];
    const checked: string[] = [];
    for (let start = 0; start < rows.length; ) {
      let end = start;
      let size = header.length + 1;
      while (end < rows.length && size + rows[end]!.length + 1 <= 1024 * 1024) size += rows[end++]!.length + 1;
      const piece = await send(withMap(map, '&dryRun=true'), [header, ...rows.slice(start, end)].join('\n'));
      assert.equal(piece.status, 200, piece.text.slice(0, 500));
      for (const r of piece.body.rows) {
        ids[start + r.row - 1] = r.id;
        checked[start + r.row - 1] = r.outcome;
      }
      start = end;
    }
    assert.equal(ids.length, 9000);
    assert.equal(checked[4], 'refused');
    assert.equal(ids[8990], ids[2], 'the same e-mail in another piece is derived to the same id');

    // The import, as a job: its report names only the refused row.
    const accepted = await sendAsync(withMap(map), file);
    assert.equal(accepted.status, 202, accepted.text);
    const job = await follow(String(accepted.headers.location));
    assert.equal(job.status, 'succeeded', JSON.stringify(job).slice(0, 500));
    assert.deepEqual(job.report.summary, { rows: 9000, created: 8998, updated: 0, unchanged: 1, refused: 1, duplicates: 2 });
    assert.deepEqual(
      job.report.rows.map((r: any) => r.row),
      [5],
    );
    assert.equal(
      (await admin.get(`/investors/${ids[100]}`)).body.contact.fullName,
      'Investor 100 Of The Closing Day List With A Long Name',
      "the check's id is the investor the import made",
    );

    // The placement: one move per investor kept, the values of their last row, sent as a job.
    const deal = await createDeal(admin);
    const last = new Map<string, number>();
    ids.forEach((id, i) => {
      if (i !== 4) last.set(id!, i);
    });
    const moves = [
      'investorUserId,targetStepId,committed_amount,currency',
      ...[...last].map(([id, i]) => `${id},${deal.step('commitment')},${rows[i]!.split(',')[2]},EUR`),
    ].join('\n');
    const placing = await sendAsync(`/deals/deal/${deal.dealId}/jump-to-step/import`, moves);
    assert.equal(placing.status, 202, placing.text);
    const placed = await follow(String(placing.headers.location));
    assert.equal(placed.status, 'succeeded', JSON.stringify(placed).slice(0, 500));
    assert.deepEqual(placed.report.summary, { rows: 8998, created: 8998, updated: 0, unchanged: 0, refused: 0 });

    const page = (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?limit=100`)).body;
    assert.equal(page.totalPages, 90, '8,998 investors in the deal');
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${ids[2]}`)).body.journey;
    assert.deepEqual(
      journey.map((e: any) => e.data),
      [{ committed_amount: '77000.00', currency: 'EUR' }],
      'the later row of the e-mail',
    );
    const sample = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${ids[1234]}`)).body.journey;
    assert.deepEqual(
      sample.map((e: any) => e.data),
      [{ committed_amount: amount(1234), currency: 'EUR' }],
    );
  });
});
