// The mail outbox (migration 0052). Enqueuing inserts a fact in the caller's transaction, ignoring
// a cause already enqueued. Dispatchers claim due mails in a short transaction of their own:
// the mails' rows are locked FOR UPDATE SKIP LOCKED and one attempt each is inserted with a lease,
// so while the lease holds no other dispatcher takes the mail; the outcome is one more fact.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface NewMail {
  id: string;
  kind: string;
  dedupeKey: string;
  dealId: string | null;
  investorUserId: string | null;
  recipientAddress: string;
  recipientName: string;
  language: string;
  senderName: string | null;
  variables: Record<string, string>;
  enqueuedAt: Date;
}

/** Adds the mail unless its cause (`dedupeKey`) was enqueued before; true when it was added. */
export async function insertMail(db: Kysely<DB>, mail: NewMail): Promise<boolean> {
  return (await insertMails(db, [mail])) > 0;
}

/** Adds the mails (one statement) whose causes were not enqueued before; how many were added. */
export async function insertMails(db: Kysely<DB>, mails: readonly NewMail[]): Promise<number> {
  if (mails.length === 0) return 0;
  const result = await db
    .insertInto('mails')
    .values(
      mails.map((mail) => ({
        id: mail.id,
        kind: mail.kind,
        dedupe_key: mail.dedupeKey,
        deal_id: mail.dealId,
        investor_user_id: mail.investorUserId,
        recipient_address: mail.recipientAddress,
        recipient_name: mail.recipientName,
        language: mail.language,
        sender_name: mail.senderName,
        variables: JSON.stringify(mail.variables),
        enqueued_at: mail.enqueuedAt,
      })),
    )
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

export interface ClaimedMail {
  id: string;
  attempt: number;
  kind: string;
  dealId: string | null;
  recipientAddress: string;
  recipientName: string;
  language: string;
  senderName: string | null;
  variables: Record<string, string>;
  enqueuedAt: Date;
  /** Attempts before this one that failed or were interrupted. */
  failures: number;
}

/**
 * Claims up to `limit` due mails for `leaseMs`: not sent or dead, no attempt whose lease still
 * holds, and past the retry time of their last failure. An attempt whose lease ran out without an
 * outcome (its dispatcher died, or hung) is recorded as interrupted first. Two dispatchers reading
 * the same mail at once: the row lock lets one through, and the other's attempt number is taken
 * (ON CONFLICT DO NOTHING), so it claims nothing.
 */
export async function claimDueMails(db: Kysely<DB>, options: { now: Date; leaseMs: number; limit: number; claimId: string }): Promise<ClaimedMail[]> {
  const { now, leaseMs, limit, claimId } = options;
  return db.transaction().execute(async (tx) => {
    const { rows: claimed } = await sql<{ mail_id: string; attempt: number }>`
      with due as (
        select m.id from mails m
        where m.erased_at is null
          and not exists (select 1 from mail_outcomes o where o.mail_id = m.id and o.outcome in ('sent', 'dead'))
          and not exists (
            select 1 from mail_attempts a
            where a.mail_id = m.id and a.lease_until > ${now}
              and not exists (select 1 from mail_outcomes o where o.mail_id = a.mail_id and o.attempt = a.attempt))
          and coalesce((select max(o.retry_at) from mail_outcomes o where o.mail_id = m.id), m.enqueued_at) <= ${now}
        order by m.enqueued_at, m.id
        limit ${limit}
        for update of m skip locked
      )
      insert into mail_attempts (mail_id, attempt, claim_id, started_at, lease_until)
      select due.id, coalesce((select max(a.attempt) from mail_attempts a where a.mail_id = due.id), 0) + 1, ${claimId}, ${now}, ${new Date(now.getTime() + leaseMs)}
      from due
      on conflict do nothing
      returning mail_id, attempt`.execute(tx);
    if (claimed.length === 0) return [];
    const ids = claimed.map((c) => c.mail_id);
    // The earlier attempts left without an outcome: their dispatcher is gone, or its lease ran out.
    await sql`
      insert into mail_outcomes (mail_id, attempt, outcome, at, detail, retry_at)
      select a.mail_id, a.attempt, 'interrupted', ${now}, 'the attempt ended without an outcome (the dispatcher stopped or its lease ran out); whether the server accepted the mail is unknown', ${now}
      from mail_attempts a
      where a.mail_id in (${sql.join(ids)}) and a.claim_id <> ${claimId}
        and not exists (select 1 from mail_outcomes o where o.mail_id = a.mail_id and o.attempt = a.attempt)
      on conflict do nothing`.execute(tx);
    const rows = await tx
      .selectFrom('mails as m')
      .selectAll('m')
      .select((eb) =>
        eb
          .selectFrom('mail_outcomes as o')
          .whereRef('o.mail_id', '=', 'm.id')
          .where('o.outcome', 'in', ['failed', 'interrupted'])
          .select((o) => o.fn.countAll<string>().as('n'))
          .as('failures'),
      )
      .where('m.id', 'in', ids)
      .execute();
    const attemptOf = new Map(claimed.map((c) => [c.mail_id, Number(c.attempt)]));
    return rows
      .map((r) => ({
        id: r.id,
        attempt: attemptOf.get(r.id)!,
        kind: r.kind,
        dealId: r.deal_id,
        recipientAddress: r.recipient_address,
        recipientName: r.recipient_name,
        language: r.language,
        senderName: r.sender_name,
        variables: r.variables,
        enqueuedAt: r.enqueued_at,
        failures: Number(r.failures ?? 0),
      }))
      .sort((a, b) => a.enqueuedAt.getTime() - b.enqueuedAt.getTime() || (a.id < b.id ? -1 : 1));
  });
}

export type MailOutcome = { outcome: 'sent'; detail: string } | { outcome: 'failed'; detail: string; retryAt: Date } | { outcome: 'dead'; detail: string };

/** Records how an attempt ended; false when the attempt already has an outcome (it was taken over). */
export async function recordMailOutcome(db: Kysely<DB>, mail: { id: string; attempt: number }, result: MailOutcome, now: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('mail_outcomes')
    .values({
      mail_id: mail.id,
      attempt: mail.attempt,
      outcome: result.outcome,
      at: now,
      detail: result.detail.slice(0, 1000),
      retry_at: result.outcome === 'failed' ? result.retryAt : null,
    })
    .onConflict((oc) => oc.columns(['mail_id', 'attempt']).doNothing())
    .executeTakeFirst();
  return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/**
 * On the embedded database only one process runs: every attempt without an outcome belongs to a
 * process that is gone, and is recorded as interrupted so that its mail is due at once.
 */
export async function interruptOrphanedAttempts(db: Kysely<DB>, now: Date): Promise<number> {
  const { rows } = await sql<{ mail_id: string }>`
    insert into mail_outcomes (mail_id, attempt, outcome, at, detail, retry_at)
    select a.mail_id, a.attempt, 'interrupted', ${now}, 'the service stopped during the attempt; whether the server accepted the mail is unknown', ${now}
    from mail_attempts a
    where not exists (select 1 from mail_outcomes o where o.mail_id = a.mail_id and o.attempt = a.attempt)
    on conflict do nothing
    returning mail_id`.execute(db);
  return rows.length;
}

/** A mail and how it stands, for tests and the operator (newest first). */
export async function listMails(db: Kysely<DB>, filter: { dedupeKeyPrefix?: string; limit: number }) {
  let query = db
    .selectFrom('mails as m')
    .select(['m.id', 'm.kind', 'm.dedupe_key', 'm.recipient_address', 'm.language', 'm.enqueued_at'])
    .select((eb) => [
      eb
        .selectFrom('mail_attempts as a')
        .whereRef('a.mail_id', '=', 'm.id')
        .select((a) => a.fn.countAll<string>().as('n'))
        .as('attempts'),
      eb
        .selectFrom('mail_outcomes as o')
        .whereRef('o.mail_id', '=', 'm.id')
        .where('o.outcome', 'in', ['sent', 'dead'])
        .select('o.outcome')
        .limit(1)
        .as('final'),
    ]);
  if (filter.dedupeKeyPrefix !== undefined) query = query.where('m.dedupe_key', 'like', `${filter.dedupeKeyPrefix.replace(/[\\%_]/g, '\\$&')}%`);
  const rows = await query.orderBy('m.enqueued_at', 'desc').orderBy('m.id', 'desc').limit(filter.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    dedupeKey: r.dedupe_key,
    to: r.recipient_address,
    language: r.language,
    enqueuedAt: r.enqueued_at.toISOString(),
    attempts: Number(r.attempts ?? 0),
    status: (r.final ?? 'pending') as 'sent' | 'dead' | 'pending',
  }));
}

/** An investor's erasure: who their mails were for and what they said, blanked (the trigger of migration 0052 allows only this). */
export async function eraseInvestorMails(db: Kysely<DB>, investorUserId: string, now: Date): Promise<void> {
  await sql`update mails set recipient_address = 'erased@invalid', recipient_name = '', variables = '{}'::jsonb, erased_at = ${now}
    where investor_user_id = ${investorUserId} and erased_at is null`.execute(db);
}
