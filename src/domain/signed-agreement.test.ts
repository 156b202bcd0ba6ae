// The signed-agreement requirement, table-tested: a move into a step that requires the subscription
// agreement is refused (422, naming the document) until it is signed and countersigned, whoever
// asks for the move (staff, or the investor along a link open to them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from './errors.ts';
import { type MoveRuleFacts, planMove } from './move-rules.ts';
import type { AgreementState, Step } from './workflow.ts';

const step = (id: string, requirements: Step['requirements'] = []): Step => ({ id, label: id, type: 'default', stepFields: [], requirements, formId: null });
const facts = (agreement: AgreementState | undefined): MoveRuleFacts => ({
  steps: [step('signing'), step('closing', [{ kind: 'signed-agreement' }]), step('side', [])],
  links: [
    { fromStepId: 'signing', toStepId: 'closing', investorMay: true },
    { fromStepId: 'signing', toStepId: 'side', investorMay: true },
  ],
  currentStepId: 'signing',
  visitedStepIds: ['signing'],
  captured: new Map(),
  investor: { kycCheckLevel: null, classes: [], ...(agreement ? { agreement } : {}) },
  pendingEditRequests: 0,
  investorEngagementEnabled: true,
});

const cases: { name: string; agreement: AgreementState | undefined; target: string; byInvestor: boolean; refusal?: RegExp }[] = [
  { name: 'not known: refused', agreement: undefined, target: 'closing', byInvestor: false, refusal: /subscription agreement is not signed yet/ },
  { name: 'to sign: refused', agreement: 'to-sign', target: 'closing', byInvestor: false, refusal: /subscription agreement is not signed yet/ },
  { name: 'signed, not countersigned: refused', agreement: 'signed', target: 'closing', byInvestor: false, refusal: /not countersigned yet/ },
  { name: 'countersigned: allowed', agreement: 'countersigned', target: 'closing', byInvestor: false },
  { name: "the investor's own move, to sign: refused", agreement: 'to-sign', target: 'closing', byInvestor: true, refusal: /not signed yet/ },
  { name: "the investor's own move, signed only: refused", agreement: 'signed', target: 'closing', byInvestor: true, refusal: /not countersigned/ },
  { name: "the investor's own move, countersigned: allowed", agreement: 'countersigned', target: 'closing', byInvestor: true },
  { name: 'a step without the requirement: allowed unsigned', agreement: 'to-sign', target: 'side', byInvestor: true },
];

describe('the signed-agreement requirement', () => {
  for (const c of cases) {
    test(c.name, () => {
      const move = () => planMove(facts(c.agreement), { targetStepId: c.target, data: new Map(), ...(c.byInvestor ? { byInvestor: true } : {}) });
      if (!c.refusal) {
        assert.equal(move().direction, 'forward');
        return;
      }
      assert.throws(move, (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.kind, 'unprocessable');
        const failed = err.extensions?.failedRequirements as { kind: string; detail: string }[];
        assert.deepEqual(
          failed.map((f) => f.kind),
          ['signed-agreement'],
        );
        assert.match(failed[0]!.detail, c.refusal!);
        return true;
      });
    });
  }
});
