// A deal's documents (docs/reference/documents.md): each uploaded file, named by the hash of its
// content (document_blobs, migration 0037); who it is released to (every investor at or past a
// step, or one investor); and every time someone opened it. History: rows are never changed nor
// deleted; a new version of a document is a new document.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

const tables = ['deal_documents', 'document_releases', 'document_reads'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table deal_documents (
    id uuid primary key,
    deal_id text not null references deals (id),
    title text not null,
    file_name text not null,
    content_hash text not null references document_blobs (content_hash),
    size bigint not null,
    uploaded_by text not null,
    uploaded_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index deal_documents_deal on deal_documents (deal_id, uploaded_at, id)`.execute(db);
  await sql`create table document_releases (
    id uuid primary key,
    document_id uuid not null references deal_documents (id),
    deal_id text not null references deals (id),
    step_id text,
    investor_user_id text references investors (id),
    released_by text not null,
    released_at timestamptz(3) not null,
    check ((step_id is null) <> (investor_user_id is null))
  )`.execute(db);
  await sql`create unique index document_releases_once on document_releases (document_id, coalesce(step_id, ''), coalesce(investor_user_id, ''))`.execute(db);
  await sql`create table document_reads (
    id uuid primary key,
    document_id uuid not null references deal_documents (id),
    deal_id text not null references deals (id),
    reader text not null,
    reader_role text not null,
    read_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index document_reads_document on document_reads (document_id, read_at, id)`.execute(db);
  for (const table of tables) {
    await sql.raw(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [...tables].reverse()) await sql.raw(`drop table ${table}`).execute(db);
}
