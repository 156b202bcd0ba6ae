// The gauges a scrape of /metrics reads from the database (src/metrics.ts): queues and lags that
// every instance shares. One statement of index probes and small aggregates, so a scrape every
// 15 s costs the database next to nothing.
import { type Kysely, sql } from 'kysely';
import type { DatabaseReadings } from '../metrics.ts';
import type { DB } from './schema.ts';

interface Row {
  webhooks_pending: string;
  webhooks_oldest_due: number | null;
  outbox_oldest_undelivered: number | null;
  outbox_head: string | null;
  reconciliation: Record<string, number> | null;
  funnel_pending: string;
  funnel_oldest_waiting: number | null;
  import_jobs: Record<string, number> | null;
}

export async function readDatabaseReadings(db: Kysely<DB>): Promise<DatabaseReadings> {
  const { rows } = await sql<Row>`
    with pending as (
      select d.next_attempt_at, d.created_at from webhook_deliveries d where d.delivered_at is null and d.dead_at is null
    )
    select
      (select count(*) from pending)::text as webhooks_pending,
      (select greatest(0, extract(epoch from (now() - min(next_attempt_at))))::float8 from pending) as webhooks_oldest_due,
      (select greatest(0, extract(epoch from (now() - min(created_at))))::float8 from pending) as outbox_oldest_undelivered,
      (select last_value::text from outbox_position) as outbox_head,
      (select jsonb_object_agg(outcome, n) from (select outcome, count(*) as n from payment_lines where status = 'queued' group by outcome) q) as reconciliation,
      (select count(*) from (select 1 from funnel_pending limit 100000) f)::text as funnel_pending,
      (select greatest(0, extract(epoch from (now() - a.at)))::float8 from audit_log a
        where (a.xid, a.position) > ((select followed_xid from funnel_upkeep where id = 1), (select followed_position from funnel_upkeep where id = 1))
        order by a.xid, a.position limit 1) as funnel_oldest_waiting,
      (select jsonb_object_agg(status, n) from (select status, count(*) as n from import_jobs group by status) j) as import_jobs
  `.execute(db);
  const row = rows[0]!;
  return {
    webhooksPending: Number(row.webhooks_pending),
    webhooksOldestDueSeconds: row.webhooks_oldest_due ?? 0,
    outboxOldestUndeliveredSeconds: row.outbox_oldest_undelivered ?? 0,
    outboxHeadPosition: Number(row.outbox_head ?? 0),
    reconciliationQueue: row.reconciliation ?? {},
    funnelPending: Number(row.funnel_pending),
    funnelLagSeconds: row.funnel_oldest_waiting ?? 0,
    importJobs: row.import_jobs ?? {},
  };
}
