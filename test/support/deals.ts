// The builders of deals, investors and moves, made through the management API and the jump
// (moveToStep) as a client would. Every call makes new, uniquely named data.
import assert from 'node:assert/strict';
import type { Client, TestApp } from './app.ts';
import { investorBody, uniqueId } from './fixtures.ts';
import { type StepName, type WorkflowName, workflows } from './workflows.ts';

export interface TestDeal<S extends string = StepName<'series-a'>> {
  dealId: string;
  /** The full ids of this deal's steps by name. */
  steps: Record<S, string>;
  /** The full id of one of this deal's steps. */
  step(name: string): string;
  /** Creates an investor in the directory and returns their id. */
  addInvestor(overrides?: Parameters<typeof investorBody>[0]): Promise<string>;
  /** Moves an investor and asserts the move succeeded; returns the event. */
  move(investorUserId: string, stepName: string, data?: Record<string, string>): Promise<any>;
}

/** A deal on the subscription workflow: interest → commit → pay → done, and out (withdrawn). */
export type SubscriptionDeal = TestDeal<StepName<'subscription'>>;

/**
 * A new deal in EUR with one of the workflows of workflows.ts: `series-a` (the default),
 * `subscription` (`withdrawn: false` leaves its withdrawn step out) or `paying`.
 */
export async function createDeal(admin: Client): Promise<TestDeal>;
export async function createDeal<W extends WorkflowName>(
  admin: Client,
  options: { workflow: W; withdrawn?: boolean; name?: string },
): Promise<TestDeal<StepName<W>>>;
export async function createDeal(admin: Client, options: { workflow?: WorkflowName; withdrawn?: boolean; name?: string } = {}): Promise<TestDeal<string>> {
  const workflow = workflows[options.workflow ?? 'series-a'];
  const dealId = uniqueId('deal');
  const created = await admin.put(`/deals/deal/${dealId}`, { name: options.name ?? workflow.dealName(dealId), currency: 'EUR' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const set = await admin.put(`/deals/deal/${dealId}/workflow`, workflow.body(dealId, { withdrawn: options.withdrawn ?? true }));
  assert.equal(set.status, 201, JSON.stringify(set.body));
  const step = (name: string) => `${dealId}.${name}`;
  return {
    dealId,
    steps: Object.fromEntries(workflow.steps.map((name) => [name, step(name)])),
    step,
    addInvestor: async (overrides) => (await createInvestor(admin, overrides)).id,
    move: async (investorUserId, stepName, data = {}) => jump(admin, dealId, investorUserId, step(stepName), data),
  };
}

/** A new investor in the directory; returns its id and the body it was created with. */
export async function createInvestor(admin: Client, overrides: Parameters<typeof investorBody>[0] = {}, id = uniqueId('inv')) {
  const body = investorBody(overrides);
  const response = await admin.put(`/investors/${id}`, body);
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return { id, body };
}

/** Moves an investor (moveToStep), asserts the move succeeded and returns the new event. */
export async function jump(admin: Client, dealId: string, investorUserId: string, targetStepId: string, data: Record<string, string> = {}) {
  const response = await admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId, data });
  assert.equal(response.status, 201, `jump to ${targetStepId}: ${JSON.stringify(response.body)}`);
  return response.body as { id: string; fromStepId: string | null; toStepId: string; data: Record<string, string>; createdByUserId: string; createdAt: string };
}

/** On a subscription deal: interest, then commitment of 25000.00 EUR; returns the commitment event. */
export async function commit(admin: Client, deal: SubscriptionDeal, investorUserId: string, amount = '25000.00') {
  await jump(admin, deal.dealId, investorUserId, deal.steps.interest, { note: 'keen' });
  return jump(admin, deal.dealId, investorUserId, deal.steps.commit, { committed_amount: amount, currency: 'EUR' });
}

/** POST a moves CSV to the deal's move import as the admin; the raw answer (status and body text). */
export async function importMoves(t: TestApp, dealId: string, csv: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/deals/deal/${dealId}/jump-to-step/import`,
    payload: csv,
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
  });
  return { statusCode: response.statusCode, body: response.body };
}
