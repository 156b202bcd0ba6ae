// The plain-words reason of a matched line still in the queue, refusal by refusal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adviseLine, adviseRefusal } from './payment-advice.ts';

const labels: Record<string, string> = { kyc_reference: 'KYC reference', agreement_signed_on: 'Agreement signed on', amount_received: 'Amount received' };
const labelOf = (key: string) => labels[key];

describe('adviseRefusal', () => {
  const cases: [string, unknown, string | undefined, string | undefined][] = [
    ['no refusal', null, undefined, undefined],
    [
      'earlier fields missing, as the jump rules say it',
      {
        kind: 'unprocessable',
        detail: 'The move to "p" is not allowed: requirements not met: previous-fields-complete',
        failedRequirements: [
          { kind: 'previous-fields-complete', detail: 'required fields of earlier steps are not captured: kyc_reference, agreement_signed_on' },
        ],
      },
      'The investor was not moved: KYC reference and Agreement signed on are not filled in.',
      'Fill KYC reference and Agreement signed on, then decide again.',
    ],
    [
      'a required field of the payment step, and a KYC level',
      {
        kind: 'unprocessable',
        detail: 'x',
        missingFields: ['amount_received'],
        failedRequirements: [{ kind: 'kyc-level', detail: "the investor's KYC check level is 1; at least 2 is required" }],
      },
      "The investor was not moved: Amount received is not filled in and the investor's KYC check level is 1; at least 2 is required.",
      "Fill Amount received and raise the investor's KYC level in the investor directory, then decide again.",
    ],
    [
      'a pending edit request',
      {
        kind: 'unprocessable',
        detail: 'x',
        failedRequirements: [{ kind: 'no-pending-edit-requests', detail: 'the investor has 1 pending edit request(s) in this deal' }],
      },
      'The investor was not moved: the investor has 1 pending edit request(s) in this deal.',
      "Answer the investor's pending edit request (Inbox), then decide again.",
    ],
    [
      'no payment step',
      { kind: 'unprocessable', detail: 'deal d names no payment step (PUT /deals/deal/{dealId}/payment-settings)' },
      'The investor was not moved: deal d names no payment step (PUT /deals/deal/{dealId}/payment-settings).',
      "Choose the payment step in the deal's payment settings, then decide again.",
    ],
    [
      'an unknown key keeps its name',
      { kind: 'unprocessable', detail: 'x', missingFields: ['iban_of_payer'] },
      'The investor was not moved: iban_of_payer is not filled in.',
      'Fill iban_of_payer, then decide again.',
    ],
  ];
  for (const [name, refusal, summary, action] of cases) {
    it(name, () => {
      const advice = adviseRefusal(refusal, labelOf);
      assert.equal(advice?.summary, summary);
      assert.equal(advice?.action, action);
    });
  }
  it('lists the fields with their labels', () => {
    const advice = adviseRefusal(
      { kind: 'unprocessable', detail: 'x', failedRequirements: [{ kind: 'previous-fields-complete', missingFields: ['kyc_reference'], detail: '' }] },
      labelOf,
    );
    assert.deepEqual(advice?.fields, [{ key: 'kyc_reference', label: 'KYC reference' }]);
  });
});

describe('adviseLine', () => {
  it("a split's refusals, each with the investor's name", () => {
    const advice = adviseLine(
      { dealId: null, refusal: [{ dealId: 'd', investorUserId: 'i1', refusal: { kind: 'unprocessable', detail: 'x', missingFields: ['kyc_reference'] } }] },
      (_deal, key) => labels[key],
      () => 'Ada Lovelace',
    );
    assert.equal(advice?.summary, 'Ada Lovelace: KYC reference is not filled in.');
    assert.equal(advice?.action, 'Ada Lovelace: Fill KYC reference, then decide again.');
  });
});
