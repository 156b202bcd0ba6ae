// Document contents in a bucket of an S3-compatible object store (DOCUMENT_STORE=s3;
// docs/reference/documents.md, "Storage"). Content-addressed as the database's own store is: each
// distinct content is one object named by its SHA-256, `sha256/ab/abcdef…`, written once. Its row
// in document_blobs (size, no chunks) is written too, through the caller's handle: the records'
// foreign keys name it, and it is what tells a database backup which objects it needs.
//
// The hash is known only when the last byte has arrived, and a file is never whole in memory, so
// the upload takes one of two paths:
// - a content shorter than one part (5 MiB) is read whole first (at most that much is held): its
//   hash is then known before anything is sent, and it is put at its final key unless an object is
//   there already. Nothing is ever written for a refused one.
// - a longer one goes, a part at a time, into a multipart upload at a temporary key
//   (`incoming/<uuid>`); once complete, the object is copied to its final key unless one is there
//   already, and the temporary one deleted. A refusal (too large, not the declared type, the client
//   gone) aborts the multipart upload, which keeps nothing. An abort or a delete that fails (the
//   store gone meanwhile, or a server without AbortMultipartUpload) leaves an incomplete upload or
//   an object under `incoming/`: the bucket's lifecycle rules remove them (docs/reference/documents.md).
// Whether a content is there already is the object store's answer (a HEAD of the final key), not
// the row's: a bucket restored from an older copy gets back what it lacks. Two uploads of the same
// new bytes at once may both write the final key, with the same bytes: nothing is lost, and each
// says it was not deduplicated.
//
// Checksums: SDK v3 adds CRC32 checksums to every request and checks them on answers by default,
// which S3-compatible servers do not all speak (s3rver, older MinIO and Ceph). They are asked for
// only where S3 requires them; every content is named by its SHA-256 anyway.
import { createHash, randomUUID } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { type ContentStore, ContentTooLarge, type DocumentContents, EmptyContent, recordContent, rechunk, unrecordedAmong } from './document-contents.ts';
import type { Db } from './schema.ts';

/** Every part of a multipart upload but the last (S3's smallest), and so the most bytes of one upload held in memory. */
export const partBytes = 5 * 1024 * 1024;

/** The object that holds the content with this SHA-256. */
export const contentKey = (contentHash: string) => `sha256/${contentHash.slice(0, 2)}/${contentHash}`;

/** Where a multipart upload goes until its hash is known. */
export const INCOMING_PREFIX = 'incoming/';

const isNotFound = (err: unknown) =>
  (err as { name?: string }).name === 'NotFound' ||
  (err as { name?: string }).name === 'NoSuchKey' ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

export function s3Contents(config: S3Config): ContentStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    forcePathStyle: config.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer fails the request rather than holding it; a download that the
    // client stops reading for a minute is cut.
    requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
  });
  const Bucket = config.bucket;

  /** The size of the object at `key`; undefined when there is none. */
  async function sizeOf(key: string): Promise<number | undefined> {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket, Key: key }))).ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The parts, in order, into a multipart upload at a temporary key; aborted when anything fails. */
  async function uploadParts(parts: AsyncIterator<Uint8Array>, first: Uint8Array): Promise<string> {
    const Key = `${INCOMING_PREFIX}${randomUUID()}`;
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    try {
      const done: { PartNumber: number; ETag: string | undefined }[] = [];
      for (let part: IteratorResult<Uint8Array> = { done: false, value: first }; !part.done; part = await parts.next()) {
        const PartNumber = done.length + 1;
        const { ETag } = await client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part.value, ContentLength: part.value.length }));
        done.push({ PartNumber, ETag });
      }
      await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
      return Key;
    } catch (err) {
      await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
      throw err;
    }
  }

  /** The object's bytes as they arrive; the request is made when the first chunk is asked for. */
  async function* read(key: string, size: number): AsyncGenerator<Uint8Array> {
    const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
    if (object.ContentLength !== size) throw new Error(`the object ${key} changed size (${size} then ${object.ContentLength} bytes)`);
    let seen = 0;
    for await (const chunk of object.Body as AsyncIterable<Uint8Array>) {
      seen += chunk.length;
      yield chunk;
    }
    if (seen !== size) throw new Error(`the object ${key} ended after ${seen} of ${size} bytes`);
  }

  /** Stores what `source` yields at its key (see above); whether an object was there already. */
  async function upload(source: AsyncIterable<Uint8Array>, maxBytes: number) {
    const hash = createHash('sha256');
    let size = 0;
    // Counted and hashed as the bytes arrive, so a file too large is refused at its first byte too many.
    const counted = async function* () {
      for await (const piece of source) {
        size += piece.length;
        if (size > maxBytes) throw new ContentTooLarge(maxBytes);
        hash.update(piece);
        yield piece;
      }
    };
    const parts = rechunk(counted(), partBytes)[Symbol.asyncIterator]();
    const first = await parts.next();
    if (first.done) throw new EmptyContent();
    if (first.value.length < partBytes) {
      // A short part is the last one: the whole content is here, and its hash known.
      await parts.next();
      const contentHash = hash.digest('hex');
      const Key = contentKey(contentHash);
      const there = (await sizeOf(Key)) !== undefined;
      if (!there) await client.send(new PutObjectCommand({ Bucket, Key, Body: first.value, ContentLength: first.value.length }));
      return { contentHash, size, deduplicated: there };
    }
    const incoming = await uploadParts(parts, first.value);
    try {
      const contentHash = hash.digest('hex');
      const Key = contentKey(contentHash);
      const there = (await sizeOf(Key)) !== undefined;
      // One copy inside the store (up to 5 GiB, far above the largest document).
      if (!there) await client.send(new CopyObjectCommand({ Bucket, Key, CopySource: `${Bucket}/${incoming}` }));
      return { contentHash, size, deduplicated: there };
    } finally {
      await client.send(new DeleteObjectCommand({ Bucket, Key: incoming })).catch(() => {});
    }
  }

  const contents = (db: Db): DocumentContents => ({
    async put(source, maxBytes) {
      const stored = await upload(source, maxBytes);
      await recordContent(db, stored.contentHash, stored.size);
      return stored;
    },

    async get(contentHash) {
      const key = contentKey(contentHash);
      const size = await sizeOf(key);
      return size === undefined ? undefined : { size, chunks: read(key, size) };
    },
  });

  // An erased investor's contents: the erasure deleted their rows; their objects go now, each only
  // while no row names it again (the same bytes uploaded since keep theirs).
  async function forget(db: Db, contentHashes: readonly string[]): Promise<number> {
    const gone = await unrecordedAmong(db, contentHashes);
    for (const contentHash of gone) await client.send(new DeleteObjectCommand({ Bucket, Key: contentKey(contentHash) }));
    return gone.length;
  }

  return { contents, forget, close: () => client.destroy() };
}
