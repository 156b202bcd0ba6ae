// Row types of every table, as the drivers return them (see database.ts: numeric and int8 come back
// as strings, timestamptz as Date). Row ↔ domain mapping happens in the store module of each table.
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { OutboxTable, StepTriggersTable, WebhookDeliveriesTable, WebhookSecretsTable } from './schema-feed.ts';
import type { DocumentBlobsTable, DocumentChunksTable } from './schema-documents-content.ts';
import type {
  ApiTokensTable,
  OidcSignInsTable,
  PasskeysTable,
  SignInInvitationsTable,
  SignInSessionsTable,
  StaffPeopleTable,
  WebauthnChallengesTable,
} from './schema-sign-in.ts';
import type { AgreementTables, DealDocumentsTable, DocumentReadsTable, DocumentReleasesTable } from './schema-documents.ts';
import type { ApprovalTables } from './schema-approvals.ts';
import type { KycCheckTables } from './schema-kyc-checks.ts';
import type { MailTables } from './schema-mail.ts';
import type { KycTables } from './schema-kyc.ts';

export type * from './schema-feed.ts';
export type * from './schema-documents-content.ts';
export type * from './schema-sign-in.ts';
export type * from './schema-documents.ts';
export type * from './schema-approvals.ts';
export type * from './schema-mail.ts';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface DealsTable {
  id: string;
  name: string;
  description: string | null;
  currency: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface InvestorsTable {
  id: string;
  remote_id: string;
  data_source: string;
  team_user_id: string | null;
  kyc_check_level: number | null;
  /** The investor's contact object as in the interface (listActiveInvestors), whole. */
  contact: ColumnType<unknown, string, string>;
  full_name: string;
  email: string | null;
  status: string;
  /** The language of the investor's e-mails (migration 0052); null: English. */
  language: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
  updated_at: Date;
}

/** jsonb: written as a JSON string, read back parsed. */
type Json<T = unknown> = ColumnType<T, string, string>;

export interface WorkflowsTable {
  deal_id: string;
  id: string;
  label: string;
  description: string;
  investor_engagement_enabled: boolean;
  /** Incremented on every PUT of the workflow (cache invalidation, optimistic checks). */
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface WorkflowStepsTable {
  id: string;
  deal_id: string;
  label: string;
  type: string;
  /** Order of the step in the workflow document as last applied. */
  position: number;
  /** StepField[] (domain/workflow.ts). */
  fields: Json;
  /** Requirement[] (domain/workflow.ts). */
  requirements: Json;
  form_id: string | null;
  /** Step triggers (webhooks). */
  triggers: ColumnType<unknown, string | undefined, string>;
  /** Set when a re-applied workflow no longer has the step; past events still name it. */
  retired_at: Date | null;
}

export interface WorkflowLinksTable {
  deal_id: string;
  from_step_id: string;
  to_step_id: string;
  /** The investor may move themselves along it (migration 0027). */
  investor_may: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface JourneysTable {
  deal_id: string;
  investor_user_id: string;
  current_step_id: string;
  event_count: number;
  /** ISO 11649 RF creditor reference, assigned with the first event, never changed. */
  payment_reference: string;
  started_at: Date;
  moved_at: Date;
  /** A copy of the investor's full name, the list order; kept by triggers (migration 0008). */
  investor_full_name: Generated<string>;
  /** The feed key (xid8, as text) of the journey's last outbox entry (migration 0009). */
  feed_xid: Generated<string>;
  /** The journey's audit chain head: its last entry's seq (0: none yet) and hash (migration 0014). */
  audit_seq: Generated<string>;
  audit_head: Generated<string | null>;
  /** The workflow version the journey moves on until migrated (migration 0015). */
  workflow_version: ColumnType<number | null, number | null | undefined, number | null>;
  /** Its events' data merged in sequence order, a later value of a key winning (migration 0021). */
  captured: ColumnType<Record<string, string>, string | undefined, string>;
  /** The steps it has entered, in order of first entry (migration 0021). */
  visited: ColumnType<string[], string[] | undefined, string[]>;
}

/** Journeys with an event per deal, in 16 rows per deal summed when read (migration 0008). */
export interface DealJourneyCountsTable {
  deal_id: string;
  shard: number;
  journeys: string;
}

export interface WorkflowEventsTable {
  id: string;
  deal_id: string;
  investor_user_id: string;
  /** 1, 2, 3… within the journey. */
  seq: number;
  from_step_id: string | null;
  to_step_id: string;
  /** The current data (the latest revision). */
  data: Json<Record<string, string>>;
  created_by_user_id: string;
  created_at: Date;
  /** The workflow version the event was made under; null before versions were recorded (0015). */
  workflow_version: ColumnType<number | null, number | null | undefined, never>;
}

/** Every version of a deal's workflow, as applied (migration 0015); never changed. */
export interface WorkflowVersionsTable {
  deal_id: string;
  version: number;
  /** The Workflow (domain/workflow.ts) of that version. */
  structure: Json;
  /** Old step id → new step id, named by the PUT for steps it removed under investors. */
  step_mapping: ColumnType<Record<string, string>, string | undefined, never>;
  created_at: Date;
}

export interface EventRevisionsTable {
  event_id: string;
  revision: number;
  data: Json<Record<string, string>>;
  set_by_user_id: string;
  set_at: Date;
  reason: string | null;
}

export interface FormImplementationsTable {
  id: string;
  step_id: string;
  investor_user_id: string;
  form_id: string;
  created_at: Date;
}

export interface EditRequestsTable {
  id: string;
  workflow_event_id: string;
  deal_id: string;
  investor_user_id: string;
  type: string;
  reason: string;
  new_data: Json<Record<string, string> | null> | null;
  status: string;
  created_by_user_id: string;
  created_at: Date;
  decided_at: Date | null;
  decided_by_user_id: string | null;
  decision_reason: string | null;
  /** Arrival order (migration 0006a): newest first is seq descending. */
  seq: Generated<string>;
}

export interface AssetsTable {
  /** bigint: read back as a string, converted in store/assets.ts. */
  id: ColumnType<string, number, never>;
  name: string;
  currency: string;
  created_at: Date;
  updated_at: Date;
}

/** numeric: written and read as decimal text, never as a JS number. */
type Numeric = ColumnType<string, string, never>;

export interface SubscriptionsTable {
  id: string;
  asset_id: ColumnType<string, number, never>;
  investor_id: string;
  units: Numeric;
  price_per_unit: Numeric;
  total: Numeric;
  fee: Numeric;
  funding_source: string;
  /** date: written as YYYY-MM-DD; read as text (store selects `::text`, never a JS Date). */
  invoice_date: ColumnType<unknown, string, never>;
  settlement_date: ColumnType<unknown, string, never>;
  source: string | null;
  source_id: string | null;
  description: string | null;
  created_by_user_id: string;
  created_at: Date;
}

/** Per-move outcomes of an idempotent bulk move request still in progress (migration 0009). */
export interface BulkMoveResultsTable {
  scope: string;
  key: string;
  fingerprint: string;
  item: number;
  result: unknown;
  created_at: Date;
}

export interface ImportJobsTable {
  id: string;
  /** statement | investors | moves */
  kind: string;
  deal_id: string | null;
  dry_run: boolean;
  /** The principal's userId that created the job. */
  created_by: string;
  /** running | succeeded | failed */
  status: string;
  bytes: string | number;
  progress: unknown;
  result: unknown;
  created_at: Date;
  heartbeat_at: Date;
  finished_at: Date | null;
}

export interface IdempotencyKeysTable {
  /** The caller's token (Principal.tokenKey). */
  scope: string;
  key: string;
  /** SHA-256 of method, path and canonical body. */
  fingerprint: string;
  status: 'in-progress' | 'done';
  lease_id: string;
  response_status: number | null;
  /** The response body exactly as first sent (text, not jsonb, so a replay is byte-identical). */
  response_body: string | null;
  created_at: Date;
  expires_at: Date;
}

/** The first start of an embedded installation (one row, id 1): see operations/first-run.ts. */
export interface FirstRunTable {
  id: number;
  token_id: string | null;
  token_shown_at: Date | null;
  started_at: Date;
  completed_at: Date | null;
}

/** Which events were written together (migration 0025): one row per event, for undoing a batch. */
export interface MoveBatchEventsTable {
  event_id: string;
  batch_id: string;
  /** move, bulk-move, import, payment-decision, reconciliation, undo */
  kind: string;
  /** An undo's rows: the batch it undid. */
  undoes: string | null;
  deal_id: string;
  investor_user_id: string;
  from_step_id: string | null;
  to_step_id: string;
  created_by: string;
  created_at: Date;
}

/** Migration 0043: each signed statement of an investor's category; the newest counts. */
export interface InvestorCategoryStatementsTable {
  id: string;
  seq: Generated<string>;
  investor_id: string;
  category: string;
  statement_text: string;
  evidence: string | null;
  /** `date` columns: read them cast to text (YYYY-MM-DD), as store/investor-categories.ts does. */
  signed_on: string;
  expires_on: string;
  recorded_by: string;
  recorded_at: Date;
  /** The investor's confirmation in the portal it records (migration 0050); null: recorded by staff. */
  confirmation_id: Generated<string | null>;
}

export interface DB extends ApprovalTables, KycCheckTables, KycTables, MailTables, AgreementTables {
  deal_documents: DealDocumentsTable;
  document_releases: DocumentReleasesTable;
  document_reads: DocumentReadsTable;
  investor_category_statements: InvestorCategoryStatementsTable;
  document_chunks: DocumentChunksTable;
  document_blobs: DocumentBlobsTable;
  api_tokens: ApiTokensTable;
  first_run: FirstRunTable;
  deals: DealsTable;
  investors: InvestorsTable;
  workflows: WorkflowsTable;
  workflow_steps: WorkflowStepsTable;
  workflow_links: WorkflowLinksTable;
  journeys: JourneysTable;
  workflow_events: WorkflowEventsTable;
  workflow_versions: WorkflowVersionsTable;
  event_revisions: EventRevisionsTable;
  /** A view (migration 0042): every revision, revision 1 read from the event when no row holds it. Read only. */
  all_event_revisions: EventRevisionsTable;
  form_implementations: FormImplementationsTable;
  edit_requests: EditRequestsTable;
  assets: AssetsTable;
  subscriptions: SubscriptionsTable;
  idempotency_keys: IdempotencyKeysTable;
  bulk_move_results: BulkMoveResultsTable;
  import_jobs: ImportJobsTable;
  outbox: OutboxTable;
  webhook_secrets: WebhookSecretsTable;
  step_triggers: StepTriggersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  deal_journey_counts: DealJourneyCountsTable;
  move_batch_events: MoveBatchEventsTable;
  sign_in_invitations: SignInInvitationsTable;
  passkeys: PasskeysTable;
  sign_in_sessions: SignInSessionsTable;
  webauthn_challenges: WebauthnChallengesTable;
  staff_people: StaffPeopleTable;
  oidc_sign_ins: OidcSignInsTable;
}

export type { Generated };

/** The database handle the other layers pass along (a pool, or a transaction of it), as a type only. */
export type Db = Kysely<DB>;
