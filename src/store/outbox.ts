// The transactional outbox (issue #6). appendOutbox writes a domain event and one delivery per
// matching step trigger in the CALLER's transaction, so the event exists exactly when its cause
// committed. The pull feed reads a deal's entries in sequence order.
import { type Kysely, sql } from 'kysely';
import type { OutboxEventType } from '../domain/outbox-event.ts';
import type { DB } from './schema.ts';

/** The stream of entries without a deal (subscriptions): one sequence for the whole platform. */
export const PLATFORM_STREAM = 'platform';
export const dealStream = (dealId: string) => `deal:${dealId}`;

export interface OutboxEntryInput {
  id: string;
  type: OutboxEventType;
  occurredAt: Date;
  /** Null for events that belong to no deal; they are sequenced in the `platform` stream. */
  dealId: string | null;
  /** Steps the event concerns: triggers of these steps (of this deal) that list `type` get a delivery. */
  stepIds: readonly string[];
  data: Record<string, unknown>;
}

/** An outbox entry as webhook bodies and the pull feed carry it. */
export interface OutboxEntry {
  id: string;
  type: string;
  timestamp: string;
  dealId: string | null;
  sequence: number;
  data: unknown;
}

/**
 * Appends an entry and its deliveries. `db` must be the caller's open transaction: this never
 * opens one, and refuses to run outside one, because an entry written apart from its cause could
 * survive the cause's rollback (or be lost after its commit). Call it late in the transaction: the
 * stream's counter row stays locked until commit, which is what keeps sequences gap-free and in
 * commit order.
 */
export async function appendOutbox(db: Kysely<DB>, entry: OutboxEntryInput): Promise<{ sequence: number; deliveries: number }> {
  if (!db.isTransaction) throw new Error("appendOutbox must run inside the caller's transaction");
  const stream = entry.dealId === null ? PLATFORM_STREAM : dealStream(entry.dealId);
  const { last_sequence } = await db
    .insertInto('outbox_sequences')
    .values({ stream, last_sequence: '1' })
    .onConflict((oc) => oc.column('stream').doUpdateSet({ last_sequence: sql`outbox_sequences.last_sequence + 1` }))
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  const sequence = Number(last_sequence);
  await db
    .insertInto('outbox')
    .values({
      id: entry.id,
      stream,
      sequence,
      type: entry.type,
      occurred_at: entry.occurredAt,
      deal_id: entry.dealId,
      payload: JSON.stringify(entry.data),
    })
    .execute();
  if (entry.dealId === null || entry.stepIds.length === 0) return { sequence, deliveries: 0 };
  // One delivery per distinct URL among the matching triggers; the same URL on two steps is one
  // receiver and gets the entry once.
  const result = await db
    .insertInto('webhook_deliveries')
    .columns(['id', 'outbox_id', 'deal_id', 'event_type', 'url', 'secret_id', 'created_at', 'next_attempt_at'])
    .expression((eb) =>
      eb
        .selectFrom('step_triggers')
        .select([
          sql<string>`gen_random_uuid()`.as('id'),
          sql<string>`${entry.id}::uuid`.as('outbox_id'),
          'deal_id',
          sql<string>`${entry.type}::text`.as('event_type'),
          'url',
          'secret_id',
          sql<Date>`${entry.occurredAt}::timestamptz`.as('created_at'),
          sql<Date>`${entry.occurredAt}::timestamptz`.as('next_attempt_at'),
        ])
        .where('deal_id', '=', entry.dealId!)
        .where('step_id', 'in', [...entry.stepIds])
        .where(sql<boolean>`${entry.type}::text = any(events)`),
    )
    .onConflict((oc) => oc.columns(['outbox_id', 'url']).doNothing())
    .executeTakeFirst();
  return { sequence, deliveries: Number(result.numInsertedOrUpdatedRows ?? 0n) };
}

export const toOutboxEntry = (row: {
  id: string;
  type: string;
  occurred_at: Date;
  deal_id: string | null;
  sequence: string;
  payload: unknown;
}): OutboxEntry => ({
  id: row.id,
  type: row.type,
  timestamp: row.occurred_at.toISOString(),
  dealId: row.deal_id,
  sequence: Number(row.sequence),
  data: row.payload,
});

/** A deal's entries with a sequence above `after`, in order; one more than `limit` tells if more follow. */
export async function listDealFeed(db: Kysely<DB>, dealId: string, after: number, limit: number) {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'type', 'occurred_at', 'deal_id', 'sequence', 'payload'])
    .where('stream', '=', dealStream(dealId))
    .where('sequence', '>', String(after))
    .orderBy('sequence')
    .limit(limit + 1)
    .execute();
  return { entries: rows.slice(0, limit).map(toOutboxEntry), hasMore: rows.length > limit };
}
