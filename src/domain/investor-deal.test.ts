// Putting an investor's deal together from its facts, case by case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type InvestorDealFacts, investorDealOf } from './investor-deal.ts';
import type { Step, Workflow } from './workflow.ts';

const step = (id: string, label: string, extra: Partial<Step> = {}): Step => ({
  id,
  label,
  type: 'default',
  stepFields: [],
  requirements: [],
  formId: null,
  ...extra,
});
const workflow = (engagement = true): Workflow => ({
  id: 'w',
  dealId: 'd',
  label: 'Subscription',
  description: '',
  investorEngagementEnabled: engagement,
  version: 1,
  steps: [
    step('interest', 'Interest'),
    step('commit', 'Commitment', { stepFields: [{ fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Amount', options: null }] }),
    step('pay', 'Payment'),
    step('out', 'Withdrawn', { type: 'withdrawn' }),
  ],
  links: [
    { fromStepId: 'interest', toStepId: 'commit', investorMay: true },
    { fromStepId: 'commit', toStepId: 'pay', investorMay: false },
    { fromStepId: 'commit', toStepId: 'out', investorMay: true },
  ],
});
const event = (eventId: string, stepId: string, at: string, data: Record<string, string> = {}) => ({ eventId, stepId, label: null, type: null, at, data });
const facts = (extra: Partial<InvestorDealFacts> = {}): InvestorDealFacts => ({
  dealId: 'd',
  dealName: 'Deal',
  dealCurrency: 'EUR',
  currentStepId: 'commit',
  paymentReference: 'RF18539007547034',
  workflow: workflow(),
  commitmentFieldKey: 'committed_amount',
  currencyFieldKey: 'currency',
  beneficiaryName: 'Fund',
  iban: 'DE89370400440532013000',
  bic: null,
  payeeChangedAt: null,
  received: '0',
  events: [event('e1', 'interest', 't1'), event('e2', 'commit', 't2', { committed_amount: '100.5', currency: 'EUR' })],
  revisions: [{ eventId: 'e2', seq: 2, revision: 1, data: { committed_amount: '100.5', currency: 'EUR' }, at: 't2', byInvestor: true }],
  editRequests: [],
  ...extra,
});

test('where they stand, where they were, where they may go', () => {
  const view = investorDealOf(facts());
  assert.deepEqual(view.currentStep, { id: 'commit', label: 'Commitment', type: 'default', enteredAt: 't2' });
  assert.deepEqual(view.pastSteps, [{ stepId: 'interest', label: 'Interest', enteredAt: 't1' }]);
  assert.deepEqual(
    view.nextSteps.map((s) => [s.id, s.investorMay]),
    [
      ['pay', false],
      ['out', true],
    ],
  );
});

test('a step that requires the signed agreement waits for the signature, then the countersignature; other steps wait for nothing', () => {
  const signing = workflow();
  signing.steps = signing.steps.map((s) => (s.id === 'pay' ? { ...s, requirements: [{ kind: 'signed-agreement' as const }] } : s));
  const cases: [InvestorDealFacts['agreement'], string[]][] = [
    [undefined, ['investor-signature', 'countersignature']],
    ['to-sign', ['investor-signature', 'countersignature']],
    ['signed', ['countersignature']],
    ['countersigned', []],
  ];
  for (const [agreement, waits] of cases) {
    const view = investorDealOf(facts({ workflow: signing, ...(agreement ? { agreement } : {}) }));
    assert.deepEqual(
      view.nextSteps.map((s) => [s.id, s.waitingFor]),
      [
        ['pay', waits],
        ['out', []],
      ],
      String(agreement),
    );
  }
  assert.deepEqual(
    investorDealOf(facts({ agreement: 'to-sign' })).nextSteps.map((s) => s.waitingFor),
    [[], []],
    'no step requires it: nothing waits',
  );
});

test('engagement off: no next step is theirs to take', () => {
  assert.deepEqual(
    investorDealOf(facts({ workflow: workflow(false) })).nextSteps.map((s) => s.investorMay),
    [false, false],
  );
});

test('an event that keeps the step (a migration) starts no new stay', () => {
  const view = investorDealOf(facts({ events: [event('e1', 'interest', 't1'), event('e2', 'interest', 't2'), event('e3', 'commit', 't3')] }));
  assert.deepEqual(
    view.pastSteps.map((s) => s.enteredAt),
    ['t1'],
  );
  assert.equal(view.currentStep?.enteredAt, 't3');
});

test("money in the currency's minor units; remaining never below zero", () => {
  const paid = investorDealOf(facts({ received: '100.5' })).payment!;
  assert.deepEqual([paid.amountDue, paid.received, paid.remaining], ['100.50', '100.50', '0.00']);
  const over = investorDealOf(facts({ received: '200' })).payment!;
  assert.deepEqual([over.received, over.remaining], ['200.00', '0.00']);
  assert.equal(over.epcQr, 'BCD\n002\n1\nSCT\n\nFund\nDE89370400440532013000\n\n\nRF18539007547034', 'nothing remains: no amount in the code');
  const part = investorDealOf(facts({ received: '0.5' })).payment!;
  assert.equal(part.remaining, '100.00');
  assert.match(part.epcQr!, /\nEUR100.00\n/);
});

test('the commitment and its history: a new value per revision, who set it', () => {
  const view = investorDealOf(
    facts({
      revisions: [
        { eventId: 'e2', seq: 2, revision: 1, data: { committed_amount: '100.5', currency: 'EUR' }, at: 't2', byInvestor: true },
        { eventId: 'e2', seq: 2, revision: 2, data: { committed_amount: '100.5', currency: 'EUR', note: 'x' }, at: 't3', byInvestor: false },
        { eventId: 'e2', seq: 2, revision: 3, data: { committed_amount: '300', currency: 'EUR' }, at: 't4', byInvestor: false },
      ],
      events: [event('e1', 'interest', 't1'), event('e2', 'commit', 't2', { committed_amount: '300', currency: 'EUR' })],
    }),
  );
  assert.deepEqual(view.commitment, { eventId: 'e2', fieldKey: 'committed_amount', amount: '300', currency: 'EUR' });
  assert.deepEqual(
    view.commitmentHistory.map((h) => [h.amount, h.changedBy, h.revision]),
    [
      ['100.5', 'investor', 1],
      ['300', 'staff', 3],
    ],
  );
});

test("without a captured currency the deal's counts; not EUR: no QR code", () => {
  const view = investorDealOf(facts({ dealCurrency: 'USD', events: [event('e2', 'commit', 't2', { committed_amount: '10' })] }));
  assert.deepEqual([view.commitment?.currency, view.payment?.currency, view.payment?.epcQr], ['USD', 'USD', null]);
});

test('nothing committed: no commitment, no payment', () => {
  const view = investorDealOf(facts({ events: [event('e1', 'interest', 't1')], revisions: [], currentStepId: 'interest' }));
  assert.deepEqual([view.commitment, view.payment, view.commitmentHistory], [null, null, []]);
});

test('edit requests name the new amount of the commitment field', () => {
  const view = investorDealOf(
    facts({
      editRequests: [
        {
          requestId: 'r1',
          eventId: 'e2',
          type: 'Investment Amount',
          status: 'pending',
          newData: { committed_amount: '500.00' },
          reason: 'More',
          createdAt: 't5',
          decidedAt: null,
          decisionNote: null,
        },
        {
          requestId: 'r2',
          eventId: 'e2',
          type: 'Withdraw Investment',
          status: 'rejected',
          newData: null,
          reason: 'Out',
          createdAt: 't6',
          decidedAt: 't7',
          decisionNote: 'No',
        },
      ],
    }),
  );
  assert.deepEqual(
    view.editRequests.map((r) => [r.requestId, r.newAmount, r.status, r.decisionNote]),
    [
      ['r1', '500.00', 'pending', null],
      ['r2', null, 'rejected', 'No'],
    ],
  );
});
