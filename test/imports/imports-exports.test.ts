// Streamed imports (investors, moves) with per-row reports, dry runs and re-imports that change
// nothing; CSV exports that read back through the investor import; formula cells neutralised.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { investorBody, subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import { feedCaughtUp } from '../support/webhooks.ts';
import { rowCounts } from '../support/row-counts.ts';

const HEADER =
  'id,remoteId,dataSource,teamUserId,kycCheckLevel,guid,externalId,userType,status,contact.title,contact.forename,contact.middleNames,contact.surname,contact.nickname,contact.dateOfBirth,contact.email,username,profilePhotoFileKey,name,fullName,tfaEnabled,compliance,classifications';

const csvLine = (id: string, over: { forename?: string; kyc?: string; email?: string } = {}) => {
  const forename = over.forename ?? 'Grace';
  const email = over.email ?? `${id}@example.com`;
  const classes = '"[{""investorClassId"":""c-1"",""organisation"":null,""investorClass"":""sophisticated"",""name"":""Sophisticated""}]"';
  return `${id},crm-${id},crm,,${over.kyc ?? '2'},guid-${id},,1,active,Dr,${forename},,Hopper,,1906-12-09,${email},${id},,${forename} Hopper,${forename} Hopper,true,approved,${classes}`;
};

