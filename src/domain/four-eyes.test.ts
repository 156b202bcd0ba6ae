import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  basisChanges,
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
  for (const [count, from, expected] of [
    [500, null, false],
    [9, 10, false],
    [10, 10, true],
    [11, 10, true],
    [1, 1, true],
  ] as const) {
    test(`${count} investors, from ${from}: ${expected}`, () => assert.equal(bulkMoveNeedsSecondPerson(count, from), expected));
  }
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
    assert.deepEqual(proposalActions.map(roleToDecide), ['admin', 'approver', 'approver', 'approver', 'operator', 'admin', 'admin']);
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
