// Row types of the documents' contents, as schema.ts's: the rows as the drivers return them.
import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface DocumentChunksTable {
  upload_id: string;
  seq: number;
  bytes: Uint8Array;
  written_at: CreatedAt;
}

export interface DocumentBlobsTable {
  /** SHA-256 of the content, hex. */
  content_hash: string;
  upload_id: string;
  size: string;
  chunk_count: number;
  created_at: CreatedAt;
}
