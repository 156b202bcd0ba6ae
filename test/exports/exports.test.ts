// The all-investor-workflows CSV byte for byte, an export of several pages against the JSON list
// it mirrors, and the reading of a sort order in ranges (store/exports.ts), also when rows arrive meanwhile.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { seedScale } from '../../src/operations/seed.ts';
import { EXPORT_PAGE, type RangeReader, ranges } from '../../src/store/exports.ts';
import { startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';

describe('all-investor-workflows export', () => {
  const t = startApp();
  const admin = t.admin;
  const getCsv = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.adminToken}`, accept: 'text/csv' } });

  test('the CSV byte for byte: quoting, neutralised formulas, the latest captured value of each field', async () => {
    const deal = await createDeal(admin);
    const zoe = await deal.addInvestor({ forename: 'Zoë', surname: 'Quote "Q", Comma', email: 'zoe@example.com' });
    const ada = await deal.addInvestor({ forename: 'Ada', surname: 'Byron', email: null });
    const cleo = await deal.addInvestor({ forename: 'Cleo', surname: 'Space', email: 'cleo@example.com' });
    await deal.move(zoe, 'interest', { note: 'first' });
    await deal.move(zoe, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    await deal.move(zoe, 'interest', { note: '=1+1' });
    await deal.move(ada, 'interest', { note: 'said yes\ntwice' });
    await deal.move(cleo, 'interest', { note: ' padded ' });
    await deal.move(cleo, 'commitment', { committed_amount: '250.50', currency: 'EUR' });
    await deal.move(cleo, 'withdrawn', { reason: '-5' });

    const journeys = await t.database.db
      .selectFrom('journeys')
      .select(['investor_user_id', 'moved_at', 'payment_reference'])
      .where('deal_id', '=', deal.dealId)
      .execute();
    const of = (id: string) => {
      const j = journeys.find((r) => r.investor_user_id === id)!;
      return `${new Date(j.moved_at).toISOString()},${j.payment_reference}`;
    };
    const expected =
      'investorUserId,fullName,email,currentStepId,movedAt,paymentReference,note,committed_amount,currency,kyc_ref,signed,paid_on,reason\r\n' +
      `${ada},Ada Byron,,${deal.step('interest')},${of(ada)},"said yes\ntwice",,,,,,\r\n` +
      `${cleo},Cleo Space,cleo@example.com,${deal.step('withdrawn')},${of(cleo)}," padded ",250.50,EUR,,,,-5\r\n` +
      `${zoe},"Zoë Quote ""Q"", Comma",zoe@example.com,${deal.step('interest')},${of(zoe)},'=1+1,100.00,EUR,,,,\r\n`;
    const response = await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, expected);

    const empty = await createDeal(admin);
    const none = await getCsv(`/deals/deal/${empty.dealId}/all-investor-workflows`);
    assert.equal(
      none.body,
      'investorUserId,fullName,email,currentStepId,movedAt,paymentReference,note,committed_amount,currency,kyc_ref,signed,paid_on,reason\r\n',
    );
  });

  test("amounts in one form: the currency's minor units, whatever form they were captured in", async () => {
    const deal = await createDeal(admin);
    const [a, b, c] = [await deal.addInvestor(), await deal.addInvestor(), await deal.addInvestor()];
    await deal.move(a, 'commitment', { committed_amount: '80000', currency: 'EUR' });
    await deal.move(b, 'commitment', { committed_amount: '60000.00', currency: 'EUR' });
    await deal.move(c, 'commitment', { committed_amount: '1500', currency: 'JPY' });
    const response = await getCsv(`/deals/deal/${deal.dealId}/all-investor-workflows`);
    const rows = parse(response.body, { columns: true }) as Record<string, string>[];
    const amountOf = (id: string) => rows.find((r) => r.investorUserId === id)!.committed_amount;
    assert.deepEqual([amountOf(a), amountOf(b), amountOf(c)], ['80000.00', '60000.00', '1500']);
    assert.ok(
      rows.every((r) => /^RF\d+$/.test(r.paymentReference!)),
      'the payment reference column',
    );
  });

  test('an export of several pages has every journey once, in the order of the JSON list, with the fields its events captured', async () => {
    // Seeded names repeat, so pages end between investors of the same name (ordered by id).
    const investors = 2 * EXPORT_PAGE + 345;
    const [dealId] = (await seedScale({ db: t.database.db, clock: systemClock, newId: newUuid }, { investors, deals: 1 })).dealIds;
    const response = await getCsv(`/deals/deal/${dealId}/all-investor-workflows`);
    assert.equal(response.statusCode, 200);
    const rows = parse(response.body, { columns: true }) as Record<string, string>[];

    const listed: { investor: { id: string }; journey: { toStepId: string; data: Record<string, string> }[] }[] = [];
    for (let page = 1; listed.length < investors; page++) {
      const { body } = await admin.get(`/deals/deal/${dealId}/all-investor-workflows?limit=100&page=${page}`);
      assert.ok(body.output.length > 0, `page ${page} of the JSON list is empty after ${listed.length} investors`);
      listed.push(...body.output);
    }
    assert.equal(rows.length, investors);
    assert.deepEqual(
      rows.map((r) => r.investorUserId),
      listed.map((l) => l.investor.id),
    );
    rows.forEach((row, i) => {
      const { journey } = listed[i]!;
      assert.equal(row.currentStepId, journey.at(-1)!.toStepId);
      const captured: Record<string, string> = Object.assign({}, ...journey.map((e) => e.data));
      for (const [key, value] of Object.entries(captured)) assert.equal(row[key], value, `${row.investorUserId}: ${key}`);
    });
  });
});

