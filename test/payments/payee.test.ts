// The payee in a deal's payment settings: beneficiaryName, IBAN and BIC kept compact and upper
// case; a bad one is a 400 naming the field, and changes nothing.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { createToken } from '../../src/operations/tokens.ts';

describe('the payee of payment settings', () => {
  const t = startApp();
  const admin = t.admin;
  let dealId: string;
  let pay: string;
  before(async () => {
    const deal = await createDeal(admin, { workflow: 'paying' });
    dealId = deal.dealId;
    pay = deal.step('payment');
  });
  const url = () => `/deals/deal/${dealId}/payment-settings`;
  const base = () => ({ paymentStepId: pay, amountFieldKey: 'amount_received', dateFieldKey: 'received_on' });

  test('set, read back compact and upper case; a PUT without them clears them, once a second admin approves', async () => {
    const put = await admin.put(url(), { ...base(), beneficiaryName: ' Harbour Fund I ', iban: 'be71 0961 2345 6769', bic: 'gkccbebb' });
    assert.ok([200, 201].includes(put.status), put.text);
    assert.deepEqual([put.body.beneficiaryName, put.body.iban, put.body.bic], ['Harbour Fund I', 'BE71096123456769', 'GKCCBEBB']);
    const got = (await admin.get(url())).body;
    assert.deepEqual([got.beneficiaryName, got.iban, got.bic], ['Harbour Fund I', 'BE71096123456769', 'GKCCBEBB']);
    // Removing the IBAN is four-eyes (docs/reference/approvals.md): held until a second admin approves.
    const held = await admin.put(url(), base());
    assert.equal(held.status, 202, held.text);
    assert.equal((await admin.get(url())).body.iban, 'BE71096123456769', 'nothing changed yet');
    const second = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
    const cleared = (await second.post(`/approvals/${held.body.id}/approve`)).body.decision.result;
    assert.deepEqual([cleared.beneficiaryName, cleared.iban, cleared.bic], [null, null, null]);
  });

  test('a new deal reads null for each', async () => {
    const fresh = await createDeal(admin, { workflow: 'paying' });
    const got = (await admin.get(`/deals/deal/${fresh.dealId}/payment-settings`)).body;
    assert.deepEqual([got.beneficiaryName, got.iban, got.bic], [null, null, null]);
  });

  for (const [name, body, fields] of [
    ['an IBAN with wrong check digits', { iban: 'DE89370400440532013001' }, ['iban']],
    ['an IBAN too short for its country', { iban: 'DE8937040044053201300' }, ['iban']],
    ['a BIC of 9 characters', { bic: 'COBADEFFX' }, ['bic']],
    ['a BIC of an unknown country', { bic: 'COBAZZFF' }, ['bic']],
    ['a blank beneficiary name', { beneficiaryName: '   ' }, ['beneficiaryName']],
    ['a beneficiary name over two lines', { beneficiaryName: 'Harbour\nFund' }, ['beneficiaryName']],
    ['a beneficiary name over 70 characters', { beneficiaryName: 'x'.repeat(71) }, ['beneficiaryName']],
    ['all three at once', { beneficiaryName: ' ', iban: 'XX00', bic: 'X' }, ['beneficiaryName', 'iban', 'bic']],
  ] as const) {
    test(`${name}: 400 naming the field, nothing changed`, async () => {
      await admin.put(url(), { ...base(), beneficiaryName: 'Kept', iban: 'DE89370400440532013000', bic: 'COBADEFF' });
      const before = (await admin.get(url())).body;
      const refused = expectProblem(
        await admin.put(url(), { ...base(), beneficiaryName: 'Kept', iban: 'DE89370400440532013000', bic: 'COBADEFF', ...body }),
        400,
      );
      for (const field of fields)
        assert.ok(
          refused.errors?.some((e) => e.field === field || e.field === `/${field}`),
          `${field} named: ${JSON.stringify(refused.errors)}`,
        );
      assert.deepEqual((await admin.get(url())).body, before);
    });
  }

  test('investors may not set or read payment settings (403)', async () => {
    const own = client(t.app, await t.investorToken('anyone'));
    expectProblem(await own.get(url()), 403);
    expectProblem(await own.put(url(), { ...base(), iban: 'DE89370400440532013000' }), 403);
  });
});
