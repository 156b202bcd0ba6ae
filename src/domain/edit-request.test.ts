import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { amountFieldsOfEvent, checkRequestData, withdrawalTarget } from './edit-request.ts';
import type { Step, StepField, StepType, Workflow } from './workflow.ts';

const field = (fieldKey: string, kind: StepField['kind'] = 'text'): StepField => ({ fieldKey, required: false, kind, label: null, options: null });
const step = (id: string, type: StepType, stepFields: StepField[] = []): Step => ({ id, label: id, type, stepFields, requirements: [], formId: null });

// interest → commit → pay → complete, with commit → out and pay → out2 (two withdrawn steps).
const workflow: Pick<Workflow, 'steps' | 'links'> = {
  steps: [
    step('interest', 'default', [field('note'), field('indicative', 'amount')]),
    step('commit', 'default', [field('committed_amount', 'amount'), field('currency', 'currency')]),
    step('pay', 'default', [field('paid_amount', 'amount')]),
    step('done', 'complete'),
    step('out2', 'withdrawn'),
    step('out', 'withdrawn'),
  ],
  links: [
    { fromStepId: 'interest', toStepId: 'commit', investorMay: false },
    { fromStepId: 'commit', toStepId: 'pay', investorMay: false },
    { fromStepId: 'pay', toStepId: 'done', investorMay: false },
    { fromStepId: 'commit', toStepId: 'out', investorMay: false },
    { fromStepId: 'pay', toStepId: 'out2', investorMay: false },
  ],
};

describe('edit request rules', () => {
  test("amount fields of an event: its target step's, and amount keys it holds from intermediary steps", () => {
    assert.deepEqual([...amountFieldsOfEvent({}, 'commit', workflow)].sort(), ['committed_amount']);
    assert.deepEqual([...amountFieldsOfEvent({ indicative: '5', note: 'x', currency: 'EUR' }, 'commit', workflow)].sort(), ['committed_amount', 'indicative']);
    assert.deepEqual([...amountFieldsOfEvent({ constructor: '1', __proto__x: '2' }, 'done', workflow)], []);
  });

  const amounts = new Set(['committed_amount']);
  const cases: [string, Parameters<typeof checkRequestData>[0], Record<string, unknown> | null | undefined, string[]][] = [
    ['amount change with a new amount', 'Investment Amount', { committed_amount: '30000.00' }, []],
    ['amount change without newData', 'Investment Amount', undefined, ['newData']],
    ['amount change with null newData', 'Investment Amount', null, ['newData']],
    ['amount change with empty newData', 'Investment Amount', {}, ['newData']],
    ['amount change naming a non-amount field', 'Investment Amount', { currency: 'USD' }, ['newData.currency']],
    ['amount change naming a prototype key', 'Investment Amount', { constructor: '1' }, ['newData.constructor']],
    ['amount change with a bad amount', 'Investment Amount', { committed_amount: 'abc' }, ['newData.committed_amount']],
    ['amount change with a negative amount', 'Investment Amount', { committed_amount: '-5' }, ['newData.committed_amount']],
    ['amount change with a number, not a string', 'Investment Amount', { committed_amount: 5 }, ['newData.committed_amount']],
    ['withdrawal without newData', 'Withdraw Investment', undefined, []],
    ['withdrawal with null newData', 'Withdraw Investment', null, []],
    ['withdrawal with newData', 'Withdraw Investment', { committed_amount: '1' }, ['newData']],
  ];
  for (const [name, type, newData, fields] of cases) {
    test(`request data: ${name}`, () => {
      assert.deepEqual(
        checkRequestData(type, newData, amounts).map((e) => e.field),
        fields,
      );
    });
  }

  test('withdrawal target: the first withdrawn step in document order reachable from the current step', () => {
    const from = (current: string) => {
      const target = withdrawalTarget(workflow, current);
      return target.ok ? target.step.id : `409: ${target.detail}`;
    };
    assert.equal(from('interest'), 'out2', 'both reachable: document order decides');
    assert.equal(from('commit'), 'out2');
    assert.equal(from('pay'), 'out2', 'only out2 is reachable from pay');
    assert.match(from('done'), /^409: No "withdrawn" step/);
    assert.match(from('out'), /^409: .*already withdrawn/);
    const none = withdrawalTarget({ steps: workflow.steps.filter((s) => s.type !== 'withdrawn'), links: [] }, 'interest');
    assert.equal(none.ok, false);
    assert.match(none.ok ? '' : none.detail, /no step of type "withdrawn"/);
  });
});
