// What re-applying a workflow changes for investors on it, case by case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Step, Workflow } from './workflow.ts';
import { workflowChanges } from './workflow-changes.ts';

const step = (id: string, extra: Partial<Step> = {}): Step => ({
  id,
  label: id.toUpperCase(),
  type: 'default',
  stepFields: [],
  requirements: [],
  formId: null,
  ...extra,
});
const before: Workflow = {
  id: 'w',
  dealId: 'd',
  label: 'W',
  description: '',
  investorEngagementEnabled: true,
  version: 1,
  steps: [step('a'), step('b', { stepFields: [{ fieldKey: 'amount', required: false, kind: 'amount', label: null, options: null }] }), step('c'), step('x')],
  links: [
    { fromStepId: 'a', toStepId: 'b', investorMay: false },
    { fromStepId: 'b', toStepId: 'c', investorMay: true },
    { fromStepId: 'a', toStepId: 'x', investorMay: false },
  ],
};
const doc = (steps: Step[], links = before.links) => ({ label: 'W', description: '', investorEngagementEnabled: true, steps, links });
const kinds = (changes: { kind: string }[]) => changes.map((c) => c.kind);

test('a first workflow changes nothing for anyone', () => {
  assert.deepEqual(workflowChanges(undefined, doc(before.steps), new Map()), []);
});

test('the same document changes nothing', () => {
  assert.deepEqual(workflowChanges(before, doc(before.steps), new Map([['a', 3]])), []);
});

test('removing a step is blocking only when investors stand on it', () => {
  const links = before.links.filter((l) => l.toStepId !== 'x');
  const empty = workflowChanges(
    before,
    doc(
      before.steps.filter((s) => s.id !== 'x'),
      links,
    ),
    new Map(),
  );
  assert.deepEqual(kinds(empty), ['step-removed']);
  assert.equal(empty[0]!.blocking, false);
  const occupied = workflowChanges(
    before,
    doc(
      before.steps.filter((s) => s.id !== 'x'),
      links,
    ),
    new Map([['x', 2]]),
  );
  assert.equal(occupied[0]!.blocking, true);
  assert.equal(occupied[0]!.investors, 2);
  assert.match(occupied[0]!.detail, /2 investors stand on it/);
});

test('renames, type changes, new and newly required fields, removed fields and requirements are each reported with the investors there', () => {
  const after = [
    step('a', { label: 'Interest' }),
    step('b', {
      stepFields: [
        { fieldKey: 'amount', required: true, kind: 'amount', label: null, options: null },
        { fieldKey: 'ccy', required: true, kind: 'currency', label: 'Currency', options: null },
      ],
    }),
    step('c', { type: 'complete', requirements: [{ kind: 'kyc-level', minimumLevel: 2 }] }),
    step('x'),
  ];
  const changes = workflowChanges(
    before,
    doc(after),
    new Map([
      ['b', 4],
      ['c', 1],
    ]),
  );
  assert.deepEqual(kinds(changes).sort(), ['field-added', 'field-now-required', 'requirements-changed', 'step-renamed', 'step-type-changed'].sort());
  assert.equal(changes.find((c) => c.kind === 'field-now-required')!.investors, 4);
  assert.match(changes.find((c) => c.kind === 'field-added')!.detail, /Currency \(required\)/);
  assert.match(changes.find((c) => c.kind === 'step-type-changed')!.detail, /1 investor there now count as complete/);
  const dropped = workflowChanges(before, doc([step('a'), step('b'), step('c'), step('x')]), new Map());
  assert.deepEqual(kinds(dropped), ['field-removed']);
});

test('added and removed links name the steps and the investors who gain or lose a way forward', () => {
  const links = [
    { fromStepId: 'a', toStepId: 'b', investorMay: false },
    { fromStepId: 'b', toStepId: 'c', investorMay: true },
    { fromStepId: 'b', toStepId: 'x', investorMay: false },
  ];
  const changes = workflowChanges(
    before,
    doc(before.steps, links),
    new Map([
      ['a', 5],
      ['b', 1],
    ]),
  );
  assert.deepEqual(kinds(changes), ['link-removed', 'link-added']);
  assert.match(changes[0]!.detail, /A no longer leads to X: 5 investors there lose that way forward/);
  assert.match(changes[1]!.detail, /B now leads to X: 1 investor there may move on that way/);
});

test('opening or closing a link to investors is a change of its own', () => {
  const links = before.links.map((l) =>
    l.fromStepId === 'a' && l.toStepId === 'b' ? { ...l, investorMay: true } : l.fromStepId === 'b' ? { ...l, investorMay: false } : l,
  );
  const changes = workflowChanges(before, doc(before.steps, links), new Map([['a', 2]]));
  assert.deepEqual(kinds(changes), ['link-opened-to-investors', 'link-closed-to-investors']);
  assert.equal(changes[0]!.stepId, 'a');
  assert.equal(changes[0]!.investors, 2);
  assert.match(changes[0]!.detail, /A may move themselves on to B: 2 investors/);
  assert.match(changes[1]!.detail, /no longer move themselves on to C; staff still may/);
});
