// Two investors, each in their own deal with data of every kind the service holds (a journey,
// events, an edit request, a form implementation, a payment reference, a subscription), made
// through HTTP as far as the routes exist. The access sweep asks for B's data as A; the fuzzer
// aims at these ids so its requests reach the handlers, not only the validators.
import type { Client } from './http.ts';
import { seedAsset, seedDeal, subscriptionBody } from './fixtures.ts';
import type { Hints } from './openapi.ts';

export interface Party {
  dealId: string;
  investorUserId: string;
  stepIds: string[];
  eventIds: string[];
  requestIds: string[];
  formImplementationIds: string[];
  references: string[];
  assetIds: number[];
  subscriptionIds: string[];
  /** Text that only this party's data holds: it must never appear in an answer to the other one. */
  secrets: string[];
}

export interface World {
  a: Party;
  b: Party;
  notes: string[];
}

async function party(client: Client, admin: string, notes: string[], index: number): Promise<Party> {
  const deal = await seedDeal(client, admin, 1);
  const investorUserId = deal.investors[0]!;
  const p: Party = {
    dealId: deal.dealId,
    investorUserId,
    stepIds: deal.workflow ? [...deal.chain, deal.withdrawnStepId] : [],
    eventIds: [],
    requestIds: [],
    formImplementationIds: [],
    references: [],
    assetIds: [],
    subscriptionIds: [],
    secrets: [],
  };
  const investor = (await client.get(`/investors/${investorUserId}`, admin)).json;
  if (investor?.contact?.contact?.email) p.secrets.push(investor.contact.contact.email, investor.remoteId);
  if (deal.workflow) {
    for (const [i, target] of [deal.chain[0], deal.chain[1]].entries()) {
      const move = await client.post(
        `/deals/deal/${deal.dealId}/jump-to-step`,
        { investorUserId, targetStepId: target, data: i === 1 ? { committed_amount: `${1234 + index}.56`, currency: 'EUR' } : {} },
        admin,
      );
      if (move.status === 201 && move.json?.id) p.eventIds.push(move.json.id);
      else notes.push(`jump-to-step: ${move.status}`);
    }
    const form = await client.get(
      `/deals/workflow/step/${deal.formStepId}/investor-form-implementation?dealId=${deal.dealId}&investorUserId=${investorUserId}`,
      admin,
    );
    if (form.status === 200 && form.json?.id) p.formImplementationIds.push(form.json.id);
    const refs = await client.get(`/deals/deal/${deal.dealId}/all-payment-refernces`, admin);
    if (refs.status === 200 && Array.isArray(refs.json)) {
      for (const r of refs.json) if (r.paymentReference) p.references.push(r.paymentReference);
      p.secrets.push(...p.references);
    }
    if (p.eventIds[1]) {
      const request = await client.post(
        '/deals/request-to-edit',
        { workflowEventId: p.eventIds[1], type: 'Investment Amount', reason: 'typo', newData: { committed_amount: `${2000 + index}.00` } },
        admin,
      );
      if (request.status === 201 && request.json?.id) p.requestIds.push(request.json.id);
    }
  }
  const assetId = await seedAsset(client, admin);
  if (assetId !== undefined) {
    p.assetIds.push(assetId);
    const sub = await client.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, investorUserId, `world-${investorUserId}`), admin);
    if (sub.status === 201 && sub.json?.id !== undefined) p.subscriptionIds.push(String(sub.json.id));
  }
  return p;
}

export async function buildWorld(client: Client, admin: string): Promise<World> {
  const notes: string[] = [];
  const a = await party(client, admin, notes, 1);
  const b = await party(client, admin, notes, 2);
  return { a, b, notes };
}

/** Parameter and body values naming this party's records, by the names routes use for them. */
export function hintsOf(p: Party): Hints {
  const ids = (xs: unknown[]) => xs.filter((x) => x !== undefined);
  return {
    dealId: [p.dealId],
    investorUserId: [p.investorUserId],
    investor_id: [p.investorUserId],
    investorId: [p.investorUserId],
    stepId: ids(p.stepIds.slice(1, 2).concat(p.stepIds)),
    targetStepId: ids(p.stepIds),
    expectedCurrentStepId: ids(p.stepIds),
    eventId: ids(p.eventIds),
    workflowEventId: ids(p.eventIds),
    requestId: ids(p.requestIds),
    editRequestId: ids(p.requestIds),
    formImplementationId: ids(p.formImplementationIds),
    reference: ids(p.references),
    paymentReference: ids(p.references),
    assetId: ids(p.assetIds),
    asset_id: ids(p.assetIds),
    subscriptionId: ids(p.subscriptionIds),
    transactionId: ids(p.subscriptionIds),
    id: ids(p.subscriptionIds.length ? p.subscriptionIds : p.requestIds),
  };
}
