// The statements of an investor's erasure (operations/erasure.ts decides whether and what).
import { eraseInvestorMails } from './mails.ts';
import { type Kysely, sql } from 'kysely';
import type { InvestorContact } from '../domain/investor.ts';
import type { DB } from './schema.ts';

export interface ErasureFacts {
  contact: InvestorContact;
  erasedAt: Date | null;
  /** The investor's last event in any deal; null without one. */
  lastEventAt: Date | null;
}

/** The investor's directory entry, locked for the erasure, with when they last moved; undefined when unknown. */
export async function lockForErasure(db: Kysely<DB>, investorUserId: string): Promise<ErasureFacts | undefined> {
  type Row = { contact: InvestorContact; erased_at: Date | null; last_event_at: Date | null };
  const { rows } = await sql<Row>`select contact, erased_at,
      (select max(created_at) from workflow_events where investor_user_id = ${investorUserId}) as last_event_at
    from investors where id = ${investorUserId} for update`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    contact: row.contact,
    erasedAt: row.erased_at ? new Date(row.erased_at) : null,
    lastEventAt: row.last_event_at ? new Date(row.last_event_at) : null,
  };
}

/**
 * Writes the tombstone: the contact replaced, name and e-mail gone, the erasure's time. A booking's
 * description is free text that may name the investor; no audit entry hashes it, and it is the one
 * field of a booking that may still be cleared (migration 0018); a category statement's evidence alike.
 */
export async function writeErasure(
  db: Kysely<DB>,
  investorUserId: string,
  tombstone: { contact: InvestorContact; fullName: string },
  now: Date,
): Promise<void> {
  await sql`update investors set contact = ${JSON.stringify(tombstone.contact)}::jsonb, full_name = ${tombstone.fullName}, email = null, erased_at = ${now}::timestamptz,
    updated_at = ${now}::timestamptz where id = ${investorUserId}`.execute(db);
  await sql`update subscriptions set description = null where investor_id = ${investorUserId} and description is not null`.execute(db);
  // A category statement's evidence is free text too, and the one field of it that may be cleared (migration 0043).
  await sql`update investor_category_statements set evidence = null where investor_id = ${investorUserId} and evidence is not null`.execute(db);
  // Their mails: the address, name and what the mail said (migration 0052); one not yet sent never is.
  await eraseInvestorMails(db, investorUserId, now);
}

/**
 * True when this investor was erased. Locks the directory entry against an erasure running at the
 * same time (FOR SHARE), so a credential made in the caller's transaction cannot outlive one.
 */
export async function isErased(db: Kysely<DB>, investorUserId: string): Promise<boolean> {
  const { rows } = await sql<{ erased: boolean }>`select erased_at is not null as erased from investors where id = ${investorUserId} for share`.execute(db);
  return rows[0]?.erased === true;
}

/** Of these investors, the ids erased, locked FOR SHARE as isErased does. */
export async function erasedAmong(db: Kysely<DB>, investorUserIds: readonly string[]): Promise<string[]> {
  if (investorUserIds.length === 0) return [];
  const { rows } = await sql<{ id: string }>`select id from investors where id = any(${[...investorUserIds]}::text[]) and erased_at is not null
    order by id for share`.execute(db);
  return rows.map((r) => r.id);
}

/** True when this investor was erased (no lock: the authentication of a request). */
export async function wasErased(db: Kysely<DB>, investorUserId: string): Promise<boolean> {
  const { rows } = await sql<{ erased: boolean }>`select erased_at is not null as erased from investors where id = ${investorUserId}`.execute(db);
  return rows[0]?.erased === true;
}
