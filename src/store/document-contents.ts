// Where the bytes of documents live (docs/reference/documents.md, "Storage"). One small interface,
// DocumentContents, with two stores behind it (content-store.ts picks one at start): an
// S3-compatible object store (s3-contents.ts, DOCUMENT_STORE=s3) and the database's own, the
// default, below. It keeps each distinct content once, named by its SHA-256, in chunks of at most
// 256 KiB (migration 0037): a file goes in and comes out a chunk at a time and is never whole in
// memory.
//
// Writing chunks is storage, not a change of the record: each chunk is its own statement, outside
// any transaction, so a slow upload holds no transaction open (the embedded database has one
// connection). The document's row and its audit entry, which name the content by its hash, are
// written afterwards through the write pipeline; content no document names is harmless.
import { createHash, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

/** Most bytes in one stored chunk (the bound of document_chunks.bytes). */
export const chunkBytes = 256 * 1024;

export interface StoredContent {
  /** SHA-256 of the bytes, hex. */
  contentHash: string;
  size: number;
  /** Whether these bytes were stored already (the upload added nothing). */
  deduplicated: boolean;
}

export interface ContentReader {
  size: number;
  /** The bytes in order, a chunk at a time. */
  chunks: AsyncIterable<Uint8Array>;
}

export interface DocumentContents {
  /**
   * Stores what `source` yields, at most `maxBytes` of it (more rejects with ContentTooLarge and
   * keeps nothing; none rejects with EmptyContent). The hash is of the bytes as received.
   */
  put(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<StoredContent>;
  /** The content with this hash; undefined when none is stored. */
  get(contentHash: string): Promise<ContentReader | undefined>;
}

/**
 * The store of contents chosen at start (content-store.ts), handed to operations in their Deps.
 * Both stores write the content's row in document_blobs, which the records' foreign keys name, so
 * they are used through the caller's handle: inside a transaction, its connection (the embedded
 * database has only one) and its view of what is written.
 */
export interface ContentStore {
  contents(db: Kysely<DB>): DocumentContents;
  /**
   * After an erasure has committed, whose transaction deleted these contents' rows: removes their
   * bytes where they live outside the database (an object store), each only while no row names it
   * again. The database's own store has nothing left to remove. Returns how many were removed.
   */
  forget?(db: Kysely<DB>, contentHashes: readonly string[]): Promise<number>;
  /** Lets go of what the store holds open (an object store's connections). */
  close(): void;
}

export class ContentTooLarge extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the document is larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
  }
}

export class EmptyContent extends Error {
  constructor() {
    super('the document is empty');
  }
}

/** Cuts a stream of pieces of any size into pieces of exactly `size` bytes (the last one shorter). */
export async function* rechunk(source: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    let rest = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (pendingBytes + rest.length >= size) {
      const take = size - pendingBytes;
      const whole = Buffer.concat([...pending, rest.subarray(0, take)]);
      // Let go of the pieces before handing on the whole: only one copy is held while it is used.
      pending = [];
      pendingBytes = 0;
      rest = rest.subarray(take);
      yield whole;
    }
    if (rest.length) {
      pending.push(Buffer.from(rest));
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes) yield Buffer.concat(pending);
}

/** The default: contents in the database, in document_blobs and document_chunks. */
export function databaseContents(db: Kysely<DB>): DocumentContents {
  return {
    async put(source, maxBytes) {
      const uploadId = randomUUID();
      const hash = createHash('sha256');
      let size = 0;
      let seq = 0;
      try {
        for await (const chunk of rechunk(source, chunkBytes)) {
          size += chunk.length;
          if (size > maxBytes) throw new ContentTooLarge(maxBytes);
          hash.update(chunk);
          await db.insertInto('document_chunks').values({ upload_id: uploadId, seq: seq++, bytes: chunk }).execute();
        }
        if (size === 0) throw new EmptyContent();
        const contentHash = hash.digest('hex');
        const added = await db
          .insertInto('document_blobs')
          .values({ content_hash: contentHash, upload_id: uploadId, size: String(size), chunk_count: seq })
          .onConflict((oc) => oc.column('content_hash').doNothing())
          .returning('content_hash')
          .executeTakeFirst();
        if (!added) await deleteChunks(db, uploadId);
        return { contentHash, size, deduplicated: !added };
      } catch (err) {
        // Best effort: what stays (the database gone meanwhile) sweepDocumentChunks removes later.
        await deleteChunks(db, uploadId).catch(() => {});
        throw err;
      }
    },

    async get(contentHash) {
      const blob = await db
        .selectFrom('document_blobs')
        .select(['upload_id', 'size', 'chunk_count'])
        .where('content_hash', '=', contentHash)
        .executeTakeFirst();
      if (!blob) return undefined;
      return { size: Number(blob.size), chunks: readChunks(db, blob.upload_id, blob.chunk_count) };
    },
  };
}

