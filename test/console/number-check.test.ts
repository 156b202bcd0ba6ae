// The console and the portal check a number field's value before sending it
// (web/src/lib/decimal-number.ts); the service decides. Both must give the same answer, or a form
// would refuse what the service takes or send what it refuses: each value, asked both ways, through a
// dry-run move (which writes nothing).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isDecimalNumber } from '../../web/src/lib/decimal-number.ts';
import { startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe("the forms' number check", () => {
  const t = startApp();
  const admin = t.admin;

  async function service() {
    const dealId = uniqueId('deal');
    assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: `Numbers ${dealId}`, currency: 'EUR' })).status, 201);
    const set = await admin.put(`/deals/deal/${dealId}/workflow`, {
      label: 'Count',
      description: 'one number',
      investorEngagementEnabled: false,
      steps: [{ id: `${dealId}.count`, label: 'Count', type: 'default', stepFields: [{ fieldKey: 'shares', required: false, kind: 'number' }] }],
      links: [],
    });
    assert.equal(set.status, 201, JSON.stringify(set.body));
    const { id } = await createInvestor(admin);
    return async (value: string) => {
      const answer = await admin.post(`/deals/deal/${dealId}/jump-to-step?dryRun=true`, { investorUserId: id, targetStepId: `${dealId}.count`, data: { shares: value } });
      assert.ok(answer.status === 200 || answer.status === 400, JSON.stringify(answer.body));
      return answer.status === 200;
    };
  }

  test('agrees with the service on every edge of the rule', async () => {
    const accepts = await service();
    const thirty = '123456789012345678901234567890';
    const values = [
      '0', '12', '-3.5', '0.25', '1.50', '0.0', thirty, `-${thirty}`, `${thirty.slice(0, 29)}.5`,
      '', ' 12', '12 ', '1e3', '1,000', '1 000', '+1', '--1', '-', '.5', '5.', '1.2.3', '01', '00', '-0', '-0.00',
      '0x10', 'NaN', 'Infinity', '١٢', '１２', `${thirty}1`, `0.${'0'.repeat(29)}1`,
    ];
    for (const value of values) assert.equal(isDecimalNumber(value), await accepts(value), JSON.stringify(value));
  });

  test('property: agrees with the service on strings of digits, signs, points and separators', async () => {
    const accepts = await service();
    const char = fc.constantFrom('0', '1', '5', '9', '-', '.', 'e', ',', ' ', '+');
    const scrambled = fc.array(char, { minLength: 1, maxLength: 34 }).map((chars) => chars.join(''));
    // Near the rule: signed decimals around the 30-digit bound, some with a leading zero.
    const decimals = fc.stringMatching(/^-?0?[0-9]{1,31}(\.[0-9]{1,4})?$/);
    await fc.assert(
      fc.asyncProperty(fc.oneof(scrambled, decimals), async (value) => {
        assert.equal(isDecimalNumber(value), await accepts(value), JSON.stringify(value));
      }),
      { numRuns: 150 },
    );
  });
});
