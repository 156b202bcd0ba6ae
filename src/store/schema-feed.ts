// Row types of the feed's tables (outbox, webhooks), as schema.ts's: the rows as the drivers return them.
import type { ColumnType, Generated } from 'kysely';

export interface OutboxTable {
  id: string;
  stream: string;
  /** From the sequence `outbox_position`; entries before migration 0009 keep their per-stream numbers. */
  sequence: ColumnType<string, number | string | undefined, never>;
  /** The feed key (xid8, as text): the writer's transaction id, or its journey's last key if greater. */
  xid: ColumnType<string, string, never>;
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
