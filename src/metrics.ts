// The service's Prometheus metrics (docs/operations/README.md lists them): one registry, the metric
// objects, and small functions the layers call to record what happened. A leaf module, as config.ts
// is: it imports nothing of ours, so store/, operations/ and http/ may all record into it
// (.dependency-cruiser.cjs). Recording is a few arithmetic operations in memory; nothing is sent
// anywhere until a scrape of GET /metrics (or of METRICS_LISTEN) renders the registry.
//
// Names follow Prometheus' conventions: a `dealflow_` prefix, base units (`_seconds`, `_bytes`),
// `_total` on counters. The process and Node.js metrics (memory, event-loop delay, GC, handles) are
// prom-client's defaults under their usual names (`process_*`, `nodejs_*`), which dashboards know.
// Gauges read from the database (queues, lags) are the same for every instance on one database:
// aggregate them with max(), not sum().
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

let defaultMetrics = false;

/**
 * Adds prom-client's process and Node.js metrics (memory, event-loop delay, GC, handles, CPU) to
 * the registry: called once metrics are served (METRICS_TOKEN or METRICS_LISTEN), so that without
 * them no event-loop monitor or GC observer runs.
 */
export function enableDefaultMetrics(): void {
  if (defaultMetrics) return;
  defaultMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
}

/** Request duration buckets: a move takes milliseconds; an import or an export may take seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'dealflow_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'dealflow_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by method, route pattern and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: DURATION_BUCKETS,
  registers: [registry],
});

/**
 * Counts one answered request. `route` is the route's pattern (`/deals/deal/:dealId/jump-to-step`),
 * never the raw URL, so the series stay few; a request no route matched is `unmatched`.
 */
export function observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
  const key = `${method} ${statusCode} ${route}`;
  let series = requestSeries.get(key);
  if (series === undefined) {
    const labels = { method, route, status_code: String(statusCode) };
    series = { count: httpRequests.labels(labels), duration: httpRequestDuration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.duration.observe(seconds);
}

// Each series' children, looked up once: prom-client hashes the labels on every call otherwise
// (about 13 µs a request against under 1 µs). Route patterns, methods and statuses are few.
const requestSeries = new Map<string, { count: ReturnType<typeof httpRequests.labels>; duration: ReturnType<typeof httpRequestDuration.labels> }>();

export const poolWait = new Histogram({
  name: 'dealflow_db_pool_wait_seconds',
  help: 'Time a statement or transaction waited for a pooled database connection (PostgreSQL)',
  labelNames: ['pool'] as const,
  buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
});

export const statementErrors = new Counter({
  name: 'dealflow_db_statement_errors_total',
  help: 'Database statements that failed, by SQLSTATE (40001 serialization, 40P01 deadlock, 57014 timeout, 23505 unique, …; "none" without one)',
  labelNames: ['sqlstate'] as const,
  registers: [registry],
});

/** Counts one failed statement by its SQLSTATE (the driver's `code`). */
export function countStatementError(err: unknown): void {
  const code = (err as { code?: unknown } | undefined)?.code;
  statementErrors.inc({ sqlstate: typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : 'none' });
}

export interface PoolReading {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

const pools = new Map<string, () => PoolReading>();

/**
 * A pool whose connections the scrape reports (`pool` is `primary` or `replica:host:port/db`);
 * returns the function that stops reporting it (the pool closed).
 */
export function trackPool(name: string, read: () => PoolReading): () => void {
  pools.set(name, read);
  return () => {
    if (pools.get(name) === read) pools.delete(name);
  };
}

new Gauge({
  name: 'dealflow_db_pool_connections',
  help: 'Connections of a database pool: state="in_use" (lent to a statement), "idle", "max" (DATABASE_POOL_SIZE)',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [pool, read] of pools) {
      const r = read();
      this.set({ pool, state: 'in_use' }, r.total - r.idle);
      this.set({ pool, state: 'idle' }, r.idle);
      this.set({ pool, state: 'max' }, r.max);
    }
  },
});

new Gauge({
  name: 'dealflow_db_pool_waiting_requests',
  help: 'Statements or transactions waiting for a pooled connection right now',
  labelNames: ['pool'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [pool, read] of pools) this.set({ pool }, read().waiting);
  },
});

export const groupCommitBatchSize = new Histogram({
  name: 'dealflow_group_commit_batch_size',
  help: 'Moves committed together in one group-commit transaction',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  registers: [registry],
});

/** Records the size of one group-commit batch (the number of moves its transaction committed). */
export function observeGroupCommitBatch(size: number): void {
  groupCommitBatchSize.observe(size);
}

export const webhookDeliveries = new Counter({
  name: 'dealflow_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, retry: failed and scheduled again, dead: failed for good) and attempt (first or retry)',
  labelNames: ['outcome', 'attempt'] as const,
  registers: [registry],
});

