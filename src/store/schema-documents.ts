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

/** Migration 0053: a deal's subscription agreement templates; history, never changed. */
export interface AgreementTemplatesTable {
  id: string;
  deal_id: string;
  content_hash: string;
  uploaded_by: string;
  uploaded_at: Date;
}

/** The passkey challenges of signings: each binds one document's hash; answered once. */
export interface AgreementChallengesTable {
  challenge: string;
  deal_id: string;
  investor_user_id: string;
  role: 'investor' | 'countersigner';
  signer: string;
  content_hash: string;
  created_at: Date;
  expires_at: Date;
  answered_at: Date | null;
}

/** Every signature of an agreement: the investor's and the countersignature; history, never changed. */
export interface AgreementSignaturesTable {
  id: string;
  deal_id: string;
  investor_user_id: string;
  role: 'investor' | 'countersigner';
  signer: string;
  signed_hash: string;
  sealed_hash: string;
  credential_id: string;
  assertion: unknown;
  ip: string;
  signed_at: Date;
}

/** The development seal made at first start when no certificate is configured. */
export interface SealKeysTable {
  name: string;
  private_key: Uint8Array;
  certificate: Uint8Array;
  created_at: Date;
}

/** The view of migration 0055: an agreement the investor signed and nobody countersigned yet (read only). */
export interface DocumentsToCountersignView {
  deal_id: string;
  investor_user_id: string;
  signature_id: string;
  signed_at: Date;
}

/** The tables of migration 0053 and the view of 0055, as DB (schema.ts) names them. */
export interface AgreementTables {
  agreement_templates: AgreementTemplatesTable;
  agreement_challenges: AgreementChallengesTable;
  agreement_signatures: AgreementSignaturesTable;
  seal_keys: SealKeysTable;
  documents_to_countersign: DocumentsToCountersignView;
}
