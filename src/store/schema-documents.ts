// Row types of a deal's documents, as schema.ts's: the rows as the drivers return them.

/** Migration 0044: a deal's documents, their releases and their reads; history, never changed. */
export interface DealDocumentsTable {
  id: string;
  deal_id: string;
  title: string;
  file_name: string;
  content_hash: string;
  /** bigint, read as text (store/database.ts). */
  size: string;
  uploaded_by: string;
  uploaded_at: Date;
}

export interface DocumentReleasesTable {
  id: string;
  document_id: string;
  deal_id: string;
  step_id: string | null;
  investor_user_id: string | null;
  released_by: string;
  released_at: Date;
}

export interface DocumentReadsTable {
  id: string;
  document_id: string;
  deal_id: string;
  reader: string;
  reader_role: string;
  read_at: Date;
}
