// A subscription deal (interest → commit → pay → done, out) whose links from interest to commit and
// from commit to out are open to investors (investorMay), the others closed; and an investor who
// stands at interest, put there by staff, with their own token.
import assert from 'node:assert/strict';
import { client, type Client, type TestApp } from './app.ts';
import { createInvestor, jump } from './deals.ts';
import { uniqueId } from './fixtures.ts';
import { subscriptionWorkflow } from './workflows.ts';

export interface OpenDeal {
  dealId: string;
  step: (name: 'interest' | 'commit' | 'pay' | 'done' | 'out') => string;
}

/** Which links are open to investors: from → to step names. */
export const OPEN_LINKS = [
  ['interest', 'commit'],
  ['commit', 'out'],
] as const;

export function openWorkflow(dealId: string, options: { engagement?: boolean } = {}) {
  const body = subscriptionWorkflow(dealId);
  const name = (id: string) => id.slice(dealId.length + 1);
  return {
    ...body,
    investorEngagementEnabled: options.engagement ?? true,
    links: body.links.map((l) => ({ ...l, investorMay: OPEN_LINKS.some(([from, to]) => name(l.fromStepId) === from && name(l.toStepId) === to) })),
  };
}

export async function createOpenDeal(admin: Client, options: { engagement?: boolean; currency?: string; name?: string } = {}): Promise<OpenDeal> {
  const dealId = uniqueId('deal');
  const created = await admin.put(`/deals/deal/${dealId}`, { name: options.name ?? `Open ${dealId}`, currency: options.currency ?? 'EUR' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const set = await admin.put(`/deals/deal/${dealId}/workflow`, openWorkflow(dealId, options));
  assert.equal(set.status, 201, JSON.stringify(set.body));
  return { dealId, step: (name) => `${dealId}.${name}` };
}

/** A new investor at the deal's interest step (moved there by staff), with a client on their own token. */
export async function investorAtInterest(t: TestApp, admin: Client, deal: OpenDeal): Promise<{ id: string; own: Client }> {
  const { id } = await createInvestor(admin);
  await jump(admin, deal.dealId, id, deal.step('interest'), { note: 'keen' });
  return { id, own: client(t.app, await t.investorToken(id)) };
}
