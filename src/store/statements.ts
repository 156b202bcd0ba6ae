// Bank statements as imported: one row per file (its content hash makes a second import of the same
// file a no-op), the count of its lines by outcome and status, and the journeys its references name.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface StoredStatement {
  id: string;
  format: string;
  messageId: string | null;
  lineCount: number;
  newLineCount: number;
  importedBy: string;
  importedAt: string;
}

type StatementRow = {
  id: string;
  format: string;
  message_id: string | null;
  line_count: number;
  new_line_count: number;
  imported_by: string;
  imported_at: Date;
};
const toStatement = (r: StatementRow): StoredStatement => ({
  id: r.id,
  format: r.format,
  messageId: r.message_id,
  lineCount: r.line_count,
  newLineCount: r.new_line_count,
  importedBy: r.imported_by,
  importedAt: r.imported_at.toISOString(),
});

/** Inserts the statement unless one with the same content exists; undefined when it did. */
/** A new statement, its new_line_count -1 (its lines being stored) until setNewLineCount. */
export async function insertStatement(
  db: Kysely<DB>,
  s: { id: string; sha256: string; format: string; messageId: string | null; lineCount: number; importedBy: string; importedAt: Date },
): Promise<StoredStatement | undefined> {
  const { rows } = await sql<StatementRow>`
    insert into payment_statements (id, content_sha256, format, message_id, line_count, new_line_count, imported_by, imported_at)
    values (${s.id}, ${s.sha256}, ${s.format}, ${s.messageId}, ${s.lineCount}, -1, ${s.importedBy}, ${s.importedAt})
    on conflict (content_sha256) do nothing
    returning *`.execute(db);
  return rows[0] && toStatement(rows[0]);
}

export async function findStatementBySha(db: Kysely<DB>, sha256: string): Promise<StoredStatement | undefined> {
  const { rows } = await sql<StatementRow>`select * from payment_statements where content_sha256 = ${sha256}`.execute(db);
  return rows[0] && toStatement(rows[0]);
}

export async function setNewLineCount(db: Kysely<DB>, statementId: string, n: number) {
  await sql`update payment_statements set new_line_count = ${n} where id = ${statementId}`.execute(db);
}

export async function countStatementLines(db: Kysely<DB>, statementId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ key: string; n: string }>`
    select outcome || '/' || status as key, count(*)::text as n from payment_lines where statement_id = ${statementId} group by 1`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

/** Journeys of these compact references: reference → deal and investor. */
export async function resolveReferences(db: Kysely<DB>, references: readonly string[]): Promise<Map<string, { dealId: string; investorUserId: string }>> {
  if (references.length === 0) return new Map();
  const { rows } = await sql<{ payment_reference: string; deal_id: string; investor_user_id: string }>`
    select payment_reference, deal_id, investor_user_id from journeys
    where payment_reference = any(${[...references]}::text[]) and event_count > 0`.execute(db);
  return new Map(rows.map((r) => [r.payment_reference, { dealId: r.deal_id, investorUserId: r.investor_user_id }]));
}
