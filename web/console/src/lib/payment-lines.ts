// Words for the reconciliation queue: a line's detail with its amounts formatted in the line's
// currency ("received €5,000.00 of €9,999.99"), and what a proposal rests on.
import { formatMoney } from './format.ts';
import type { PaymentLine, PaymentProposal } from './types.ts';

/** The line's detail with every "received X of Y" amount written as money. */
export const lineDetail = (line: Pick<PaymentLine, 'detail' | 'currency'>) =>
  line.detail?.replace(
    /received (\d+(?:\.\d+)?) of (\d+(?:\.\d+)?)/g,
    (_m, got: string, of: string) => `received ${formatMoney(got, line.currency)} of ${formatMoney(of, line.currency)}`,
  ) ?? null;

const reasonWords: Record<string, string> = { 'amount-owed': 'amount owed', name: 'name', company: 'company', reference: 'reference' };

/** "amount owed, name" */
export const reasonsShort = (p: PaymentProposal) => p.reasons.map((r) => reasonWords[r.kind] ?? r.kind).join(', ');

/** The investor as a person reads them: name, deal, and what they still owe. */
export const proposalLabel = (p: PaymentProposal) =>
  `${p.fullName}${p.email ? ` (${p.email})` : ''}, ${p.dealName}${p.stillOwed !== null ? `, still owes ${formatMoney(p.stillOwed, p.currency)}` : ''}`;

export const investorHref = (dealId: string, investorUserId: string) => `#/deals/${encodeURIComponent(dealId)}/investors/${encodeURIComponent(investorUserId)}`;