/**
 * The row of a content whose bytes are kept elsewhere (an object store): the row this store would
 * write, its chunks never written (the column's check wants a count; this is the count they would
 * have). The records' foreign keys name it. Nothing when the row is there already.
 */
export async function recordContent(db: Kysely<DB>, contentHash: string, size: number): Promise<void> {
  await db
    .insertInto('document_blobs')
    .values({ content_hash: contentHash, upload_id: randomUUID(), size: String(size), chunk_count: Math.ceil(size / chunkBytes) })
    .onConflict((oc) => oc.column('content_hash').doNothing())
    .execute();
}

// One statement per chunk: at most one chunk in memory, however large the document.
async function* readChunks(db: Kysely<DB>, uploadId: string, count: number): AsyncGenerator<Uint8Array> {
  for (let seq = 0; seq < count; seq++) {
    const row = await db.selectFrom('document_chunks').select('bytes').where('upload_id', '=', uploadId).where('seq', '=', seq).executeTakeFirst();
    if (!row) throw new Error(`chunk ${seq} of upload ${uploadId} is missing`);
    yield row.bytes;
  }
}

async function deleteChunks(db: Kysely<DB>, uploadId: string): Promise<void> {
  await db.deleteFrom('document_chunks').where('upload_id', '=', uploadId).execute();
}

/**
 * Deletes the chunks of uploads that never ended (no blob names them) whose last chunk was written
 * more than `olderThanSeconds` ago; returns how many chunks went.
 */
export async function sweepDocumentChunks(db: Kysely<DB>, olderThanSeconds: number): Promise<number> {
  const result = await sql<{ n: number }>`
    with gone as (
      delete from document_chunks c
      where not exists (select 1 from document_blobs b where b.upload_id = c.upload_id)
        and c.upload_id in (select upload_id from document_chunks group by upload_id
          having max(written_at) < now() - make_interval(secs => ${olderThanSeconds}))
      returning 1)
    select count(*)::int as n from gone`.execute(db);
  return result.rows[0]!.n;
}

/** What a virus scanner says of a content: clean, or refused with a reason a person can read. */
export type ScanVerdict = { clean: true } | { clean: false; reason: string };

/**
 * The extension point for a virus scanner (docs/reference/documents.md, "Virus scanning"): it reads
 * the stored content (a chunk at a time, as `get` gives it) before a document that names it is
 * recorded; a content it refuses is recorded as no document.
 */
export type ContentScanner = (contentHash: string, content: ContentReader) => Promise<ScanVerdict>;

/** The default scanner: scans nothing and finds every content clean. */
export const noScan: ContentScanner = async () => ({ clean: true });

/** Runs `scanner` over the stored content with this hash; undefined when none is stored. */
export async function scanContent(contents: DocumentContents, contentHash: string, scanner: ContentScanner): Promise<ScanVerdict | undefined> {
  const reader = await contents.get(contentHash);
  return reader && scanner(contentHash, reader);
}

/** Of these contents, the ones no document_blobs row names (deleted, and not stored again since). */
export async function unrecordedAmong(db: Kysely<DB>, contentHashes: readonly string[]): Promise<string[]> {
  if (contentHashes.length === 0) return [];
  const kept = await db
    .selectFrom('document_blobs')
    .select('content_hash')
    .where('content_hash', 'in', [...contentHashes])
    .execute();
  const named = new Set(kept.map((r) => r.content_hash));
  return contentHashes.filter((h) => !named.has(h));
}