describe('reading a sort order in ranges', () => {
  // A sorted "table" of numbers read three at a time; `arriving` rows are added once the bounds are found.
  function table(initial: number[], arriving: number[] = []) {
    const rows = [...initial].sort((a, b) => a - b);
    const reads: [number | undefined, number | undefined][] = [];
    const reader: RangeReader<number, number> = {
      async bounds() {
        const found = rows.filter((_, i) => i % 3 === 2);
        rows.push(...arriving);
        rows.sort((a, b) => a - b);
        return found;
      },
      async read(after, upTo) {
        reads.push([after, upTo]);
        return rows.filter((r) => (after === undefined || r > after) && (upTo === undefined || r <= upTo)).slice(0, 3);
      },
      key: (row) => row,
      same: (a, b) => a === b,
    };
    return { rows, reads, reader };
  }
  const all = async (pages: AsyncIterable<number[]>) => {
    const out: number[][] = [];
    for await (const page of pages) out.push(page);
    return out;
  };

  test('every row once, in order, in pages of the page size', async () => {
    const { reader } = table([8, 1, 5, 3, 2, 13, 21, 34]);
    assert.deepEqual(await all(ranges(reader, 3)), [
      [1, 2, 3],
      [5, 8, 13],
      [21, 34],
    ]);
    const exact = table([1, 2, 3, 4, 5, 6]);
    assert.deepEqual(await all(ranges(exact.reader, 3)), [
      [1, 2, 3],
      [4, 5, 6],
    ]);
    assert.deepEqual(await all(ranges(table([]).reader, 3)), []);
  });

  test('rows that arrive in a range after the bounds were found are read with it, up to its bound', async () => {
    // The bounds are 3 and 13; then 6, 7 and 9 arrive inside the second range.
    const { reader, reads } = table([1, 2, 3, 5, 8, 13, 21], [6, 7, 9]);
    assert.deepEqual(await all(ranges(reader, 3)), [[1, 2, 3], [5, 6, 7, 8, 9, 13], [21]]);
    assert.ok(
      reads.some(([after, upTo]) => after === 7 && upTo === 13),
      'the range is read on from its last row',
    );
  });

  test('a failed read fails the export when its turn comes', async () => {
    const { reader } = table([1, 2, 3, 4, 5, 6, 7]);
    const failing = {
      ...reader,
      read: async (after: number | undefined, upTo: number | undefined) => (after === 3 ? Promise.reject(new Error('lost')) : reader.read(after, upTo)),
    };
    const pages: number[][] = [];
    await assert.rejects(async () => {
      for await (const page of ranges(failing, 3)) pages.push(page);
    }, /lost/);
    assert.deepEqual(pages, [[1, 2, 3]]);
  });
});
