// A deal whose investors pay by bank transfer: interest → commitment → payment → complete, with
// payment settings (payment step, amount and date fields, an asset at a price per unit).
import { readFileSync } from 'node:fs';
import { checkReference, referenceFromBody } from '../../src/domain/payment-reference.ts';
import type { Client, TestApp } from './app.ts';
import { createDeal, createInvestor, jump } from './deals.ts';
import { uniqueAssetId, uniqueId } from './fixtures.ts';

export const fixture = (name: string) => readFileSync(new URL(`../payments/fixtures/${name}`, import.meta.url), 'utf8');

export interface PayingDeal {
  dealId: string;
  assetId: number;
  step: (name: string) => string;
  investors: Record<string, string>;
  refs: Record<string, string>;
}

/** Investors by letter with their commitment in EUR. */
export const commitments: Record<string, string> = { A: '25000.00', B: '10000.00', C: '20000.00', D: '5000.00', E: '10000.00', F: '8000.00', G: '9000.00' };

export async function payingDeal(api: Client, options: { pricePerUnit?: string; unitDecimals?: number; letters?: string[] } = {}): Promise<PayingDeal> {
  const { dealId, step } = await createDeal(api, { workflow: 'paying' });
  const assetId = uniqueAssetId();
  await api.put(`/portfolio/assets/${assetId}`, { name: 'Harbour shares', currency: 'EUR' });
  const settings = await api.put(`/deals/deal/${dealId}/payment-settings`, {
    paymentStepId: step('payment'),
    amountFieldKey: 'amount_received',
    dateFieldKey: 'received_on',
    assetId,
    pricePerUnit: options.pricePerUnit ?? '100',
    unitDecimals: options.unitDecimals ?? 0,
  });
  if (settings.status !== 201) throw new Error(JSON.stringify(settings.body));
  const investors: Record<string, string> = {};
  const refs: Record<string, string> = {};
  for (const letter of options.letters ?? Object.keys(commitments)) {
    const { id } = await createInvestor(api, { forename: letter, surname: 'Investor' }, uniqueId(`inv${letter}`));
    investors[letter] = id;
    await jump(api, dealId, id, step('commitment'), { committed_amount: commitments[letter]!, currency: 'EUR' });
  }
  for (const entry of (await api.get(`/deals/deal/${dealId}/all-payment-refernces`)).body) {
    const letter = Object.keys(investors).find((l) => investors[l] === entry.investorUserId)!;
    refs[letter] = entry.paymentReference;
  }
  return { dealId, assetId, step, investors, refs };
}

const grouped = (ref: string) => ref.replace(/(.{4})(?=.)/g, '$1 ');

/** Fills a fixture's {{REF_…}} placeholders with the deal's references. */
export function fill(text: string, deal: PayingDeal): string {
  const a = deal.refs['A']!;
  // Two adjacent different digits of the body swapped: the check digits no longer hold (a swap
  // always changes the number mod 97). The text is read in groups of four, and a shorter run of
  // groups is tried too, which passes its check digits by chance 1 time in 97: the first swap
  // for which no run of groups passes is used, so the fixture is a mistyped reference every time.
  const body = a.slice(4);
  const swapped = (i: number) => `RF${a.slice(2, 4)}${body.slice(0, i)}${body[i + 1]}${body[i]}${body.slice(i + 2)}`;
  const runs = (ref: string) =>
    grouped(ref)
      .split(' ')
      .map((_g, k, all) => all.slice(0, k + 1).join(''));
  const i = [...body].findIndex((c, k) => k + 1 < body.length && c !== body[k + 1] && runs(swapped(k)).every((r) => checkReference(r) !== 'valid'));
  const typo = swapped(i);
  return text
    .replaceAll('{{REF_A_GROUPED}}', grouped(a))
    .replaceAll('{{REF_B_LOWER_HYPHENS}}', (deal.refs['B'] ?? '').toLowerCase().replace(/(.{4})(?=.)/g, '$1-'))
    .replaceAll('{{REF_C_GROUPED}}', grouped(deal.refs['C'] ?? ''))
    .replaceAll('{{REF_TYPO}}', grouped(typo))
    .replaceAll('{{REF_UNKNOWN}}', referenceFromBody('999999999999999'))
    .replace(/\{\{REF_([A-Z])\}\}/g, (_m, l: string) => deal.refs[l] ?? '');
}

/** POST a statement body with a content type. */
export async function postStatement(t: TestApp, body: string, contentType = 'application/xml', query = '') {
  const response = await t.app.inject({
    method: 'POST',
    url: `/payments/statements${query}`,
    payload: body,
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
  });
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
}
