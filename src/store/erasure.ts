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

/** What an erasure did to the investor's evidence, by count (the audit entry says so; never the data). */
export interface ErasedEvidence {
  /** KYC documents whose file name was blanked. */
  kycFileNames: number;
  /** Staff's reasons for rejecting one of their files, blanked. */
  rejectionReasons: number;
  /** Category confirmations whose IP address was blanked. */
  confirmationAddresses: number;
  /** Their signatures of agreements whose IP address was blanked. */
  signatureAddresses: number;
  /** Contents of their KYC documents deleted (content another live record names is kept). */
  kycContents: number;
  /** Contents of their agreements deleted (filled, signed and countersigned PDFs). */
  agreementContents: number;
  /** The hashes of the contents deleted, for an object store to delete once committed (not audited). */
  removedHashes: string[];
}

/**
 * Blanks the erased investor's file names, rejection reasons and IP addresses (the only changes
 * migration 0056's triggers allow, and only once the directory entry is erased) and deletes the
 * contents of their KYC documents and agreements that no live record names: not a deal document
 * or template, nor another investor's document or agreement not erased. Their pending signing
 * challenges go too (they name the filled PDF).
 */
export async function eraseEvidence(db: Kysely<DB>, investorUserId: string): Promise<ErasedEvidence> {
  const kycFileNames = (
    await sql<{ id: string }>`update kyc_documents set file_name = '' where investor_id = ${investorUserId} and file_name <> ''
    returning id`.execute(db)
  ).rows.length;
  const rejectionReasons = (
    await sql<{ document_id: string }>`update kyc_document_reviews set reason = '' where reason <> ''
    and document_id in (select id from kyc_documents where investor_id = ${investorUserId}) returning document_id`.execute(db)
  ).rows.length;
  const confirmationAddresses = (
    await sql<{ id: string }>`update category_confirmations set ip = '' where investor_id = ${investorUserId} and ip <> ''
    returning id`.execute(db)
  ).rows.length;
  // The countersigner's address is staff's, not the investor's: it stays.
  const signatureAddresses = (
    await sql<{ id: string }>`update agreement_signatures set ip = '' where investor_user_id = ${investorUserId}
    and role = 'investor' and ip <> '' returning id`.execute(db)
  ).rows.length;
  const challenged = await sql<{ content_hash: string }>`delete from agreement_challenges where investor_user_id = ${investorUserId}
    returning content_hash`.execute(db);
  const kyc = await sql<{ content_hash: string }>`select distinct content_hash from kyc_documents where investor_id = ${investorUserId}`.execute(db);
  const signed = await sql<{ content_hash: string }>`select signed_hash as content_hash from agreement_signatures where investor_user_id = ${investorUserId}
    union select sealed_hash from agreement_signatures where investor_user_id = ${investorUserId}`.execute(db);
  const kycHashes = new Set(kyc.rows.map((r) => r.content_hash));
  const candidates = [...new Set([...kycHashes, ...signed.rows.map((r) => r.content_hash), ...challenged.rows.map((r) => r.content_hash)])];
  if (candidates.length === 0) {
    return { kycFileNames, rejectionReasons, confirmationAddresses, signatureAddresses, kycContents: 0, agreementContents: 0, removedHashes: [] };
  }
  // Ordered by hash, so that two erasures sharing contents lock them in the same order.
  const removed = await sql<{ content_hash: string; upload_id: string }>`delete from document_blobs b
    where b.content_hash in (select h from unnest(${candidates}::text[]) as h order by h)
      and not exists (select 1 from deal_documents d where d.content_hash = b.content_hash)
      and not exists (select 1 from agreement_templates t where t.content_hash = b.content_hash)
      and not exists (select 1 from agreement_challenges c where c.content_hash = b.content_hash)
      and not exists (select 1 from kyc_documents k join investors i on i.id = k.investor_id
                      where k.content_hash = b.content_hash and i.erased_at is null)
      and not exists (select 1 from agreement_signatures s join investors i on i.id = s.investor_user_id
                      where b.content_hash in (s.signed_hash, s.sealed_hash) and i.erased_at is null)
    returning b.content_hash, b.upload_id`.execute(db);
  const uploads = removed.rows.map((r) => r.upload_id);
  if (uploads.length > 0) await sql`delete from document_chunks where upload_id = any(${uploads}::uuid[])`.execute(db);
  const removedHashes = removed.rows.map((r) => r.content_hash).sort();
  const kycContents = removedHashes.filter((h) => kycHashes.has(h)).length;
  return {
    kycFileNames,
    rejectionReasons,
    confirmationAddresses,
    signatureAddresses,
    kycContents,
    agreementContents: removedHashes.length - kycContents,
    removedHashes,
  };
}
