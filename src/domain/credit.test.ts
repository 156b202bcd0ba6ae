import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CreditFacts, creditMoved, judgeCredit } from './credit.ts';
import { AppError } from './errors.ts';

const facts = (over: Partial<CreditFacts> = {}): CreditFacts => ({
  amount: '25000.00',
  currency: 'EUR',
  valueDate: '2026-11-24',
  dealId: 'd1',
  investorUserId: 'i1',
  commitment: '25000.00',
  commitmentCurrency: 'EUR',
  received: '0',
  currentStepType: 'default',
  settings: { paymentStepId: 'pay', amountFieldKey: 'amount_received', dateFieldKey: 'received_on' },
  staff: false,
  decide: true,
  ...over,
});

describe('judgeCredit', () => {
  test('each credit gets one judgement', () => {
    type Row = [string, Partial<CreditFacts>, { kind: string; outcome: string; status?: string; allocate?: boolean; received?: string }];
    const rows: Row[] = [
      ['the commitment, in full', {}, { kind: 'move', outcome: 'matched' }],
      ['a first instalment', { amount: '10000.00' }, { kind: 'decision', outcome: 'partial', status: 'queued', allocate: true, received: '10000' }],
      ['the last instalment', { amount: '15000.00', received: '10000' }, { kind: 'move', outcome: 'matched' }],
      ['too much', { amount: '30000.00' }, { kind: 'decision', outcome: 'overpaid', status: 'queued', allocate: false, received: '0' }],
      ['no commitment', { commitment: null }, { kind: 'decision', outcome: 'overpaid', status: 'queued', allocate: false }],
      ['another currency', { currency: 'USD' }, { kind: 'decision', outcome: 'wrong-currency', status: 'queued', allocate: false }],
      [
        'after completion, in full',
        { currentStepType: 'complete' },
        { kind: 'decision', outcome: 'after-completion', status: 'queued', allocate: true, received: '25000' },
      ],
      [
        'after completion, a second transfer',
        { currentStepType: 'complete', received: '25000', amount: '100' },
        { kind: 'decision', outcome: 'after-completion', status: 'queued', allocate: true, received: '25100' },
      ],
      [
        'after withdrawal, a partial one',
        { currentStepType: 'withdrawn', amount: '5' },
        { kind: 'decision', outcome: 'after-completion', status: 'queued', allocate: true },
      ],
      [
        'after completion, another currency',
        { currentStepType: 'complete', currency: 'USD' },
        { kind: 'decision', outcome: 'wrong-currency', status: 'queued', allocate: false },
      ],
      ['staff: too much is accepted', { staff: true, amount: '30000.00' }, { kind: 'move', outcome: 'overpaid' }],
      ['staff: below the commitment is matched', { staff: true, amount: '10.00' }, { kind: 'decision', outcome: 'partial', status: 'matched', allocate: true }],
      [
        'staff: a split part below the commitment stays queued until the last',
        { staff: true, amount: '10.00', decide: false },
        { kind: 'decision', outcome: 'partial', status: 'queued' },
      ],
    ];
    for (const [name, over, expected] of rows) {
      const judged = judgeCredit(facts(over));
      const got = {
        kind: judged.kind,
        outcome: judged.outcome,
        ...(judged.kind === 'decision' ? { status: judged.status, allocate: judged.allocate, received: judged.received } : {}),
      };
      for (const [k, v] of Object.entries(expected)) assert.equal((got as Record<string, unknown>)[k], v, `${name}: ${k}`);
    }
  });

  test('the move: to the payment step, forward only, with the amount and date fields', () => {
    const judged = judgeCredit(facts({ amount: '15000', received: '10000' }));
    assert.equal(judged.kind, 'move');
    assert.deepEqual(judged.kind === 'move' && judged.move, {
      investorUserId: 'i1',
      targetStepId: 'pay',
      data: { amount_received: '25000.00', received_on: '2026-11-24' },
      forwardOnly: true,
    });
    const none = judgeCredit(facts({ settings: { paymentStepId: null, amountFieldKey: null, dateFieldKey: null } }));
    assert.ok(none.kind === 'move' && 'refusal' in none.move && /names no payment step/.test(String(none.move.refusal['detail'])));
  });

  test('a staff decision in another currency is refused', () => {
    assert.throws(
      () => judgeCredit(facts({ staff: true, currency: 'USD' })),
      (err: unknown) => err instanceof AppError && err.kind === 'unprocessable',
    );
  });
});

describe('creditMoved', () => {
  const judged = judgeCredit(facts()) as Extract<ReturnType<typeof judgeCredit>, { kind: 'move' }>;
  test('made, refused, and refused as a move backward', () => {
    const rows: [
      string,
      Parameters<typeof creditMoved>[0],
      Parameters<typeof creditMoved>[2],
      { outcome: string; status: string; announce: string | null; settles: boolean },
    ][] = [
      ['made', { decide: true, received: '0' }, { eventId: 'e1' }, { outcome: 'matched', status: 'matched', announce: 'matched', settles: false }],
      [
        'made after earlier money',
        { decide: true, received: '10' },
        { eventId: 'e1' },
        { outcome: 'matched', status: 'matched', announce: 'matched', settles: true },
      ],
      [
        'made for a split part',
        { decide: false, received: '0' },
        { eventId: 'e1' },
        { outcome: 'matched', status: 'queued', announce: 'matched', settles: false },
      ],
      [
        'refused',
        { decide: true, received: '0' },
        { refusal: { kind: 'unprocessable', detail: 'required fields missing' } },
        { outcome: 'matched', status: 'queued', announce: 'queued', settles: false },
      ],
      [
        'refused, a split part',
        { decide: false, received: '0' },
        { refusal: { kind: 'conflict', detail: 'x' } },
        { outcome: 'matched', status: 'queued', announce: null, settles: false },
      ],
      [
        'refused as backward',
        { decide: true, received: '0' },
        { refusal: { kind: 'conflict', detail: 'not moved backward', movesBackward: true } },
        { outcome: 'after-completion', status: 'queued', announce: 'queued', settles: false },
      ],
    ];
    for (const [name, f, moved, expected] of rows) {
      const result = creditMoved(f, judged, moved);
      assert.deepEqual({ outcome: result.outcome, status: result.status, announce: result.announce, settles: result.settles }, expected, name);
    }
  });
});
