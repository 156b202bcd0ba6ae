// Webhook deliveries: one row per outbox entry × receiving URL. Dispatchers claim due
// rows with FOR UPDATE SKIP LOCKED and a lease, post outside any transaction, then record the
// result only if their claim still holds.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { DeliveryStatus } from '../domain/outbox-event.ts';
import { type OutboxEntry, toOutboxEntry } from './outbox.ts';
import type { DB, WebhookDeliveriesTable } from './schema.ts';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  dealId: string | null;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  /** When the next attempt is due; null once delivered or dead. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  deadAt: string | null;
  createdAt: string;
}

const statusOf = (row: Pick<Selectable<WebhookDeliveriesTable>, 'delivered_at' | 'dead_at'>): DeliveryStatus =>
  row.delivered_at ? 'delivered' : row.dead_at ? 'dead' : 'pending';

const toDelivery = (row: Selectable<WebhookDeliveriesTable>): WebhookDelivery => {
  const status = statusOf(row);
  return {
    id: row.id,
    eventId: row.outbox_id,
    eventType: row.event_type,
    dealId: row.deal_id,
    url: row.url,
    status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextAttemptAt: status === 'pending' ? row.next_attempt_at.toISOString() : null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    deadAt: row.dead_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
};

export interface ListDeliveriesFilter {
  status?: DeliveryStatus;
  dealId?: string;
  limit: number;
  page: number;
}

/** Newest first. */
export async function listDeliveries(db: Kysely<DB>, filter: ListDeliveriesFilter) {
  let query = db.selectFrom('webhook_deliveries');
  if (filter.dealId !== undefined) query = query.where('deal_id', '=', filter.dealId);
  switch (filter.status) {
    case undefined:
      break;
    case 'pending':
      query = query.where('delivered_at', 'is', null).where('dead_at', 'is', null);
      break;
    case 'delivered':
      query = query.where('delivered_at', 'is not', null);
      break;
    case 'dead':
      query = query.where('dead_at', 'is not', null);
      break;
  }
  const [{ total }, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit)
      .execute(),
  ]);
  return { deliveries: rows.map(toDelivery), total: Number(total) };
}

export async function findDelivery(db: Kysely<DB>, id: string): Promise<WebhookDelivery | undefined> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toDelivery(row) : undefined;
}

/**
 * Makes a pending or dead delivery due now and restarts its retry schedule (a dead one comes back
 * to life). Returns undefined when there is no such delivery; a delivered one is left alone.
 */
export async function scheduleDeliveryNow(db: Kysely<DB>, id: string, now: Date): Promise<WebhookDelivery | undefined> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, dead_at: null, failures: 0 })
    .where('id', '=', id)
    .where('delivered_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row ? toDelivery(row) : undefined;
}

/** A claimed delivery with what the dispatcher needs to send it. */
export interface ClaimedDelivery {
  id: string;
  claimId: string;
  url: string;
  /** Null: the trigger has no secret, and the delivery goes unsigned. */
  secret: string | null;
  /** Consecutive failures before this attempt. */
  failures: number;
  entry: OutboxEntry;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`, in one short transaction. Rows another
 * dispatcher holds (locked, or leased and not yet expired) are skipped, so each attempt is made by
 * one dispatcher at a time; a dispatcher that dies only delays its claims until the lease ends.
 */
export async function claimDueDeliveries(db: Kysely<DB>, options: { now: Date; leaseMs: number; limit: number; claimId: string }): Promise<ClaimedDelivery[]> {
  const { now, leaseMs, limit, claimId } = options;
  return db.transaction().execute(async (tx) => {
    const claimed = await tx
      .with('due', (qb) =>
        qb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('delivered_at', 'is', null)
          .where('dead_at', 'is', null)
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('webhook_deliveries')
      .from('due')
      .set({
        claimed_until: new Date(now.getTime() + leaseMs),
        claim_id: claimId,
        attempts: sql`webhook_deliveries.attempts + 1`,
        last_attempt_at: now,
      })
      .whereRef('webhook_deliveries.id', '=', 'due.id')
      .returning([
        'webhook_deliveries.id',
        'webhook_deliveries.outbox_id',
        'webhook_deliveries.url',
        'webhook_deliveries.secret_id',
        'webhook_deliveries.failures',
      ])
      .execute();
    if (claimed.length === 0) return [];
    const entries = await tx
      .selectFrom('outbox')
      .select(['id', 'type', 'occurred_at', 'deal_id', 'sequence', 'payload'])
      .where('id', 'in', [...new Set(claimed.map((c) => c.outbox_id))])
      .execute();
    const secretIds = claimed.flatMap((c) => (c.secret_id ? [c.secret_id] : []));
    const secrets = secretIds.length ? await tx.selectFrom('webhook_secrets').select(['id', 'secret']).where('id', 'in', secretIds).execute() : [];
    const entryById = new Map(entries.map((e) => [e.id, toOutboxEntry(e)]));
    const secretById = new Map(secrets.map((s) => [s.id, s.secret]));
    return claimed.map((c) => ({
      id: c.id,
      claimId,
      url: c.url,
      secret: c.secret_id ? (secretById.get(c.secret_id) ?? null) : null,
      failures: c.failures,
      entry: entryById.get(c.outbox_id)!,
    }));
  });
}

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; nextAttemptAt: Date }
  | { kind: 'dead'; status: number | null; error: string };

/** Records an attempt's outcome if `claimId` still holds the delivery; false when it lost the claim. */
export async function recordAttempt(db: Kysely<DB>, delivery: { id: string; claimId: string }, outcome: AttemptOutcome, now: Date): Promise<boolean> {
  const release = { claimed_until: null, claim_id: null };
  const set =
    outcome.kind === 'delivered'
      ? { ...release, delivered_at: now, last_status: outcome.status, last_error: null }
      : outcome.kind === 'retry'
        ? { ...release, failures: sql<number>`failures + 1`, last_status: outcome.status, last_error: outcome.error, next_attempt_at: outcome.nextAttemptAt }
        : { ...release, failures: sql<number>`failures + 1`, last_status: outcome.status, last_error: outcome.error, dead_at: now };
  const result = await db.updateTable('webhook_deliveries').set(set).where('id', '=', delivery.id).where('claim_id', '=', delivery.claimId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
