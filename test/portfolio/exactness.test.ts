// Money is exact end to end: what is sent is what PostgreSQL stores (numeric) and what comes back,
// or the request is refused with a 400. Never a rounding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { uniqueAssetId, uniqueId } from '../support/fixtures.ts';

const URL = '/portfolio/transactions/subscriptions';

describe('exact amounts', () => {
  const t = startApp();
  const admin = t.admin;

  async function given() {
    const assetId = uniqueAssetId();
    const investorId = uniqueId('inv');
    await admin.put(`/portfolio/assets/${assetId}`, { name: 'Fund', currency: 'EUR' });
    await createInvestor(admin, {}, investorId);
    return { assetId, investorId };
  }

  /** A body written as raw JSON text, so the numbers are exactly the literals we mean. */
  const rawBody = (assetId: number, investorId: string, units: string, price: string, total: string, fee = '0') =>
    `{"asset_id": ${assetId}, "investor_id": "${investorId}", "units": ${units}, "price_per_unit": ${price}, "total": ${total}, ` +
    `"fee": ${fee}, "funding_source": "bank_transfer", "invoice_date": "2026-05-01", "settlement_date": "2026-05-02"}`;

  async function storedText(id: string) {
    const { rows } = await sql<{ units: string; price_per_unit: string; total: string; fee: string }>`
      select units::text, price_per_unit::text, total::text, fee::text from subscriptions where id = ${id}`.execute(t.database.db);
    return rows[0];
  }

  // literal sent → [what PostgreSQL holds, what the JSON response prints]. Trailing zeros of a JSON
  // number are not significant: 1000.10 is the number 1000.1, stored and returned as such.
  const table: { name: string; units: string; price: string; total: string; fee?: string; stored: string[]; printed: string[] }[] = [
    { name: '0.1', units: '3', price: '0.1', total: '0.3', fee: '0.1', stored: ['3', '0.1', '0.3', '0.1'], printed: ['3', '0.1', '0.3', '0.1'] },
    {
      name: '1000.10',
      units: '1',
      price: '1000.10',
      total: '1000.10',
      fee: '1000.10',
      stored: ['1', '1000.1', '1000.1', '1000.1'],
      printed: ['1', '1000.1', '1000.1', '1000.1'],
    },
    {
      name: '123456789012.34',
      units: '1',
      price: '123456789012.34',
      total: '123456789012.34',
      stored: ['1', '123456789012.34', '123456789012.34', '0'],
      printed: ['1', '123456789012.34', '123456789012.34', '0'],
    },
    // Units and prices may be as fine as 8 decimals; total and fee carry at most the currency's minor units (EUR: 2).
    {
      name: '0.00000001',
      units: '0.00000001',
      price: '1000000',
      total: '0.01',
      fee: '0.01',
      stored: ['0.00000001', '1000000', '0.01', '0.01'],
      printed: ['1e-8', '1000000', '0.01', '0.01'],
    },
    {
      name: '999999999999999',
      units: '999999999999999',
      price: '1',
      total: '999999999999999',
      stored: ['999999999999999', '1', '999999999999999', '0'],
      printed: ['999999999999999', '1', '999999999999999', '0'],
    },
    { name: '1e2 (exponent form)', units: '1e2', price: '0.5', total: '5E1', stored: ['100', '0.5', '50', '0'], printed: ['100', '0.5', '50', '0'] },
  ];

  for (const row of table) {
    test(`${row.name} is stored and returned exactly`, async () => {
      const { assetId, investorId } = await given();
      const response = await admin.post(URL, rawBody(assetId, investorId, row.units, row.price, row.total, row.fee));
      assert.equal(response.status, 201, response.text);
      const stored = await storedText(response.body.id);
      assert.deepEqual([stored!.units, stored!.price_per_unit, stored!.total, stored!.fee], row.stored);
      for (const [field, printed] of [
        ['units', row.printed[0]],
        ['price_per_unit', row.printed[1]],
        ['total', row.printed[2]],
        ['fee', row.printed[3]],
      ]) {
        assert.ok(response.text.includes(`"${field}":${printed},`), `${field} should print as ${printed}: ${response.text}`);
        assert.equal(response.body[field!], Number(printed), field);
      }
      const read = await admin.get(`${URL}/${response.body.id}`);
      assert.equal(read.text, response.text);
      assert.doesNotMatch(read.text, /\d{16,}/); // no 1000.1000000000000227
    });
  }

  test('0.1 × 3 is 0.3 (in doubles it would be 0.30000000000000004)', async () => {
    const { assetId, investorId } = await given();
    const response = await admin.post(URL, rawBody(assetId, investorId, '3', '0.1', '0.3'));
    assert.equal(response.status, 201, response.text);
  });

  for (const [name, literal] of [
    ['9007199254740993 (2^53 + 1)', '9007199254740993'],
    ['1000.1000000000000227', '1000.1000000000000227'],
    ['0.1234567890123456', '0.1234567890123456'],
    ['1e400', '1e400'],
    ['1e-400', '1e-400'],
  ] as const) {
    test(`${name} is refused with a 400, not rounded`, async () => {
      const { assetId, investorId } = await given();
      for (const body of [
        rawBody(assetId, investorId, literal, '1', literal),
        rawBody(assetId, investorId, '1', literal, literal),
        rawBody(assetId, investorId, '1', '1', literal),
        rawBody(assetId, investorId, '1', '1', '1', literal),
      ]) {
        expectProblem(await admin.post(URL, body), 400);
      }
      const list = await admin.get(`${URL}?investor_id=${investorId}`);
      assert.deepEqual(list.body.output, []);
    });
  }

  test('an amount above 10^15 is a 400', async () => {
    const { assetId, investorId } = await given();
    expectProblem(await admin.post(URL, rawBody(assetId, investorId, '1e16', '1', '1e16')), 400);
    assert.deepEqual((await admin.get(`${URL}?investor_id=${investorId}`)).body.output, []);
  });
});
