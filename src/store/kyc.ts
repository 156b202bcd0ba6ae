// KYC evidence (migration 0050): a deal's KYC settings, the files investors upload with staff's
// decision on each, the levels accepted, and the newest of each investor, which the move path reads
// with its one load statement (store/moves.ts).
import { sql } from 'kysely';
import type { Db } from './schema.ts';

export interface KycSettingsRow {
  dealId: string;
  stepId: string;
  level: number;
  documents: string[];
  updatedBy: string;
  updatedAt: string;
}

export interface KycDocumentRow {
  id: string;
  dealId: string;
  investorUserId: string;
  kind: string;
  fileName: string;
  mediaType: string;
  contentHash: string;
  size: number;
  uploadedBy: string;
  uploadedAt: string;
  decision: 'accepted' | 'rejected' | null;
  reason: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
}

export interface KycLevelRow {
  investorUserId: string;
  dealId: string;
  level: number;
  acceptedOn: string;
  expiresOn: string;
  recordedAt: string;
}

export async function putSettings(db: Db, row: Omit<KycSettingsRow, 'updatedAt'> & { updatedAt: Date }): Promise<void> {
  const values = { step_id: row.stepId, level: row.level, documents: row.documents, updated_by: row.updatedBy, updated_at: row.updatedAt };
  await db
    .insertInto('deal_kyc_settings')
    .values({ deal_id: row.dealId, ...values })
    .onConflict((oc) => oc.column('deal_id').doUpdateSet(values))
    .execute();
}

export async function findSettings(db: Db, dealId: string): Promise<KycSettingsRow | undefined> {
  const r = await db.selectFrom('deal_kyc_settings').selectAll().where('deal_id', '=', dealId).executeTakeFirst();
  return r && { dealId: r.deal_id, stepId: r.step_id, level: r.level, documents: r.documents, updatedBy: r.updated_by, updatedAt: r.updated_at.toISOString() };
}

const documents = (db: Db) =>
  db
    .selectFrom('kyc_documents as d')
    .leftJoin('kyc_document_reviews as r', 'r.document_id', 'd.id')
    .select([
      'd.id',
      'd.deal_id',
      'd.investor_id',
      'd.kind',
      'd.file_name',
      'd.media_type',
      'd.content_hash',
      'd.size',
      'd.uploaded_by',
      'd.uploaded_at',
      'r.decision',
      'r.reason',
      'r.reviewed_by',
      'r.reviewed_at',
    ]);

type DocumentSelect = Awaited<ReturnType<ReturnType<typeof documents>['executeTakeFirstOrThrow']>>;
const toDocument = (r: DocumentSelect): KycDocumentRow => ({
  id: r.id,
  dealId: r.deal_id,
  investorUserId: r.investor_id,
  kind: r.kind,
  fileName: r.file_name,
  mediaType: r.media_type,
  contentHash: r.content_hash,
  size: Number(r.size),
  uploadedBy: r.uploaded_by,
  uploadedAt: r.uploaded_at.toISOString(),
  decision: r.decision as KycDocumentRow['decision'],
  reason: r.reason,
  reviewedBy: r.reviewed_by,
  reviewedAt: r.reviewed_at?.toISOString() ?? null,
});

export async function insertDocument(
  db: Db,
  row: Omit<KycDocumentRow, 'uploadedAt' | 'decision' | 'reason' | 'reviewedBy' | 'reviewedAt'> & { uploadedAt: Date },
): Promise<void> {
  await db
    .insertInto('kyc_documents')
    .values({
      id: row.id,
      deal_id: row.dealId,
      investor_id: row.investorUserId,
      kind: row.kind,
      file_name: row.fileName,
      media_type: row.mediaType,
      content_hash: row.contentHash,
      size: String(row.size),
      uploaded_by: row.uploadedBy,
      uploaded_at: row.uploadedAt,
    })
    .execute();
}

/** An investor's files in a deal, oldest first, each with staff's decision. */
export async function documentsOf(db: Db, dealId: string, investorUserId: string): Promise<KycDocumentRow[]> {
  const rows = await documents(db).where('d.deal_id', '=', dealId).where('d.investor_id', '=', investorUserId).orderBy('d.seq').execute();
  return rows.map(toDocument);
}

export async function findDocument(db: Db, dealId: string, investorUserId: string, documentId: string): Promise<KycDocumentRow | undefined> {
  const r = await documents(db).where('d.id', '=', documentId).where('d.deal_id', '=', dealId).where('d.investor_id', '=', investorUserId).executeTakeFirst();
  return r && toDocument(r);
}

/** Files no one has decided yet, oldest first, with the investor's name, and how many there are. */
export async function undecidedDocuments(db: Db, page: { limit: number; offset: number }) {
  const undecided = sql<boolean>`not exists (select 1 from kyc_document_reviews r where r.document_id = d.id)`;
  const [rows, counted] = await Promise.all([
    documents(db)
      .innerJoin('investors as i', 'i.id', 'd.investor_id')
      .select('i.full_name')
      .where(undecided)
      .where(sql<boolean>`i.erased_at is null`)
      .orderBy('d.seq')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('kyc_documents as d')
      .innerJoin('investors as i', 'i.id', 'd.investor_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(undecided)
      .where(sql<boolean>`i.erased_at is null`)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...toDocument(r), investorName: r.full_name })), total: Number(counted.n) };
}

