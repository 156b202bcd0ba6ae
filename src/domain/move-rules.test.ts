// Table-driven tests of the pure jump rules (product.md, "Workflows and the jump").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from './errors.ts';
import { investorMoveRefusal, type MoveRuleFacts, type MoveRuleRequest, planMove } from './move-rules.ts';
import type { Link, Requirement, Step, StepField } from './workflow.ts';

const field = (fieldKey: string, required: boolean, kind: StepField['kind'] = 'text', options: string[] | null = null): StepField => ({
  fieldKey,
  required,
  kind,
  label: null,
  options,
});
const step = (id: string, stepFields: StepField[] = [], requirements: Requirement[] = [], type: Step['type'] = 'default'): Step => ({
  id,
  label: id,
  type,
  stepFields,
  requirements,
  formId: null,
});

//            ┌→ kyc (kyc-level 2) ──┐
// interest → commitment              → documents → payment (previous-fields-complete) → complete
//            └→ professional (class) ┘
//            commitment → withdrawn;  interest → amend (no-pending-edit-requests)
const steps: Step[] = [
  step('interest', [field('note', false)]),
  step('commitment', [
    field('committed_amount', true, 'amount'),
    field('currency', true, 'currency'),
    field('signed_on', false, 'date'),
    field('stake_percent', false, 'number'),
  ]),
  step('kyc', [field('kyc_ref', true)], [{ kind: 'kyc-level', minimumLevel: 2 }]),
  step('professional', [field('pro_ref', false)], [{ kind: 'classification', classes: ['professional', 'institutional'] }]),
  step('documents', [field('signed', true, 'choice', ['yes', 'no']), field('contact', false, 'email'), field('shares', false, 'number')]),
  step('payment', [field('paid_on', false, 'date')], [{ kind: 'previous-fields-complete' }]),
  step('complete', [], [], 'complete'),
  step('withdrawn', [field('reason', false)], [], 'withdrawn'),
  step('amend', [], [{ kind: 'no-pending-edit-requests' }]),
];
const link = (fromStepId: string, toStepId: string, investorMay = false): Link => ({ fromStepId, toStepId, investorMay });
const links: Link[] = [
  link('interest', 'commitment', true),
  link('commitment', 'kyc'),
  link('commitment', 'professional'),
  link('kyc', 'documents'),
  link('professional', 'documents'),
  link('documents', 'payment'),
  link('payment', 'complete'),
  link('commitment', 'withdrawn', true),
  link('interest', 'amend'),
];

const committed = new Map([
  ['committed_amount', '25000.00'],
  ['currency', 'EUR'],
]);

function facts(overrides: Partial<MoveRuleFacts> = {}): MoveRuleFacts {
  return {
    steps,
    links,
    currentStepId: null,
    visitedStepIds: [],
    captured: new Map(),
    investor: { kycCheckLevel: 2, classes: ['sophisticated'] },
    pendingEditRequests: 0,
    ...overrides,
  };
}
const at = (currentStepId: string, visitedStepIds: string[], captured: Map<string, string> = new Map()) => facts({ currentStepId, visitedStepIds, captured });

const request = (targetStepId: string, data: Record<string, string> = {}, extra: Partial<MoveRuleRequest> = {}): MoveRuleRequest => ({
  targetStepId,
  data: new Map(Object.entries(data)),
  ...extra,
});

interface Case {
  name: string;
  facts: MoveRuleFacts;
  request: MoveRuleRequest;
  /** Allowed: the direction and the intermediary steps. */
  ok?: { direction: string; intermediaries: string[] };
  /** Refused: the error kind, and what it must name. */
  error?: { kind: AppError['kind']; fields?: string[]; missingFields?: string[]; failed?: string[] };
}

