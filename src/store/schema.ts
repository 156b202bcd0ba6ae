// Row types of every table, as the drivers return them (see database.ts: numeric and int8 come back
// as strings, timestamptz as Date). Row ↔ domain mapping happens in the store module of each table.
import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface ApiTokensTable {
  id: string;
  name: string;
  role: string;
  investor_user_id: string | null;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface DealsTable {
  id: string;
  name: string;
  description: string | null;
  currency: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OutboxSequencesTable {
  /** `deal:<dealId>`, or `platform` for entries without a deal. */
  stream: string;
  last_sequence: string;
}

export interface OutboxTable {
  id: string;
  stream: string;
  sequence: ColumnType<string, number | string, never>;
  type: string;
  occurred_at: Date;
  deal_id: string | null;
  payload: ColumnType<unknown, string, never>;
}

export interface WebhookSecretsTable {
  id: string;
  secret: string;
  created_at: Date;
}

export interface StepTriggersTable {
  id: string;
  deal_id: string;
  step_id: string;
  position: number;
  kind: string;
  url: string;
  secret_id: string | null;
  events: string[];
}

export interface WebhookDeliveriesTable {
  id: string;
  outbox_id: string;
  deal_id: string | null;
  event_type: string;
  url: string;
  secret_id: string | null;
  created_at: Date;
  attempts: Generated<number>;
  failures: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  claimed_until: Date | null;
  claim_id: string | null;
  delivered_at: Date | null;
  dead_at: Date | null;
}

export interface DB {
  api_tokens: ApiTokensTable;
  deals: DealsTable;
  outbox_sequences: OutboxSequencesTable;
  outbox: OutboxTable;
  webhook_secrets: WebhookSecretsTable;
  step_triggers: StepTriggersTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type { Generated };
