// The tables of KYC evidence (migration 0050), apart from schema.ts to keep each file about one thing.
import type { Generated } from 'kysely';

export interface DealKycSettingsTable {
  deal_id: string;
  step_id: string;
  level: number;
  documents: string[];
  updated_by: string;
  updated_at: Date;
}

export interface KycDocumentsTable {
  id: string;
  seq: Generated<string>;
  deal_id: string;
  investor_id: string;
  kind: string;
  file_name: string;
  media_type: string;
  content_hash: string;
  size: string;
  uploaded_by: string;
  uploaded_at: Date;
}

export interface KycDocumentReviewsTable {
  document_id: string;
  decision: string;
  reason: string | null;
  reviewed_by: string;
  reviewed_at: Date;
}

export interface KycLevelsTable {
  id: string;
  seq: Generated<string>;
  investor_id: string;
  deal_id: string;
  level: number;
  /** `date` columns: read them cast to text (YYYY-MM-DD). */
  accepted_on: string;
  expires_on: string;
  recorded_by: string;
  recorded_at: Date;
}

export interface CategoryConfirmationsTable {
  id: string;
  seq: Generated<string>;
  deal_id: string;
  investor_id: string;
  category: string;
  statement_text: string;
  needs_review: boolean;
  confirmed_at: Date;
  ip: string;
}

export interface KycTables {
  deal_kyc_settings: DealKycSettingsTable;
  kyc_documents: KycDocumentsTable;
  kyc_document_reviews: KycDocumentReviewsTable;
  kyc_levels: KycLevelsTable;
  category_confirmations: CategoryConfirmationsTable;
}
