// The store of document contents chosen at start (DOCUMENT_STORE; docs/reference/documents.md,
// "Storage"), opened once by the composition root and handed to operations in their Deps.
import type { DocumentStoreConfig } from '../config.ts';
import { type ContentStore, databaseContents } from './document-contents.ts';

/** The store DOCUMENT_STORE names; the S3 client is loaded only when it is the one. */
export async function openContentStore(config: DocumentStoreConfig): Promise<ContentStore> {
  if (config.kind === 'database') return { contents: databaseContents, close() {} };
  const { s3Contents } = await import('./s3-contents.ts');
  return s3Contents(config.s3);
}