/** Records staff's decision on a file; false when it was decided already. */
export async function insertReview(
  db: Db,
  row: { documentId: string; decision: 'accepted' | 'rejected'; reason: string | null; reviewedBy: string; reviewedAt: Date },
): Promise<boolean> {
  const added = await db
    .insertInto('kyc_document_reviews')
    .values({ document_id: row.documentId, decision: row.decision, reason: row.reason, reviewed_by: row.reviewedBy, reviewed_at: row.reviewedAt })
    .onConflict((oc) => oc.column('document_id').doNothing())
    .returning('document_id')
    .executeTakeFirst();
  return added !== undefined;
}

export async function insertLevel(db: Db, row: Omit<KycLevelRow, 'recordedAt'> & { id: string; recordedBy: string; recordedAt: Date }): Promise<void> {
  await db
    .insertInto('kyc_levels')
    .values({
      id: row.id,
      investor_id: row.investorUserId,
      deal_id: row.dealId,
      level: row.level,
      accepted_on: row.acceptedOn,
      expires_on: row.expiresOn,
      recorded_by: row.recordedBy,
      recorded_at: row.recordedAt,
    })
    .execute();
}

/** The investor's newest accepted level (any deal), the one that counts; undefined when none was accepted. */
export async function newestLevel(db: Db, investorUserId: string): Promise<KycLevelRow | undefined> {
  const r = await db
    .selectFrom('kyc_levels')
    .select([
      'investor_id',
      'deal_id',
      'level',
      sql<string>`accepted_on::text`.as('accepted_on'),
      sql<string>`expires_on::text`.as('expires_on'),
      'recorded_at',
    ])
    .where('investor_id', '=', investorUserId)
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  return (
    r && {
      investorUserId: r.investor_id,
      dealId: r.deal_id,
      level: r.level,
      acceptedOn: r.accepted_on,
      expiresOn: r.expires_on,
      recordedAt: r.recorded_at.toISOString(),
    }
  );
}

/** Each investor's newest level, as a SQL expression yielding a JSON object keyed by investor id (`{ level, expiresOn }`); for the move's load. */
export const newestKycLevels = (ids: readonly string[]) => sql<Record<string, { level: number; expiresOn: string }> | null>`(
  select json_object_agg(k.investor_id, json_build_object('level', k.level, 'expiresOn', k.expires_on::text))
  from (select distinct on (investor_id) investor_id, level, expires_on from kyc_levels
    where investor_id = any(${ids as string[]}::text[]) order by investor_id, seq desc) k)`;

/** Investors whose newest level expires on or before `until`, soonest first, and how many there are. */
export async function expiringLevels(db: Db, until: string, page: { limit: number; offset: number }) {
  const held = sql`with newest as (select distinct on (investor_id) investor_id, deal_id, level, accepted_on, expires_on from kyc_levels
      order by investor_id, seq desc)
    select n.investor_id, i.full_name, n.deal_id, n.level, n.accepted_on::text as accepted_on, n.expires_on::text as expires_on
    from newest n join investors i on i.id = n.investor_id
    where n.expires_on <= ${until}::date and i.erased_at is null`;
  const [{ rows }, counted] = await Promise.all([
    sql<{ investor_id: string; full_name: string; deal_id: string; level: number; accepted_on: string; expires_on: string }>`${held}
      order by expires_on, investor_id limit ${page.limit} offset ${page.offset}`.execute(db),
    sql<{ n: number }>`select count(*)::int as n from (${held}) h`.execute(db),
  ]);
  return {
    rows: rows.map((r) => ({
      investorUserId: r.investor_id,
      investorName: r.full_name,
      dealId: r.deal_id,
      level: r.level,
      acceptedOn: r.accepted_on,
      expiresOn: r.expires_on,
    })),
    total: counted.rows[0]!.n,
  };
}

/** Sets the investor's KYC level, the one their record shows. */
export async function setInvestorKycLevel(db: Db, investorUserId: string, level: number, at: Date): Promise<void> {
  await db.updateTable('investors').set({ kyc_check_level: level, updated_at: at }).where('id', '=', investorUserId).execute();
}

/** The steps the investor's journey in the deal has entered (its current one included); undefined without a journey. */
export async function enteredSteps(db: Db, dealId: string, investorUserId: string): Promise<string[] | undefined> {
  const r = await db
    .selectFrom('journeys')
    .select(['visited', 'current_step_id', 'event_count'])
    .where('deal_id', '=', dealId)
    .where('investor_user_id', '=', investorUserId)
    .executeTakeFirst();
  return r && (r.event_count === 0 ? [] : [...new Set([...r.visited, r.current_step_id])]);
}
