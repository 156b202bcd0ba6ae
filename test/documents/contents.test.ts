// Document contents in the database: content-addressed, kept once, in and out a chunk at a time.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  chunkBytes,
  ContentTooLarge,
  databaseContents,
  type DocumentContents,
  EmptyContent,
  noScan,
  rechunk,
  scanContent,
  sweepDocumentChunks,
} from '../../src/store/document-contents.ts';
import { openTestDatabase, type TestDatabase } from '../support/app.ts';

// Yields `bytes` in pieces of uneven sizes, as a request body arrives.
async function* pieces(bytes: Buffer, size = 70_001): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function readAll(contents: DocumentContents, hash: string): Promise<{ bytes: Buffer; largestChunk: number }> {
  const reader = await contents.get(hash);
  assert.ok(reader);
  const parts: Buffer[] = [];
  for await (const chunk of reader.chunks) parts.push(Buffer.from(chunk));
  const bytes = Buffer.concat(parts);
  assert.equal(bytes.length, reader.size);
  return { bytes, largestChunk: Math.max(...parts.map((p) => p.length)) };
}

const count = async (database: TestDatabase, table: 'document_chunks' | 'document_blobs') =>
  Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('document contents in the database', () => {
  let database: TestDatabase;
  let contents: DocumentContents;
  before(async () => {
    database = await openTestDatabase();
    contents = databaseContents(database.db);
  });
  after(async () => {
    await database.close();
  });

  test('rechunk cuts any pieces into chunks of the given size, the last one shorter', async () => {
    const bytes = randomBytes(1000);
    const out: Buffer[] = [];
    for await (const c of rechunk(pieces(bytes, 37), 300)) out.push(Buffer.from(c));
    assert.deepEqual(
      out.map((c) => c.length),
      [300, 300, 300, 100],
    );
    assert.ok(Buffer.concat(out).equals(bytes));
  });

  test('a file of several chunks comes back byte for byte, named by its SHA-256, a chunk at a time', async () => {
    const bytes = randomBytes(2 * chunkBytes + 12_345);
    const stored = await contents.put(pieces(bytes), 10 * chunkBytes);
    assert.deepEqual(stored, { contentHash: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, deduplicated: false });
    const { bytes: back, largestChunk } = await readAll(contents, stored.contentHash);
    assert.ok(back.equals(bytes));
    assert.equal(largestChunk, chunkBytes);
  });

  test('the same content uploaded again is kept once', async () => {
    const bytes = randomBytes(chunkBytes + 1);
    const first = await contents.put(pieces(bytes), 10 * chunkBytes);
    const [chunks, blobs] = [await count(database, 'document_chunks'), await count(database, 'document_blobs')];
    const second = await contents.put(pieces(bytes, 999), 10 * chunkBytes);
    assert.equal(second.contentHash, first.contentHash);
    assert.equal(second.deduplicated, true);
    assert.equal(await count(database, 'document_chunks'), chunks);
    assert.equal(await count(database, 'document_blobs'), blobs);
  });

  test('more than the limit is refused and leaves nothing; so is an empty file', async () => {
    const [chunks, blobs] = [await count(database, 'document_chunks'), await count(database, 'document_blobs')];
    await assert.rejects(contents.put(pieces(randomBytes(chunkBytes + 10)), chunkBytes), ContentTooLarge);
    await assert.rejects(contents.put(pieces(Buffer.alloc(0)), chunkBytes), EmptyContent);
    assert.equal(await count(database, 'document_chunks'), chunks);
    assert.equal(await count(database, 'document_blobs'), blobs);
  });

  test('content never stored is undefined', async () => {
    assert.equal(await contents.get('0'.repeat(64)), undefined);
  });

  test('the sweep deletes old chunks of uploads that never ended, and nothing else', async () => {
    const kept = await count(database, 'document_chunks');
    const abandoned = '00000000-0000-4000-8000-000000000001';
    const recent = '00000000-0000-4000-8000-000000000002';
    await sql`insert into document_chunks (upload_id, seq, bytes, written_at)
      values (${abandoned}, 0, '\\x01', now() - interval '2 hours'), (${abandoned}, 1, '\\x02', now() - interval '2 hours'),
             (${recent}, 0, '\\x03', now())`.execute(database.db);
    assert.equal(await sweepDocumentChunks(database.db, 3600), 2);
    assert.equal(await count(database, 'document_chunks'), kept + 1);
  });

  test('a scanner reads the stored content and its verdict is answered; the default finds it clean', async () => {
    const bytes = Buffer.from('%PDF-1.7 X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*');
    const { contentHash } = await contents.put(pieces(bytes), chunkBytes);
    assert.deepEqual(await scanContent(contents, contentHash, noScan), { clean: true });
    const eicar = async (_hash: string, content: { chunks: AsyncIterable<Uint8Array> }) => {
      for await (const chunk of content.chunks) if (Buffer.from(chunk).includes('EICAR')) return { clean: false as const, reason: 'EICAR test file' };
      return { clean: true as const };
    };
    assert.deepEqual(await scanContent(contents, contentHash, eicar), { clean: false, reason: 'EICAR test file' });
    assert.equal(await scanContent(contents, '1'.repeat(64), noScan), undefined);
  });
});
