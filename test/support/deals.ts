// Deals, workflows, investors and moves for the investor-side tests, made through the management
// API and the jump (jumpToStep), as a client would. Every call makes new, uniquely named data.
import assert from 'node:assert/strict';
import type { Client } from './app.ts';
import { investorBody, uniqueId } from './fixtures.ts';

export interface Deal {
  dealId: string;
  /** Step ids by role: interest → commit → pay → done (complete); commit → out, pay → out (withdrawn). */
  steps: { interest: string; commit: string; pay: string; done: string; out: string };
}

/**
 * A deal with a workflow: interest (note) → commit (committed_amount, currency; form) → pay
 * (paid_on; requires no pending edit requests) → done (complete), and a withdrawn step `out`
 * reachable from commit and pay. `withdrawn: false` leaves `out` out.
 */
export async function makeDeal(admin: Client, options: { withdrawn?: boolean } = {}): Promise<Deal> {
  const dealId = uniqueId('deal');
  const id = (name: string) => `${dealId}.${name}`;
  const steps = { interest: id('interest'), commit: id('commit'), pay: id('pay'), done: id('done'), out: id('out') };
  const created = await admin.put(`/deals/deal/${dealId}`, { name: `Deal ${dealId}`, currency: 'EUR' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const withdrawn = options.withdrawn ?? true;
  const workflow = await admin.put(`/deals/deal/${dealId}/workflow`, {
    label: 'Subscription',
    description: 'From interest to payment',
    investorEngagementEnabled: true,
    steps: [
      { id: steps.interest, label: 'Interest', type: 'default', stepFields: [{ fieldKey: 'note', required: false }] },
      {
        id: steps.commit,
        label: 'Commitment',
        type: 'default',
        formId: 'form-commitment',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
        ],
      },
      {
        id: steps.pay,
        label: 'Payment',
        type: 'default',
        stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }],
        requirements: [{ kind: 'no-pending-edit-requests' }],
      },
      { id: steps.done, label: 'Complete', type: 'complete', stepFields: [] },
      ...(withdrawn ? [{ id: steps.out, label: 'Withdrawn', type: 'withdrawn', stepFields: [] }] : []),
    ],
    links: [
      { fromStepId: steps.interest, toStepId: steps.commit },
      { fromStepId: steps.commit, toStepId: steps.pay },
      { fromStepId: steps.pay, toStepId: steps.done },
      ...(withdrawn
        ? [
            { fromStepId: steps.commit, toStepId: steps.out },
            { fromStepId: steps.pay, toStepId: steps.out },
          ]
        : []),
    ],
  });
  assert.ok(workflow.status === 200 || workflow.status === 201, JSON.stringify(workflow.body));
  return { dealId, steps };
}

/** A new investor in the directory; returns its id and the body it was created with. */
export async function makeInvestor(admin: Client, overrides: Parameters<typeof investorBody>[0] = {}) {
  const id = uniqueId('inv');
  const body = investorBody(overrides);
  const response = await admin.put(`/investors/${id}`, body);
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return { id, body };
}

/** Moves an investor (jumpToStep) and returns the new event. */
export async function jump(admin: Client, dealId: string, investorUserId: string, targetStepId: string, data: Record<string, string> = {}) {
  const response = await admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId, data });
  assert.equal(response.status, 201, `jump to ${targetStepId}: ${JSON.stringify(response.body)}`);
  return response.body as { id: string; fromStepId: string | null; toStepId: string; data: Record<string, string>; createdByUserId: string; createdAt: string };
}

/** Interest, then commitment of 25000.00 EUR: returns the commitment event. */
export async function commit(admin: Client, deal: Deal, investorUserId: string, amount = '25000.00') {
  await jump(admin, deal.dealId, investorUserId, deal.steps.interest, { note: 'keen' });
  return jump(admin, deal.dealId, investorUserId, deal.steps.commit, { committed_amount: amount, currency: 'EUR' });
}