const cases: Case[] = [
  // Rule 2: from no position.
  { name: 'from no position to an entry step', facts: facts(), request: request('interest'), ok: { direction: 'first', intermediaries: [] } },
  {
    name: 'from no position over intermediaries without their data',
    facts: facts(),
    request: request('commitment', { committed_amount: '100', currency: 'EUR' }),
    ok: { direction: 'first', intermediaries: ['interest'] },
  },
  {
    name: 'from no position deep into the graph: every ancestor is an intermediary',
    facts: facts(),
    request: request('documents', { signed: 'yes' }),
    ok: { direction: 'first', intermediaries: ['interest', 'commitment', 'kyc', 'professional'] },
  },
  // Rule 3: forward, backward, same step, other branch.
  {
    name: 'forward one step',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '25000.00', currency: 'GBP' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'forward over intermediaries without their data',
    facts: at('commitment', ['interest', 'commitment'], committed),
    request: request('documents', { signed: 'no' }),
    ok: { direction: 'forward', intermediaries: ['kyc', 'professional'] },
  },
  {
    name: 'forward over an intermediary with its complete data',
    facts: at('commitment', ['interest', 'commitment'], committed),
    request: request('documents', { signed: 'yes', kyc_ref: 'K-1' }),
    ok: { direction: 'forward', intermediaries: ['kyc', 'professional'] },
  },
  {
    name: 'forward over an intermediary with part of its data: its required fields too',
    facts: at('interest', ['interest']),
    request: request('documents', { signed: 'yes', signed_on: '2026-01-31' }),
    error: { kind: 'unprocessable', missingFields: ['committed_amount', 'currency'] },
  },
  {
    name: 'backward',
    facts: at('documents', ['interest', 'commitment', 'documents'], committed),
    request: request('commitment'),
    ok: { direction: 'backward', intermediaries: [] },
  },
  {
    name: 'backward with data of the target',
    facts: at('kyc', ['interest', 'commitment', 'kyc'], committed),
    request: request('commitment', { committed_amount: '1.50' }),
    ok: { direction: 'backward', intermediaries: [] },
  },
  {
    name: 'backward with data of a step in between is refused',
    facts: at('documents', ['interest', 'commitment', 'kyc', 'documents'], committed),
    request: request('commitment', { kyc_ref: 'x' }),
    error: { kind: 'validation', fields: ['data.kyc_ref'] },
  },
  { name: 'the same step', facts: at('commitment', ['interest', 'commitment'], committed), request: request('commitment'), error: { kind: 'conflict' } },
  { name: 'another branch', facts: at('kyc', ['interest', 'commitment', 'kyc'], committed), request: request('professional'), error: { kind: 'conflict' } },
  {
    name: 'another branch (withdrawn from the amend branch)',
    facts: at('amend', ['interest', 'amend']),
    request: request('withdrawn'),
    error: { kind: 'conflict' },
  },
  // Rule 1.
  { name: 'unknown step', facts: facts(), request: request('nowhere'), error: { kind: 'not-found' } },
  { name: 'unknown step named like an Object member', facts: facts(), request: request('constructor'), error: { kind: 'not-found' } },
  // Rule 4.
  { name: 'unknown data key', facts: facts(), request: request('interest', { nope: '1' }), error: { kind: 'validation', fields: ['data.nope'] } },
  {
    name: 'data keys named like Object members',
    facts: facts(),
    request: request('interest', JSON.parse('{"__proto__":"x","toString":"y"}')),
    error: { kind: 'validation', fields: ['data.__proto__', 'data.toString'] },
  },
  {
    name: 'amount "abc"',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: 'abc', currency: 'EUR' }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
  {
    name: 'negative amount',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '-5', currency: 'EUR' }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
  {
    name: 'currency "XYZ"',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '10', currency: 'XYZ' }),
    error: { kind: 'validation', fields: ['data.currency'] },
  },
  {
    name: 'date "2026-13-01"',
    facts: at('interest', ['interest']),
    request: request('commitment', { ...Object.fromEntries(committed), signed_on: '2026-13-01' }),
    error: { kind: 'validation', fields: ['data.signed_on'] },
  },
  {
    name: 'date "2026-02-29" (not a leap year)',
    facts: at('interest', ['interest']),
    request: request('commitment', { ...Object.fromEntries(committed), signed_on: '2026-02-29' }),
    error: { kind: 'validation', fields: ['data.signed_on'] },
  },
  {
    name: 'choice outside its options',
    facts: at('kyc', ['kyc'], committed),
    request: request('documents', { signed: 'maybe' }),
    error: { kind: 'validation', fields: ['data.signed'] },
  },
  {
    name: 'e-mail that is not one',
    facts: at('kyc', ['kyc'], committed),
    request: request('documents', { signed: 'yes', contact: 'nobody' }),
    error: { kind: 'validation', fields: ['data.contact'] },
  },
  {
    name: 'number "-3.5"',
    facts: at('kyc', ['kyc'], committed),
    request: request('documents', { signed: 'yes', shares: '-3.5' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'number "1e3" (an exponent)',
    facts: at('kyc', ['kyc'], committed),
    request: request('documents', { signed: 'yes', shares: '1e3' }),
    error: { kind: 'validation', fields: ['data.shares'] },
  },
  {
    name: 'number "1,000" (a thousands separator)',
    facts: at('kyc', ['kyc'], committed),
    request: request('documents', { signed: 'yes', shares: '1,000' }),
    error: { kind: 'validation', fields: ['data.shares'] },
  },
  {
    name: 'a number beside a currency is not held to its minor units',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '10', currency: 'JPY', stake_percent: '0.125' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'every bad key is named at once',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: 'abc', currency: 'XYZ', zzz: '1' }),
    error: { kind: 'validation', fields: ['data.committed_amount', 'data.currency', 'data.zzz'] },
  },
  // Rule 5.
  {
    name: 'missing required fields are listed',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '10' }),
    error: { kind: 'unprocessable', missingFields: ['currency'] },
  },
  {
    name: 'required fields supplied with the move, optional date valid',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '10', currency: 'EUR', signed_on: '2028-02-29' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'a required field satisfied by an earlier event',
    facts: at('documents', ['interest', 'commitment', 'documents'], committed),
    request: request('commitment'),
    ok: { direction: 'backward', intermediaries: [] },
  },
  {
    name: 'a required field satisfied by an earlier event (text blank now)',
    facts: at('commitment', ['commitment'], new Map([...committed, ['kyc_ref', 'K-9']])),
    request: request('kyc', { kyc_ref: '  ' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'a required text field blank and never captured',
    facts: at('commitment', ['commitment'], committed),
    request: request('kyc', { kyc_ref: ' ' }),
    error: { kind: 'unprocessable', missingFields: ['kyc_ref'] },
  },
  // Rule 6: each requirement kind, met and unmet.
  {
    name: 'kyc-level met',
    facts: { ...at('commitment', ['commitment'], committed), investor: { kycCheckLevel: 3, classes: [] } },
    request: request('kyc', { kyc_ref: 'K' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'kyc-level unmet',
    facts: { ...at('commitment', ['commitment'], committed), investor: { kycCheckLevel: 1, classes: [] } },
    request: request('kyc', { kyc_ref: 'K' }),
    error: { kind: 'unprocessable', failed: ['kyc-level'] },
  },
  {
    name: 'kyc-level unmet when not set',
    facts: { ...at('commitment', ['commitment'], committed), investor: { kycCheckLevel: null, classes: [] } },
    request: request('kyc', { kyc_ref: 'K' }),
    error: { kind: 'unprocessable', failed: ['kyc-level'] },
  },
  {
    name: 'classification met',
    facts: { ...at('commitment', ['commitment'], committed), investor: { kycCheckLevel: 0, classes: ['retail', 'professional'] } },
    request: request('professional'),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'classification unmet',
    facts: at('commitment', ['commitment'], committed),
    request: request('professional'),
    error: { kind: 'unprocessable', failed: ['classification'] },
  },
  { name: 'no-pending-edit-requests met', facts: at('interest', ['interest']), request: request('amend'), ok: { direction: 'forward', intermediaries: [] } },
  {
    name: 'no-pending-edit-requests unmet',
    facts: { ...at('interest', ['interest']), pendingEditRequests: 1 },
    request: request('amend'),
    error: { kind: 'unprocessable', failed: ['no-pending-edit-requests'] },
  },
  {
    name: 'previous-fields-complete met',
    facts: at('documents', ['interest', 'commitment', 'kyc', 'documents'], new Map([...committed, ['kyc_ref', 'K'], ['signed', 'yes']])),
    request: request('payment'),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'previous-fields-complete unmet (a step on the path lacks its required field)',
    facts: at('documents', ['interest', 'commitment', 'kyc', 'documents'], new Map([...committed, ['signed', 'yes']])),
    request: request('payment'),
    error: { kind: 'unprocessable', failed: ['previous-fields-complete'] },
  },
  {
    name: 'missing fields and failed requirements are reported together',
    facts: { ...at('commitment', ['commitment'], committed), investor: { kycCheckLevel: 0, classes: [] } },
    request: request('kyc'),
    error: { kind: 'unprocessable', missingFields: ['kyc_ref'], failed: ['kyc-level'] },
  },
  // Rule 8: expectedCurrentStepId.
  {
    name: 'expected position matches',
    facts: at('interest', ['interest']),
    request: request('amend', {}, { expectedCurrentStepId: 'interest' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'expected "not yet in the workflow" matches',
    facts: facts(),
    request: request('interest', {}, { expectedCurrentStepId: null }),
    ok: { direction: 'first', intermediaries: [] },
  },
  {
    name: 'expected position is stale',
    facts: at('commitment', ['interest', 'commitment'], committed),
    request: request('kyc', { kyc_ref: 'K' }, { expectedCurrentStepId: 'interest' }),
    error: { kind: 'conflict' },
  },
  {
    name: 'expected "not yet in the workflow" but the investor moved',
    facts: at('interest', ['interest']),
    request: request('amend', {}, { expectedCurrentStepId: null }),
    error: { kind: 'conflict' },
  },
  // forwardOnly (reconciliation's moves): never backward, never away from complete or withdrawn.
  {
    name: 'forward only: a forward move is allowed',
    facts: at('commitment', ['interest', 'commitment'], committed),
    request: request('kyc', { kyc_ref: 'K' }, { forwardOnly: true }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'forward only: a first move is allowed',
    facts: facts(),
    request: request('interest', {}, { forwardOnly: true }),
    ok: { direction: 'first', intermediaries: [] },
  },
  {
    name: 'forward only: a backward move is refused',
    facts: at('complete', ['payment', 'complete'], committed),
    request: request('payment', {}, { forwardOnly: true }),
    error: { kind: 'conflict' },
  },
  {
    name: 'forward only: from a withdrawn step nothing is allowed',
    facts: at('withdrawn', ['commitment', 'withdrawn'], committed),
    request: request('payment', {}, { forwardOnly: true }),
    error: { kind: 'conflict' },
  },
  {
    name: 'forward only: from documents back to commitment is refused',
    facts: at('documents', ['commitment', 'kyc', 'documents'], committed),
    request: request('commitment', {}, { forwardOnly: true }),
    error: { kind: 'conflict' },
  },
  {
    name: 'without forward only the same move backward is allowed',
    facts: at('complete', ['payment', 'complete'], committed),
    request: request('payment'),
    ok: { direction: 'backward', intermediaries: [] },
  },
  // Minor units: the move's amounts fit its currency (in the data, else captured).
  {
    name: 'an amount finer than its currency (EUR 0.001) is refused',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '0.001', currency: 'EUR' }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
  {
    name: 'an amount in JPY with decimals is refused',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '100.5', currency: 'JPY' }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
  {
    name: 'three decimals of BHD are allowed',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '1.234', currency: 'BHD' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  // Rule 9: an investor's own move, only along a link open to investors, when the workflow allows it.
  {
    name: 'investor: along an open link, with its fields',
    facts: { ...at('interest', ['interest']), investorEngagementEnabled: true },
    request: request('commitment', { committed_amount: '10', currency: 'EUR' }, { byInvestor: true }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'investor: along an open link, still under every jump rule (missing field)',
    facts: { ...at('interest', ['interest']), investorEngagementEnabled: true },
    request: request('commitment', { committed_amount: '10' }, { byInvestor: true }),
    error: { kind: 'unprocessable', missingFields: ['currency'] },
  },
  {
    name: 'investor: along an open link, a bad value is still a 400',
    facts: { ...at('interest', ['interest']), investorEngagementEnabled: true },
    request: request('commitment', { committed_amount: 'lots', currency: 'EUR' }, { byInvestor: true }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
  {
    name: 'investor: along a closed link',
    facts: { ...at('commitment', ['interest', 'commitment'], committed), investorEngagementEnabled: true },
    request: request('kyc', { kyc_ref: 'K' }, { byInvestor: true }),
    error: { kind: 'forbidden' },
  },
  {
    name: 'investor: past an open link to a step further on (no direct link)',
    facts: { ...at('interest', ['interest']), investorEngagementEnabled: true },
    request: request('kyc', { ...Object.fromEntries(committed), kyc_ref: 'K' }, { byInvestor: true }),
    error: { kind: 'forbidden' },
  },
  {
    name: 'investor: backward along an open link is not open the other way',
    facts: { ...at('commitment', ['interest', 'commitment'], committed), investorEngagementEnabled: true },
    request: request('interest', {}, { byInvestor: true }),
    error: { kind: 'forbidden' },
  },
  {
    name: 'investor: engagement disabled closes every link',
    facts: at('interest', ['interest']),
    request: request('commitment', { committed_amount: '10', currency: 'EUR' }, { byInvestor: true }),
    error: { kind: 'forbidden' },
  },
  {
    name: 'investor: not in the workflow yet cannot enter it',
    facts: { ...facts(), investorEngagementEnabled: true },
    request: request('interest', {}, { byInvestor: true }),
    error: { kind: 'forbidden' },
  },
  {
    name: 'investor: a stale expected position is still a 409 first',
    facts: { ...at('commitment', ['interest', 'commitment'], committed), investorEngagementEnabled: true },
    request: request('withdrawn', {}, { byInvestor: true, expectedCurrentStepId: 'interest' }),
    error: { kind: 'conflict' },
  },
  {
    name: 'investor: the expected position honoured',
    facts: { ...at('commitment', ['interest', 'commitment'], committed), investorEngagementEnabled: true },
    request: request('withdrawn', { reason: 'timing' }, { byInvestor: true, expectedCurrentStepId: 'commitment' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'staff: a closed link does not matter',
    facts: { ...at('commitment', ['interest', 'commitment'], committed), investorEngagementEnabled: true },
    request: request('kyc', { kyc_ref: 'K' }),
    ok: { direction: 'forward', intermediaries: [] },
  },
  {
    name: 'the captured currency holds for a later amount',
    facts: at('interest', ['interest', 'commitment', 'interest'], new Map([['currency', 'JPY']])),
    request: request('commitment', { committed_amount: '10.5' }),
    error: { kind: 'validation', fields: ['data.committed_amount'] },
  },
];

describe('jump rules', () => {
  for (const c of cases) {
    test(c.name, () => {
      if (c.ok) {
        const plan = planMove(c.facts, c.request);
        assert.equal(plan.direction, c.ok.direction);
        assert.deepEqual(plan.intermediaryStepIds, c.ok.intermediaries);
        return;
      }
      assert.throws(
        () => planMove(c.facts, c.request),
        (err: unknown) => {
          assert.ok(err instanceof AppError, String(err));
          assert.equal(err.kind, c.error!.kind, err.message);
          if (c.error!.fields) assert.deepEqual(err.errors?.map((e) => e.field).sort(), [...c.error!.fields].sort());
          if (c.error!.missingFields) assert.deepEqual(err.extensions?.missingFields, c.error!.missingFields);
          const failed = (err.extensions?.failedRequirements as { kind: string }[] | undefined)?.map((f) => f.kind);
          if (c.error!.failed) assert.deepEqual(failed, c.error!.failed);
          else assert.equal(failed, undefined);
          return true;
        },
      );
    });
  }
});

describe('investorMoveRefusal: the plain words an investor reads', () => {
  const open = { steps, links, investorEngagementEnabled: true };
  const table: { name: string; facts: Parameters<typeof investorMoveRefusal>[0]; target: string; refusal: string | undefined }[] = [
    { name: 'open link', facts: { ...open, currentStepId: 'interest' }, target: 'commitment', refusal: undefined },
    { name: 'closed link', facts: { ...open, currentStepId: 'commitment' }, target: 'kyc', refusal: 'You cannot move from commitment to kyc yourself' },
    { name: 'no link at all', facts: { ...open, currentStepId: 'interest' }, target: 'payment', refusal: 'You cannot move from interest to payment yourself' },
    {
      name: 'the step they stand at',
      facts: { ...open, currentStepId: 'interest' },
      target: 'interest',
      refusal: 'You cannot move from interest to interest yourself',
    },
    {
      name: 'engagement disabled',
      facts: { ...open, investorEngagementEnabled: false, currentStepId: 'interest' },
      target: 'commitment',
      refusal: 'This deal does not let investors move themselves',
    },
    {
      name: 'engagement not said',
      facts: { steps, links, currentStepId: 'interest' },
      target: 'commitment',
      refusal: 'This deal does not let investors move themselves',
    },
    {
      name: 'not in the workflow yet',
      facts: { ...open, currentStepId: null },
      target: 'interest',
      refusal: "You cannot enter this deal's workflow yourself: staff add you to it",
    },
  ];
  for (const c of table) test(c.name, () => assert.equal(investorMoveRefusal(c.facts, c.target), c.refusal));
});
