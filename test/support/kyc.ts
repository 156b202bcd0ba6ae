// KYC evidence in tests: a deal whose investors pass a KYC step before they may commit, the deal's
// KYC settings, small files of each type taken (PDF, JPEG, PNG) and an upload as a client sends one.
import assert from 'node:assert/strict';
import type { Api } from '../../src/http/context.ts';
import { type Client, client, type StartedApp } from './app.ts';
import { createInvestor, jump } from './deals.ts';
import { uniqueId } from './fixtures.ts';
import { commitmentStep } from './workflows.ts';

/**
 * interest → kyc → commitment (KYC level ≥ 2 and a current category statement, self-certified
 * sophisticated or certified high net worth) → payment → complete. Investors move themselves.
 */
export function kycWorkflow(prefix: string) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Harbour KYC',
    description: 'KYC before commitment',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [] },
      { id: s('kyc'), label: 'KYC', type: 'default', stepFields: [] },
      {
        ...commitmentStep(s('commitment')),
        requirements: [
          { kind: 'kyc-level', minimumLevel: 2 },
          { kind: 'investor-category', categories: ['self-certified-sophisticated', 'certified-high-net-worth'] },
        ],
      },
      { id: s('payment'), label: 'Payment', type: 'default', stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }] },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('kyc'), investorMay: true },
      { fromStepId: s('kyc'), toStepId: s('commitment'), investorMay: true },
      { fromStepId: s('commitment'), toStepId: s('payment') },
      { fromStepId: s('payment'), toStepId: s('complete') },
    ],
  };
}

/** A new deal on kycWorkflow asking for identity and proof of address, for level 2. */
export async function kycDeal(admin: Client, documents: string[] = ['identity', 'proof-of-address']) {
  const dealId = uniqueId('deal');
  assert.equal((await admin.put(`/deals/deal/${dealId}`, { name: `KYC ${dealId}`, currency: 'EUR' })).status, 201);
  const set = await admin.put(`/deals/deal/${dealId}/workflow`, kycWorkflow(dealId));
  assert.equal(set.status, 201, JSON.stringify(set.body));
  const step = (name: string) => `${dealId}.${name}`;
  const settings = await admin.put(`/deals/deal/${dealId}/kyc-settings`, { stepId: step('kyc'), level: 2, documents });
  assert.equal(settings.status, 200, JSON.stringify(settings.body));
  return { dealId, step };
}

/** A new kycDeal, and a new investor who moved themselves into its KYC step (its requests open), with their token. */
export async function investorAtKyc(t: StartedApp) {
  const deal = await kycDeal(t.admin);
  const { id } = await createInvestor(t.admin, { kycCheckLevel: null });
  await jump(t.admin, deal.dealId, id, deal.step('interest'));
  const token = await t.investorToken(id);
  const moved = await client(t.app, token).post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: id, targetStepId: deal.step('kyc'), data: {} });
  assert.equal(moved.status, 201, moved.text);
  return { deal, id, token, target: { dealId: deal.dealId, investorUserId: id } };
}

export const files = {
  pdf: (text = 'passport') => Buffer.concat([Buffer.from(`%PDF-1.7\n% ${text}\n`), Buffer.from('\n%%EOF\n')]),
  png: () =>
    Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4f40000000049454e44ae426082',
      'hex',
    ),
  jpeg: () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF scan of a utility bill'), Buffer.from([0xff, 0xd9])]),
};

/** Uploads a KYC document as `token` (a bearer token); the raw answer. */
export async function uploadKyc(
  app: Api,
  token: string,
  target: { dealId: string; investorUserId: string },
  kind: string,
  body: Buffer,
  contentType = 'application/pdf',
  fileName?: string,
) {
  const query = new URLSearchParams({ kind, ...(fileName ? { fileName } : {}) });
  const response = await app.inject({
    method: 'POST',
    url: `/deals/deal/${target.dealId}/kyc/${target.investorUserId}/documents?${query}`,
    payload: body,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
  });
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined, text: response.body };
}
