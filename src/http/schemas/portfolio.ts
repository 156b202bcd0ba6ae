// createSubscription's body (`Portfolio_CreateSubscriptionRequest`: snake_case field names are the wire
// contract), the stored subscription record, and assets. Amounts are JSON numbers on the wire and
// exact decimals inside: converted here, at the edge, and nowhere else.
import { type Static, Type } from 'typebox';
import { decimalOf, numberOf } from '../../domain/money.ts';
import { fundingSources, type Subscription, type SubscriptionInput } from '../../domain/subscription.ts';
import { ExternalId, StrictObject, Timestamp } from './common.ts';

/** Positive integer ids of assets (the interface's `asset_id` is a number), up to 15 digits; bigint in storage. */
export const AssetId = Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 });

/**
 * The same id in a path or query string, kept as text and converted by `assetIdOf`: TypeBox's
 * conversion would quietly turn "1.5" into 1 and "0x10" into 16, and "01" is not how the id is
 * written. The document shows it as the integer it is (`x-document`, openapi-document.ts), the same
 * type as `asset_id` in bodies, so a client holds one type for it.
 */
export const AssetIdText = Type.String({
  pattern: '^[1-9][0-9]{0,14}$',
  'x-document': { type: 'integer', minimum: 1, maximum: 999_999_999_999_999, description: 'positive integer, up to 15 digits: the asset_id of subscriptions' },
});
export const assetIdOf = (text: string) => Number(text);

/** Upper bound of every amount: 15 digits before the point is already more than any real booking. */
const MAX_AMOUNT = 1e15;
const Amount = (description: string, positive: boolean) =>
  Type.Number({ ...(positive ? { exclusiveMinimum: 0 } : { minimum: 0 }), maximum: MAX_AMOUNT, description });
const Day = (description: string) => Type.String({ format: 'date', description: `${description}: YYYY-MM-DD, a date that exists` });
const OptionalText = (max: number) => Type.Optional(Type.String({ maxLength: max }));

export const SubscriptionBody = StrictObject(
  {
    asset_id: AssetId,
    investor_id: ExternalId,
    units: Amount('number of units, greater than 0; at most 15 significant digits', true),
    price_per_unit: Amount('price of one unit in the asset currency, greater than 0', true),
    total: Amount('units × price_per_unit, to the cent (422 otherwise, stating the expected total)', false),
    fee: Type.Optional(Amount('charged on top of total; default 0', false)),
    funding_source: Type.Union(fundingSources.map((f) => Type.Literal(f))),
    invoice_date: Day('invoice date'),
    settlement_date: Day('settlement date, not before invoice_date (422 otherwise)'),
    source: OptionalText(200),
    source_id: OptionalText(200),
    description: OptionalText(10_000),
  },
  { title: 'Portfolio_CreateSubscriptionRequest' },
);
export type SubscriptionBody = Static<typeof SubscriptionBody>;

const Nullable = (max?: number) => Type.Union([Type.String(max ? { maxLength: max } : {}), Type.Null()]);

export const SubscriptionRecord = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    asset_id: Type.Integer(),
    investor_id: Type.String(),
    units: Type.Number(),
    price_per_unit: Type.Number(),
    total: Type.Number(),
    fee: Type.Number(),
    currency: Type.String({ description: "the asset's ISO 4217 currency" }),
    funding_source: Type.String(),
    invoice_date: Type.String({ format: 'date' }),
    settlement_date: Type.String({ format: 'date' }),
    source: Nullable(),
    source_id: Nullable(),
    description: Nullable(),
    created_by_user_id: Type.String(),
    created_at: Timestamp,
  },
  { title: 'SubscriptionTransaction' },
);
export type SubscriptionRecord = Static<typeof SubscriptionRecord>;

export function toSubscriptionInput(body: SubscriptionBody): SubscriptionInput {
  return {
    assetId: body.asset_id,
    investorId: body.investor_id,
    units: decimalOf(body.units),
    pricePerUnit: decimalOf(body.price_per_unit),
    total: decimalOf(body.total),
    fee: decimalOf(body.fee ?? 0),
    fundingSource: body.funding_source,
    invoiceDate: body.invoice_date,
    settlementDate: body.settlement_date,
    source: body.source ?? null,
    sourceId: body.source_id ?? null,
    description: body.description ?? null,
  };
}

/** Stored decimals become JSON numbers that print as the same digits (`1000.10` → 1000.1). */
export const toSubscriptionRecord = (s: Subscription): SubscriptionRecord => ({
  id: s.id,
  asset_id: s.assetId,
  investor_id: s.investorId,
  units: numberOf(s.units),
  price_per_unit: numberOf(s.pricePerUnit),
  total: numberOf(s.total),
  fee: numberOf(s.fee),
  currency: s.currency,
  funding_source: s.fundingSource,
  invoice_date: s.invoiceDate,
  settlement_date: s.settlementDate,
  source: s.source,
  source_id: s.sourceId,
  description: s.description,
  created_by_user_id: s.createdByUserId,
  created_at: s.createdAt,
});

export const Asset = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    currency: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Asset' },
);

export const AssetBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' }),
});