describe('imports and exports', () => {
  const t = startApp();
  const admin = t.admin;
  const send = (url: string, body: string, type = 'text/csv') =>
    t.app
      .inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type }, payload: body })
      .then((r) => ({ status: r.statusCode, headers: r.headers, body: r.body ? JSON.parse(r.body) : undefined, text: r.body }));
  const getCsv = (url: string, method: 'GET' | 'POST' = 'GET') =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' } });

  test('investor import: malformed rows are refused with their fields, good rows applied; a re-import changes nothing', async () => {
    const [a, b, c] = [uniqueId('imp'), uniqueId('imp'), uniqueId('imp')];
    const file = [HEADER, csvLine(a), csvLine(b, { kyc: 'high' }), csvLine(c, { email: 'not-an-email' }), 'short,row', csvLine(c)].join('\r\n');
    const first = await send('/investors/import', file);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.rows.map((r: any) => [r.row, r.outcome]),
      [
        [1, 'created'],
        [2, 'refused'],
        [3, 'refused'],
        [4, 'refused'],
        [5, 'created'],
      ],
    );
    assert.deepEqual(
      first.body.rows[1].errors.map((e: any) => e.field),
      ['kycCheckLevel'],
    );
    assert.deepEqual(
      first.body.rows[2].errors.map((e: any) => e.field),
      ['contact.email'],
    );
    assert.deepEqual(first.body.summary, { rows: 5, created: 2, updated: 0, unchanged: 0, refused: 3 });
    const stored = (await admin.get(`/investors/${a}`)).body;
    assert.equal(stored.contact.contact.forename, 'Grace');
    assert.equal(stored.contact.classifications[0].investorClass, 'sophisticated');
    assert.equal(stored.teamUserId, null);

    const before = await rowCounts(t);
    const again = await send('/investors/import', [HEADER, csvLine(a), csvLine(c)].join('\n'));
    assert.deepEqual(
      again.body.rows.map((r: any) => r.outcome),
      ['unchanged', 'unchanged'],
    );
    assert.deepEqual(await rowCounts(t), before);

    const dry = await send('/investors/import?dryRun=true', [HEADER, csvLine(a, { forename: 'Ada' }), csvLine(b)].join('\n'));
    assert.deepEqual(
      dry.body.rows.map((r: any) => r.outcome),
      ['updated', 'created'],
    );
    assert.equal(dry.body.dryRun, true);
    assert.deepEqual(await rowCounts(t), before);
    const updated = await send('/investors/import', [HEADER, csvLine(a, { forename: 'Ada' })].join('\n'));
    assert.deepEqual(
      updated.body.rows.map((r: any) => r.outcome),
      ['updated'],
    );
    assert.equal((await admin.get(`/investors/${a}`)).body.contact.fullName, 'Ada Hopper');
  });

  test('investor import from NDJSON, and the problems of a file that does not fit', async () => {
    const id = uniqueId('nd');
    const lines = [JSON.stringify({ id, ...investorBody() }), '{"id": "broken"', JSON.stringify({ id: uniqueId('nd'), ...investorBody(), extra: 1 })].join(
      '\n',
    );
    const response = await send('/investors/import', lines, 'application/x-ndjson');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.rows.map((r: any) => r.outcome),
      ['created', 'refused', 'refused'],
    );
    assert.deepEqual(
      response.body.rows[2].errors.map((e: any) => e.field),
      ['extra'],
    );
    expectProblem(await send('/investors/import', 'id,shoeSize\nx,42'), 400);
    expectProblem(await send('/investors/import', JSON.stringify({ id }), 'application/json'), 415);
    expectProblem(await send('/investors/import', 'id', 'text/plain'), 415);
    const own = await t.app.inject({
      method: 'POST',
      url: '/investors/import',
      headers: { authorization: `Bearer ${await t.investorToken(id)}`, 'content-type': 'text/csv' },
      payload: `${HEADER}\n${csvLine(id)}`,
    });
    assert.equal(own.statusCode, 403);
  });

  test('a 10,000-row investor file imports, and imports again as unchanged', async () => {
    const prefix = uniqueId('bulk');
    const lines = [HEADER];
    for (let i = 0; i < 10_000; i++) lines.push(csvLine(`${prefix}-${i}`));
    const first = await send('/investors/import', lines.join('\n'));
    assert.deepEqual(first.body.summary, { rows: 10_000, created: 10_000, updated: 0, unchanged: 0, refused: 0 });
    assert.equal(first.body.rows[9_999].row, 10_000);
    const second = await send('/investors/import', lines.join('\n'));
    assert.deepEqual(second.body.summary, { rows: 10_000, created: 0, updated: 0, unchanged: 10_000, refused: 0 });
  });

  test('move import: the bulk rules per row; a re-run reports the moves made as unchanged', async () => {
    const deal = await createDeal(admin);
    const [a, b] = [await deal.addInvestor(), await deal.addInvestor()];
    const file = [
      'investorUserId,targetStepId,committed_amount,currency,note',
      `${a},${deal.step('commitment')},25000.00,EUR,`,
      `${b},${deal.step('commitment')},,EUR,from the CRM`,
      `inv-nobody,${deal.step('interest')},,,`,
      `,${deal.step('interest')},,,`,
    ].join('\n');
    const url = `/deals/deal/${deal.dealId}/jump-to-step/import`;
    const dry = await send(`${url}?dryRun=true`, file);
    const counts = await rowCounts(t);
    const first = await send(url, file);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.rows.map((r: any) => [r.outcome, r.problem?.status]),
      [
        ['created', undefined],
        ['refused', 422],
        ['refused', 404],
        ['refused', undefined],
      ],
    );
    assert.deepEqual(
      dry.body.rows.map((r: any) => r.outcome),
      first.body.rows.map((r: any) => r.outcome),
    );
    assert.notDeepEqual(await rowCounts(t), counts);
    const journey = (await admin.get(`/deals/deal/${deal.dealId}/investor-data/${a}`)).body.journey;
    assert.deepEqual(
      journey.map((e: any) => [e.toStepId, e.data]),
      [[deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' }]],
    );
    assert.equal(first.body.rows[0].eventId, journey[0].id);
    const again = await send(url, file);
    assert.deepEqual(
      again.body.rows.map((r: any) => r.outcome),
      ['unchanged', 'refused', 'refused', 'refused'],
    );
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/investor-data/${a}`)).body.journey.length, 1);
    expectProblem(await send(url, 'targetStepId\nx'), 400);
  });

  test('exports: CSV mirrors of the lists; all-transactions reads back through the investor import; formula cells neutralised', async () => {
    const deal = await createDeal(admin);
    const evil = uniqueId('evil');
    const body = investorBody({ forename: '=HYPERLINK("http://x")', surname: '@SUM(A1)', email: null });
    assert.equal((await admin.put(`/investors/${evil}`, body)).status, 201);
    const plain = await deal.addInvestor();
    await deal.move(evil, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    await deal.move(evil, 'interest', { note: '+1 call me' });
    await deal.move(plain, 'interest', { note: '-5' });

    const journeys = await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows`);
    assert.equal(journeys.statusCode, 200);
    assert.match(String(journeys.headers['content-type']), /^text\/csv/);
    const rows = parse(journeys.body, { columns: true }) as Record<string, string>[];
    const evilRow = rows.find((r) => r.investorUserId === evil)!;
    assert.equal(evilRow.currentStepId, deal.step('interest'));
    assert.equal(evilRow.committed_amount, '100.00');
    assert.equal(evilRow.note, "'+1 call me");
    assert.equal(evilRow.fullName, `'=HYPERLINK("http://x") @SUM(A1)`);
    assert.equal(rows.find((r) => r.investorUserId === plain)!.note, '-5', 'a plain number is left as it is');
    assert.ok(evilRow.paymentReference!.startsWith('RF'));
    assert.ok(journeys.body.includes('\r\n'), 'RFC 4180 line ends');

    const refs = parse((await getCsv(`/deals/deal/${deal.dealId}/all-payment-refernces`)).body, { columns: true }) as Record<string, string>[];
    assert.equal(refs.length, 2);
    await feedCaughtUp(t.database.db);
    const feed = parse((await getCsv(`/deals/deal/${deal.dealId}/events`)).body, { columns: true }) as Record<string, string>[];
    // The CSV is the JSON feed, entry for entry, in the same order.
    const json = (await admin.get(`/deals/deal/${deal.dealId}/events?limit=100`)).body as { output: { id: string; sequence: number }[] };
    assert.deepEqual(
      feed.map((e) => [e.id, e.sequence]),
      json.output.map((e) => [e.id, String(e.sequence)]),
    );
    assert.equal(feed.length, 3);
    assert.equal(JSON.parse(feed[0]!.data!).investorUserId, evil);
    const unknown = await getCsv('/deals/deal/deal-nowhere/all-investor-workflows');
    expectProblem({ status: unknown.statusCode, headers: unknown.headers, body: JSON.parse(unknown.body) }, 404);

    const active = await getCsv('/deals/deal/all-transactions', 'POST');
    assert.equal(active.statusCode, 200);
    const exported = parse(active.body, { columns: true }) as Record<string, string>[];
    const mine = exported.filter((r) => r.id === evil || r.id === plain);
    assert.equal(mine.length, 2);
    assert.equal(mine.find((r) => r.id === evil)!['contact.forename'], `'=HYPERLINK("http://x")`);
    const before = [await admin.get(`/investors/${evil}`), await admin.get(`/investors/${plain}`)].map((r) => r.body);
    const reimport = await send('/investors/import', active.body);
    assert.equal(reimport.status, 200, reimport.text);
    assert.equal(reimport.body.summary.refused, 0);
    assert.equal(reimport.body.summary.created, 0);
    assert.equal(reimport.body.summary.updated, 0);
    assert.deepEqual(
      [await admin.get(`/investors/${evil}`), await admin.get(`/investors/${plain}`)].map((r) => r.body),
      before,
    );

    const asset = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${asset}`, { name: 'Fund', currency: 'EUR' })).status, 201);
    assert.equal((await admin.post('/portfolio/transactions/subscriptions', subscriptionBody(asset, plain, { description: '=cmd|calc' }))).status, 201);
    const subs = parse((await getCsv(`/portfolio/transactions/subscriptions?investor_id=${plain}`)).body, { columns: true }) as Record<string, string>[];
    assert.equal(subs.length, 1);
    assert.equal(subs[0]!.total, '1005');
    assert.equal(subs[0]!.description, "'=cmd|calc");
  });

  test('exports apply the filters of the JSON list they mirror: query, nameOrEmail, the subscription filters', async () => {
    const deal = await createDeal(admin);
    const tag = uniqueId('zq').replace(/[^a-z0-9]/gi, '');
    const [grace, ada, other] = [uniqueId('flt'), uniqueId('flt'), uniqueId('flt')];
    for (const [id, forename, email] of [
      [grace, `Grace${tag}`, `${grace}@example.com`],
      [ada, 'Ada', `ada.${tag}@example.com`],
      [other, 'Linus', `${other}@example.com`],
    ] as const) {
      await createInvestor(admin, { forename, email }, id);
      await deal.move(id, 'interest');
    }
    const csvOf = async (response: { statusCode: number; body: string }) => {
      assert.equal(response.statusCode, 200, response.body);
      return parse(response.body, { columns: true }) as Record<string, string>[];
    };
    // all-investor-workflows: `query` matches the full name or the e-mail, case-insensitively.
    const journeys = await csvOf(await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows?query=${tag.toUpperCase()}`));
    assert.deepEqual(journeys.map((r) => r.investorUserId).sort(), [ada, grace].sort());
    const json = (await admin.get(`/deals/deal/${deal.dealId}/all-investor-workflows?query=${tag.toUpperCase()}&limit=100`)).body;
    assert.deepEqual(
      journeys.map((r) => r.investorUserId),
      json.output.map((o: any) => o.investor.id),
      'same rows, same order as the JSON list',
    );
    assert.deepEqual(await csvOf(await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows?query=${tag}%25_nothing`)), []);
    assert.equal((await csvOf(await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows`))).length, 3);

    // all-transactions: nameOrEmail in the body, as the JSON list.
    const post = (body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/deals/deal/all-transactions',
        headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv', 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const active = await csvOf(await post({ nameOrEmail: ` ${tag} ` }));
    assert.deepEqual(active.map((r) => r.id).sort(), [ada, grace].sort());
    const activeJson = (await admin.post('/deals/deal/all-transactions?limit=100', { nameOrEmail: tag })).body;
    assert.deepEqual(
      active.map((r) => r.id),
      activeJson.output.map((o: any) => o.investor.id),
    );
    assert.deepEqual(
      active.map((r) => r.dealsInProgressCount),
      ['1', '1'],
    );
    assert.ok((await csvOf(await post({ nameOrEmail: null }))).some((r) => r.id === other));

    // subscriptions: every filter of the list.
    const [asset1, asset2] = [uniqueAssetId(), uniqueAssetId()];
    for (const asset of [asset1, asset2]) assert.equal((await admin.put(`/portfolio/assets/${asset}`, { name: 'Fund', currency: 'EUR' })).status, 201);
    for (const [asset, investor, source] of [
      [asset1, grace, 'crm'],
      [asset2, grace, 'crm'],
      [asset1, ada, 'manual'],
    ] as const) {
      assert.equal(
        (await admin.post('/portfolio/transactions/subscriptions', subscriptionBody(asset, investor, { source, source_id: `${source}-${investor}-${asset}` })))
          .status,
        201,
      );
    }
    const subs = async (query: string) =>
      (await csvOf(await getCsv(`/portfolio/transactions/subscriptions?${query}`))).map((r) => [r.investor_id, r.asset_id, r.source]);
    assert.deepEqual(await subs(`investor_id=${grace}`), [
      [grace, String(asset1), 'crm'],
      [grace, String(asset2), 'crm'],
    ]);
    assert.deepEqual(await subs(`asset_id=${asset1}`), [
      [grace, String(asset1), 'crm'],
      [ada, String(asset1), 'manual'],
    ]);
    assert.deepEqual(await subs(`asset_id=${asset1}&source=manual`), [[ada, String(asset1), 'manual']]);
    assert.deepEqual(await subs(`source_id=crm-${grace}-${asset2}`), [[grace, String(asset2), 'crm']]);
  });
});
