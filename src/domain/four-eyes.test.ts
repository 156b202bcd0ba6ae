import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Big from 'big.js';
import fc from 'fast-check';
import {
  basisChanges,
  batchCommitment,
  bulkMoveNeedsSecondPerson,
  type Proposal,
  proposalActions,
  payeeChangeNeedsSecondPerson,
  refusalToDecide,
  roleToDecide,
} from './four-eyes.ts';
import type { Role } from './principal.ts';

describe('payeeChangeNeedsSecondPerson', () => {
  for (const [current, next, expected] of [
    [null, 'DE89370400440532013000', false],
    [null, null, false],
    ['DE89370400440532013000', 'DE89370400440532013000', false],
    ['DE89370400440532013000', 'BE71096123456769', true],
    ['DE89370400440532013000', null, true],
  ] as const) {
    test(`${current} → ${next}: ${expected}`, () => assert.equal(payeeChangeNeedsSecondPerson(current, next), expected));
  }
});

describe('bulkMoveNeedsSecondPerson', () => {
  for (const [count, amount, fromInvestors, fromAmount, expected] of [
    [500, '0', null, null, false],
    [9, '0', 10, null, false],
    [10, '0', 10, null, true],
    [11, '0', 10, null, true],
    [1, '0', 1, null, true],
    [1, '249999.99', null, '250000', false],
    [1, '250000', null, '250000', true],
    [1, '250000.01', null, '250000', true],
    [2, '1000000', 10, '250000', true],
    [12, '10', 10, '250000', true],
    [2, '10', 10, '250000', false],
  ] as const) {
    test(`${count} investors committing ${amount}, from ${fromInvestors} investors or ${fromAmount}: ${expected}`, () =>
      assert.equal(bulkMoveNeedsSecondPerson({ count, amount: new Big(amount) }, { fromInvestors, fromAmount }), expected));
  }
});

describe('batchCommitment', () => {
  const captured = new Map<string, string | null>([
    ['ann', '1000'],
    ['bob', '250.50'],
    ['cy', 'about a million'],
    ['dee', null],
  ]);
  const move = (investorUserId: string, data: Record<string, string> = {}) => ({ investorUserId, data });
  for (const [name, moves, expected] of [
    ['the commitments captured before', [move('ann'), move('bob')], '1250.5'],
    ['a commitment the move captures replaces the one before', [move('ann', { committed_amount: '5000' }), move('bob')], '5250.5'],
    ['another field of the move does not count', [move('ann', { amount: '5000' })], '1000'],
    ['a value that is not an amount counts as nothing', [move('cy'), move('dee')], '0'],
    ['an investor new to the deal with a commitment in the move', [move('eve', { committed_amount: '75.25' })], '75.25'],
    ['an investor twice counts once, as the last move leaves them', [move('ann', { committed_amount: '1' }), move('ann', { committed_amount: '2' })], '2'],
  ] as const) {
    test(name, () => assert.equal(batchCommitment(moves, 'committed_amount', captured).toString(), expected));
  }

  test('is exact: the sum of many cents is the sum of their integers', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000_000 }), { maxLength: 60 }), (cents) => {
        const moves = cents.map((c, i) => move(`i${i}`, { committed_amount: (c / 100).toFixed(2) }));
        const total = cents.reduce((a, b) => a + b, 0);
        return batchCommitment(moves, 'committed_amount', new Map()).eq(new Big(total).div(100));
      }),
    );
  });
});

describe('refusalToDecide', () => {
  const proposal = (action: Proposal['action'], decided = false): Pick<Proposal, 'action' | 'proposedBy' | 'decision'> => ({
    action,
    proposedBy: 'key-a',
    decision: decided
      ? { outcome: 'approved', decidedBy: 'key-b', decidedByName: null, reason: null, decidedAt: '2026-01-01T00:00:00.000Z', result: null }
      : null,
  });
  for (const [name, action, actor, role, decided, expected] of [
    ['another approver, a payment decision', 'payment-assign', 'key-b', 'approver', false, null],
    ['another admin, a payment decision', 'payment-dismiss', 'key-b', 'admin', false, null],
    ['another admin, the payee change', 'payee-change', 'key-b', 'admin', false, null],
    ['an approver, the payee change', 'payee-change', 'key-b', 'approver', false, 'forbidden'],
    ['an operator, a payment decision', 'payment-split', 'key-b', 'operator', false, 'forbidden'],
    ['another operator, a bulk move', 'bulk-move', 'key-b', 'operator', false, null],
    ['a viewer, a bulk move', 'bulk-move', 'key-b', 'viewer', false, 'forbidden'],
    ['a viewer', 'payment-assign', 'key-b', 'viewer', false, 'forbidden'],
    ['an investor', 'payment-assign', 'inv-1', 'investor', false, 'forbidden'],
    ['the proposer, even an admin', 'payee-change', 'key-a', 'admin', false, 'forbidden'],
    ['the proposer of a decided one', 'payment-assign', 'key-a', 'admin', true, 'forbidden'],
    ['a second decision', 'payment-assign', 'key-b', 'approver', true, 'conflict'],
  ] as const) {
    test(`${name}: ${expected ?? 'may decide'}`, () => {
      assert.equal(refusalToDecide(proposal(action, decided), { actor, role: role as Role })?.kind ?? null, expected);
    });
  }
  test('the proposer is told a second person must decide', () => {
    assert.match(refusalToDecide(proposal('payee-change'), { actor: 'key-a', role: 'admin' })!.detail, /second person/);
  });
  test('a role too low is named', () => {
    assert.match(refusalToDecide(proposal('payee-change'), { actor: 'key-b', role: 'approver' })!.detail, /needs the admin role/);
  });
});

describe('roleToDecide and basisChanges', () => {
  test('the payee change and workflow changes are the admin’s, payment decisions the approver’s, a bulk move the operator’s', () => {
    assert.deepEqual(proposalActions.map(roleToDecide), ['admin', 'approver', 'approver', 'approver', 'operator', 'admin', 'admin', 'admin']);
  });
  for (const [name, basis, now, fields] of [
    ['nothing moved', { status: 'queued', decisions: 0 }, { status: 'queued', decisions: 0 }, []],
    ['the line decided', { status: 'queued', decisions: 0 }, { status: 'matched', decisions: 1 }, ['status', 'decisions']],
    ['the IBAN changed', { iban: 'DE89370400440532013000', updatedAt: 'a' }, { iban: 'BE71096123456769', updatedAt: 'b' }, ['iban', 'updatedAt']],
    ['a member now missing', { iban: 'X' }, {}, ['iban']],
    ['null and missing alike', { iban: null }, {}, []],
  ] as const) {
    test(`basisChanges: ${name}`, () =>
      assert.deepEqual(
        basisChanges(basis, now as Record<string, unknown>).map((c) => c.field),
        fields,
      ));
  }
});
