// A deal's documents, their releases and their reads (migration 0044). Which investor may open a
// document is one SQL rule (`releasedTo`): released to them by name, or to a step their journey in
// the deal has entered (journeys.visited), so the list an investor sees and the download they may
// make cannot disagree.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from './schema.ts';

export interface DocumentRow {
  id: string;
  dealId: string;
  title: string;
  fileName: string;
  contentHash: string;
  size: number;
  uploadedBy: string;
  uploadedAt: string;
}

export interface ReleaseRow {
  id: string;
  documentId: string;
  stepId: string | null;
  investorUserId: string | null;
  /** The investor's name, for a release to one investor (null for a step). */
  investorName?: string | null;
  releasedBy: string;
  releasedAt: string;
}

export interface ReadRow {
  id: string;
  documentId: string;
  reader: string;
  readerRole: string;
  readAt: string;
}

type DocumentRecord = {
  id: string;
  deal_id: string;
  title: string;
  file_name: string;
  content_hash: string;
  size: string;
  uploaded_by: string;
  uploaded_at: Date;
};
const toDocument = (r: DocumentRecord): DocumentRow => ({
  id: r.id,
  dealId: r.deal_id,
  title: r.title,
  fileName: r.file_name,
  contentHash: r.content_hash,
  size: Number(r.size),
  uploadedBy: r.uploaded_by,
  uploadedAt: r.uploaded_at.toISOString(),
});

export async function insertDocument(db: Db, row: Omit<DocumentRow, 'uploadedAt'> & { uploadedAt: Date }): Promise<DocumentRow> {
  const stored = await db
    .insertInto('deal_documents')
    .values({
      id: row.id,
      deal_id: row.dealId,
      title: row.title,
      file_name: row.fileName,
      content_hash: row.contentHash,
      size: String(row.size),
      uploaded_by: row.uploadedBy,
      uploaded_at: row.uploadedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDocument(stored);
}

/** Whether the investor may open the document `documentId` of its deal: released to them, or to a step they have entered. */
const releasedTo = (investorUserId: string, documentId: Expression<string>): Expression<SqlBool> => sql<SqlBool>`exists (
  select 1 from document_releases r
  where r.document_id = ${documentId} and (r.investor_user_id = ${investorUserId} or exists (
    select 1 from journeys j where j.deal_id = r.deal_id and j.investor_user_id = ${investorUserId} and r.step_id = any(j.visited))))`;

/** The deal's documents, oldest first; with `investorUserId`, only those released to that investor. */
export async function documentsOf(db: Db, dealId: string, investorUserId?: string): Promise<DocumentRow[]> {
  let query = db.selectFrom('deal_documents as d').selectAll('d').where('d.deal_id', '=', dealId);
  if (investorUserId !== undefined) query = query.where(releasedTo(investorUserId, sql.ref('d.id')));
  const rows = await query.orderBy('d.uploaded_at').orderBy('d.id').execute();
  return rows.map(toDocument);
}

/** One document of the deal; with `investorUserId`, only when released to that investor. */
export async function findDocument(db: Db, dealId: string, documentId: string, investorUserId?: string): Promise<DocumentRow | undefined> {
  let query = db.selectFrom('deal_documents as d').selectAll('d').where('d.deal_id', '=', dealId).where('d.id', '=', documentId);
  if (investorUserId !== undefined) query = query.where(releasedTo(investorUserId, sql.ref('d.id')));
  const row = await query.executeTakeFirst();
  return row && toDocument(row);
}

/** Adds a release; false when the same release exists already. */
export async function insertRelease(db: Db, dealId: string, row: Omit<ReleaseRow, 'releasedAt'> & { releasedAt: Date }): Promise<boolean> {
  const added = await db
    .insertInto('document_releases')
    .values({
      id: row.id,
      document_id: row.documentId,
      deal_id: dealId,
      step_id: row.stepId,
      investor_user_id: row.investorUserId,
      released_by: row.releasedBy,
      released_at: row.releasedAt,
    })
    .onConflict((oc) => oc.expression(sql`document_id, coalesce(step_id, ''), coalesce(investor_user_id, '')`).doNothing())
    .returning('id')
    .executeTakeFirst();
  return added !== undefined;
}

/** The releases of the deal's documents, oldest first. */
export async function releasesOf(db: Db, dealId: string): Promise<ReleaseRow[]> {
  const rows = await db
    .selectFrom('document_releases as r')
    .leftJoin('investors as i', 'i.id', 'r.investor_user_id')
    .selectAll('r')
    .select('i.full_name')
    .where('r.deal_id', '=', dealId)
    .orderBy('r.released_at')
    .orderBy('r.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    documentId: r.document_id,
    stepId: r.step_id,
    investorUserId: r.investor_user_id,
    investorName: r.full_name,
    releasedBy: r.released_by,
    releasedAt: r.released_at.toISOString(),
  }));
}

export async function insertRead(db: Db, dealId: string, row: Omit<ReadRow, 'readAt'> & { readAt: Date }): Promise<void> {
  await db
    .insertInto('document_reads')
    .values({ id: row.id, document_id: row.documentId, deal_id: dealId, reader: row.reader, reader_role: row.readerRole, read_at: row.readAt })
    .execute();
}

/** Who opened a document, oldest first. */
export async function readsOf(db: Db, documentId: string): Promise<ReadRow[]> {
  const rows = await db.selectFrom('document_reads').selectAll().where('document_id', '=', documentId).orderBy('read_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, documentId: r.document_id, reader: r.reader, readerRole: r.reader_role, readAt: r.read_at.toISOString() }));
}

/** How many times each of the deal's documents was opened. */
export async function readCounts(db: Db, dealId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('document_reads')
    .select(['document_id', sql<number>`count(*)::int`.as('n')])
    .where('deal_id', '=', dealId)
    .groupBy('document_id')
    .execute();
  return new Map(rows.map((r) => [r.document_id, r.n]));
}
