// Payment references live on the journey row (one per investor per deal, unique across deals).
import { randomInt } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { newPaymentReference } from '../domain/payment-reference.ts';
import type { DB } from './schema.ts';

/** A fresh reference; uniqueness is the journeys.payment_reference constraint's job (retry on 23505). */
export const generatePaymentReference = () => newPaymentReference(() => randomInt(10));

export interface PaymentReferenceEntry {
  investorUserId: string;
  paymentReference: string;
}

/** One entry per investor of the deal, by investor id in byte order (the same on every database). */
export async function listDealPaymentReferences(db: Kysely<DB>, dealId: string): Promise<PaymentReferenceEntry[]> {
  const rows = await db
    .selectFrom('journeys')
    .select(['investor_user_id', 'payment_reference'])
    .where('deal_id', '=', dealId)
    .where('event_count', '>', 0) // a row is created under the first move's lock; it counts once that move commits
    .orderBy(sql`investor_user_id collate "C"`)
    .execute();
  return rows.map((r) => ({ investorUserId: r.investor_user_id, paymentReference: r.payment_reference }));
}

/** The journey a (normalized, compact) reference belongs to. */
export async function findByPaymentReference(db: Kysely<DB>, reference: string) {
  const row = await db
    .selectFrom('journeys')
    .select(['deal_id', 'investor_user_id', 'payment_reference'])
    .where('payment_reference', '=', reference)
    .where('event_count', '>', 0)
    .executeTakeFirst();
  return row ? { dealId: row.deal_id, investorUserId: row.investor_user_id, paymentReference: row.payment_reference } : undefined;
}
