// Document contents, content-addressed (docs/reference/documents.md, "Storage"): one row per
// distinct content in document_blobs, named by its SHA-256; its bytes in document_chunks, pieces of
// at most 256 KiB in order, so that no statement carries (and no process holds) a whole file.
// Chunks are written under an upload id before the hash is known; the blob row, added when the
// upload ends, makes them visible. An upload that ends with content already stored deletes its
// chunks instead, so each content is kept once. Chunks of an upload that never ended (a crash, a
// refused size) have no blob row; sweepDocumentChunks deletes them once they are old.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table document_chunks (
    upload_id uuid not null,
    seq integer not null check (seq >= 0),
    bytes bytea not null check (length(bytes) between 1 and 262144),
    written_at timestamptz not null default now(),
    primary key (upload_id, seq)
  )`.execute(db);
  await sql`create table document_blobs (
    content_hash text primary key check (content_hash ~ '^[0-9a-f]{64}$'),
    upload_id uuid not null unique,
    size bigint not null check (size > 0),
    chunk_count integer not null check (chunk_count > 0),
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table document_blobs`.execute(db);
  await sql`drop table document_chunks`.execute(db);
}
