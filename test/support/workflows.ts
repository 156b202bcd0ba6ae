// A deal with a workflow, for tests of workflows and journeys. Step ids are global, so every deal's
// steps carry the deal's unique prefix: `step('commitment')` is that deal's commitment step.
import assert from 'node:assert/strict';
import type { Client } from './app.ts';
import { investorBody, uniqueId } from './fixtures.ts';

//            ┌→ kyc (kyc-level ≥ 2) ─┐
// interest → commitment               → documents → payment → complete
//            └→ withdrawn
export function workflowBody(prefix: string) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Series A',
    description: 'Investor journey for the Series A round',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [{ fieldKey: 'note', required: false }] },
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
        ],
      },
      { id: s('kyc'), label: 'KYC', type: 'default', stepFields: [{ fieldKey: 'kyc_ref', required: true }], requirements: [{ kind: 'kyc-level', minimumLevel: 2 }] },
      {
        id: s('documents'),
        label: 'Documents',
        type: 'default',
        stepFields: [{ fieldKey: 'signed', required: true, kind: 'choice', options: ['yes', 'no'] }],
        formId: 'form-documents',
      },
      { id: s('payment'), label: 'Payment', type: 'default', stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }] },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
      { id: s('withdrawn'), label: 'Withdrawn', type: 'withdrawn', stepFields: [{ fieldKey: 'reason', required: false }] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commitment') },
      { fromStepId: s('commitment'), toStepId: s('kyc') },
      { fromStepId: s('kyc'), toStepId: s('documents') },
      { fromStepId: s('documents'), toStepId: s('payment') },
      { fromStepId: s('payment'), toStepId: s('complete') },
      { fromStepId: s('commitment'), toStepId: s('withdrawn') },
    ],
  };
}

export interface TestDeal {
  dealId: string;
  /** The full id of one of this deal's steps. */
  step(name: string): string;
  /** Creates an investor in the directory and returns their id. */
  addInvestor(overrides?: Parameters<typeof investorBody>[0]): Promise<string>;
  /** Moves an investor and asserts the move succeeded; returns the event. */
  move(investorUserId: string, stepName: string, data?: Record<string, string>): Promise<any>;
}

export async function createDeal(admin: Client): Promise<TestDeal> {
  const dealId = uniqueId('deal');
  assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: 'Series A', currency: 'EUR' })).status, 201);
  const set = await admin.put(`/deals/deal/${dealId}/workflow`, workflowBody(dealId));
  assert.equal(set.status, 201, JSON.stringify(set.body));
  const step = (name: string) => `${dealId}.${name}`;
  return {
    dealId,
    step,
    async addInvestor(overrides) {
      const id = uniqueId('inv');
      assert.equal((await admin.put(`/investors/${id}`, investorBody(overrides))).status, 201);
      return id;
    },
    async move(investorUserId, stepName, data = {}) {
      const response = await admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step(stepName), data });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    },
  };
}