/** Counts one webhook delivery attempt; `retry` when the delivery had failed before. */
export function countWebhookAttempt(outcome: 'delivered' | 'retry' | 'dead', retry: boolean): void {
  webhookDeliveries.inc({ outcome, attempt: retry ? 'retry' : 'first' });
}

/** What the database says at the moment of a scrape (operations/metrics-readings.ts reads it). */
export interface DatabaseReadings {
  /** Webhook deliveries neither delivered nor dead. */
  webhooksPending: number;
  /** Seconds since the oldest of them was due; 0 with none. */
  webhooksOldestDueSeconds: number;
  /** Seconds since the oldest outbox entry that still has an undelivered delivery was written; 0 with none. */
  outboxOldestUndeliveredSeconds: number;
  /** The position of the newest outbox entry (the feed's head, shared by every stream). */
  outboxHeadPosition: number;
  /** Bank statement lines waiting for a decision in the reconciliation queue, by outcome. */
  reconciliationQueue: Record<string, number>;
  /** Journeys the moves noted that the funnel's upkeep has not applied yet. */
  funnelPending: number;
  /** Seconds since the oldest change the funnel's upkeep has yet to take in was made; 0 when current. */
  funnelLagSeconds: number;
  /** Import jobs by status (running, succeeded, failed). */
  importJobs: Record<string, number>;
}

const readingGauges = {
  webhooksPending: new Gauge({
    name: 'dealflow_webhook_deliveries_pending',
    help: 'Webhook deliveries neither delivered nor dead (due now or scheduled for a retry)',
    registers: [registry],
  }),
  webhooksOldestDueSeconds: new Gauge({
    name: 'dealflow_webhook_oldest_due_seconds',
    help: 'Seconds since the oldest pending webhook delivery became due (0: none overdue)',
    registers: [registry],
  }),
  outboxLag: new Gauge({
    name: 'dealflow_outbox_lag_seconds',
    help: 'Age of the oldest outbox event that still has an undelivered webhook delivery (0: all delivered or dead)',
    registers: [registry],
  }),
  outboxHead: new Gauge({
    name: 'dealflow_outbox_head_position',
    help: "The newest outbox position (the feeds' head); its rate is events written per second",
    registers: [registry],
  }),
  reconciliation: new Gauge({
    name: 'dealflow_reconciliation_queue_lines',
    help: 'Bank statement lines waiting in the reconciliation queue, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  funnelPending: new Gauge({
    name: 'dealflow_funnel_pending_journeys',
    help: "Journeys noted for the kept funnel by a change of an investor's classes and not yet applied (counted up to 100000)",
    registers: [registry],
  }),
  funnelLag: new Gauge({
    name: 'dealflow_funnel_lag_seconds',
    help: "Age of the oldest move or edit the funnel's upkeep has yet to take in; 0 when current (the funnel response's lag)",
    registers: [registry],
  }),
  importJobs: new Gauge({ name: 'dealflow_import_jobs', help: 'Import jobs by status', labelNames: ['status'] as const, registers: [registry] }),
};

export const scrapeErrors = new Counter({
  name: 'dealflow_metrics_database_read_errors_total',
  help: 'Scrapes whose database readings failed (the gauges then keep their last values)',
  registers: [registry],
});

function setReadings(r: DatabaseReadings): void {
  readingGauges.webhooksPending.set(r.webhooksPending);
  readingGauges.webhooksOldestDueSeconds.set(r.webhooksOldestDueSeconds);
  readingGauges.outboxLag.set(r.outboxOldestUndeliveredSeconds);
  readingGauges.outboxHead.set(r.outboxHeadPosition);
  readingGauges.reconciliation.reset();
  for (const [outcome, n] of Object.entries(r.reconciliationQueue)) readingGauges.reconciliation.set({ outcome }, n);
  readingGauges.funnelPending.set(r.funnelPending);
  readingGauges.funnelLag.set(r.funnelLagSeconds);
  readingGauges.importJobs.reset();
  for (const status of ['running', 'succeeded', 'failed']) readingGauges.importJobs.set({ status }, r.importJobs[status] ?? 0);
  for (const [status, n] of Object.entries(r.importJobs)) readingGauges.importJobs.set({ status }, n);
}

export const contentType = registry.contentType;

/**
 * The registry in Prometheus' text format, after `read` (when given) refreshed the gauges kept in
 * the database. A failed read leaves those gauges as they were and counts the failure: a scrape
 * still answers while the database does not.
 */
export async function renderMetrics(read?: () => Promise<DatabaseReadings>): Promise<string> {
  if (read) {
    try {
      setReadings(await read());
    } catch {
      scrapeErrors.inc();
    }
  }
  return registry.metrics();
}
