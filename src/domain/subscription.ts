// Subscription transactions (createSubscription): the booking of an investment into a portfolio.
import type { Decimal } from './money.ts';

export const fundingSources = ['cash_account', 'bank_transfer', 'card', 'other'] as const;
export type FundingSource = (typeof fundingSources)[number];

export interface Asset {
  id: number;
  name: string;
  /** ISO 4217. */
  currency: string;
  createdAt: string;
  updatedAt: string;
}

/** What a caller books; amounts are exact decimals (see money.ts), dates `YYYY-MM-DD`. */
export interface SubscriptionInput {
  assetId: number;
  investorId: string;
  units: Decimal;
  pricePerUnit: Decimal;
  total: Decimal;
  fee: Decimal;
  fundingSource: FundingSource;
  invoiceDate: string;
  settlementDate: string;
  source: string | null;
  sourceId: string | null;
  description: string | null;
}

export interface Subscription extends SubscriptionInput {
  id: string;
  /** The asset's currency, in which every amount is denominated. */
  currency: string;
  createdByUserId: string;
  createdAt: string;
}

/** `YYYY-MM-DD` dates compare as text. */
export const settlesBeforeInvoice = (input: Pick<SubscriptionInput, 'invoiceDate' | 'settlementDate'>) => input.settlementDate < input.invoiceDate;

/** Which subscriptions a list or an export reads (every member optional: none reads all). */
export interface SubscriptionFilter {
  investorId?: string;
  assetId?: number;
  source?: string;
  sourceId?: string;
}
