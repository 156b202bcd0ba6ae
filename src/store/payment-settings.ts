// deal_payment_settings: per deal, where reconciliation moves a paying investor and what it reads
// and writes, and what is booked on completion.
import { type Kysely, sql } from 'kysely';
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import type { DB } from './schema.ts';

/**
 * The deal's commitment field key, in SQL, from its payment settings row joined as `ps` (a left
 * join, so null when the deal has none): the settings' field, else the default. Every statement that
 * reads a committed amount takes it from here.
 */
export const commitmentKeyOf = sql<string>`coalesce(ps.commitment_field_key, ${sql.lit(DEFAULT_COMMITMENT_FIELD_KEY)})`;

/** The deal's currency field key, in SQL, likewise: the settings' (possibly none), else the default. */
export const currencyKeyOf = sql<string | null>`case when ps.deal_id is null then ${sql.lit(DEFAULT_CURRENCY_FIELD_KEY)} else ps.currency_field_key end`;

export interface PaymentSettings {
  dealId: string;
  paymentStepId: string | null;
  amountFieldKey: string | null;
  dateFieldKey: string | null;
  commitmentFieldKey: string;
  currencyFieldKey: string | null;
  assetId: number | null;
  pricePerUnit: string | null;
  unitDecimals: number;
  /** Whom investors pay (migration 0027): the IBAN and BIC compact, upper case. */
  beneficiaryName: string | null;
  iban: string | null;
  bic: string | null;
  updatedAt: string;
}

type Row = {
  deal_id: string;
  payment_step_id: string | null;
  amount_field_key: string | null;
  date_field_key: string | null;
  commitment_field_key: string;
  currency_field_key: string | null;
  asset_id: string | null;
  price_per_unit: string | null;
  unit_decimals: number;
  beneficiary_name: string | null;
  iban: string | null;
  bic: string | null;
  updated_at: Date;
  payee_changed_at: Date | null;
};

const toSettings = (r: Row): PaymentSettings => ({
  dealId: r.deal_id,
  paymentStepId: r.payment_step_id,
  amountFieldKey: r.amount_field_key,
  dateFieldKey: r.date_field_key,
  commitmentFieldKey: r.commitment_field_key,
  currencyFieldKey: r.currency_field_key,
  assetId: r.asset_id === null ? null : Number(r.asset_id),
  pricePerUnit: r.price_per_unit,
  unitDecimals: r.unit_decimals,
  beneficiaryName: r.beneficiary_name,
  iban: r.iban,
  bic: r.bic,
  updatedAt: r.updated_at.toISOString(),
});

export async function findPaymentSettings(db: Kysely<DB>, dealIds: readonly string[]): Promise<Map<string, PaymentSettings>> {
  if (dealIds.length === 0) return new Map();
  const { rows } = await sql<Row>`select * from deal_payment_settings where deal_id = any(${[...dealIds]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.deal_id, toSettings(r)]));
}

export async function upsertPaymentSettings(
  db: Kysely<DB>,
  s: Omit<PaymentSettings, 'updatedAt'>,
  now: Date,
): Promise<{ settings: PaymentSettings; created: boolean }> {
  const { rows } = await sql<Row & { inserted: boolean }>`
    insert into deal_payment_settings as s (deal_id, payment_step_id, amount_field_key, date_field_key, commitment_field_key,
      currency_field_key, asset_id, price_per_unit, unit_decimals, beneficiary_name, iban, bic, updated_at)
    values (${s.dealId}, ${s.paymentStepId}, ${s.amountFieldKey}, ${s.dateFieldKey}, ${s.commitmentFieldKey}, ${s.currencyFieldKey},
      ${s.assetId}, ${s.pricePerUnit}::numeric, ${s.unitDecimals}, ${s.beneficiaryName}, ${s.iban}, ${s.bic}, ${now})
    on conflict (deal_id) do update set payment_step_id = excluded.payment_step_id, amount_field_key = excluded.amount_field_key,
      date_field_key = excluded.date_field_key, commitment_field_key = excluded.commitment_field_key,
      currency_field_key = excluded.currency_field_key, asset_id = excluded.asset_id, price_per_unit = excluded.price_per_unit,
      unit_decimals = excluded.unit_decimals, beneficiary_name = excluded.beneficiary_name, iban = excluded.iban, bic = excluded.bic,
      updated_at = excluded.updated_at,
      -- Bank details set before and now different: the portal tells investors the instructions changed.
      payee_changed_at = case when s.iban is not null
        and (s.beneficiary_name, s.iban, s.bic) is distinct from (excluded.beneficiary_name, excluded.iban, excluded.bic)
        then excluded.updated_at else s.payee_changed_at end
    returning s.*, (xmax = 0) as inserted`.execute(db);
  const { inserted, ...row } = rows[0]!;
  return { settings: toSettings(row), created: inserted };
}
