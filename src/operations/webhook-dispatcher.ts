// The webhook dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, with a lease),
// POSTs each one outside any transaction, and records the outcome: a 2xx is delivered; anything
// else, a timeout or a refused connection is retried on the schedule of domain/webhook-retry.ts,
// then dead. Runs in the service (src/main.ts) and as `dealflow worker`; any number of instances
// may run against one PostgreSQL. Delivery is at least once: a dispatcher that dies after the POST
// but before recording it lets the lease expire, and the entry is sent again (same Webhook-Id).
import { pollingLoop } from './polling-loop.ts';
import { randomUUID } from 'node:crypto';
import { defaultRetrySchedule, retryDelay } from '../domain/webhook-retry.ts';
import type { Db } from '../store/schema.ts';
import { countWebhookAttempt } from '../metrics.ts';
import { type AttemptOutcome, type ClaimedDelivery, claimDueDeliveries, recordAttempt } from '../store/webhook-deliveries.ts';
import { type Clock, systemClock } from './deps.ts';
import { signWebhook } from './webhook-signature.ts';

export interface DispatcherLog {
  warn(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  db: Db;
  clock?: Clock;
  /** Longest wait for a receiver's answer (default 10 s). */
  timeoutMs?: number;
  /** Pause between scans when nothing was due (default 1 s). */
  pollMs?: number;
  /** Deliveries claimed, and posted concurrently, at a time (default 10). */
  batchSize?: number;
  /** How long a claim holds before another dispatcher may take it over (default timeout + 30 s). */
  leaseMs?: number;
  /** Delays after the 1st, 2nd, … failure; tests compress it. */
  schedule?: readonly number[];
  /** Jitter source in [0, 1). */
  random?: () => number;
  log?: DispatcherLog;
}

export interface Dispatcher {
  /** Starts the background loop (idempotent). */
  start(): void;
  /** Stops the loop and waits for attempts in flight (each bounded by the timeout). */
  stop(): Promise<void>;
  /** One scan: claims due deliveries, posts them, records the outcomes. Returns how many it tried. */
  runOnce(): Promise<number>;
  /** Cuts the current pause short, e.g. after a manual retry. */
  wake(): void;
}

const USER_AGENT = 'dealflow-webhooks/1';

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const db = options.db;
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 1000;
  const batchSize = options.batchSize ?? 10;
  const leaseMs = options.leaseMs ?? timeoutMs + 30_000;
  const schedule = options.schedule ?? defaultRetrySchedule;
  const random = options.random ?? Math.random;
  const log = options.log;

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify(delivery.entry);
    const timestamp = Math.floor(clock().getTime() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.entry.id,
      'webhook-timestamp': String(timestamp),
    };
    if (delivery.secret !== null) headers['webhook-signature'] = signWebhook(delivery.secret, delivery.entry.id, timestamp, body);
    let status: number | null = null;
    let error: string | undefined;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual', // a redirect is not a delivery
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      await response.body?.cancel().catch(() => {});
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (err) {
      error = describeFailure(err, timeoutMs);
    }
    const now = clock();
    let outcome: AttemptOutcome;
    if (error === undefined) outcome = { kind: 'delivered', status: status! };
    else {
      const delay = retryDelay(delivery.failures + 1, schedule, random());
      outcome = delay === undefined ? { kind: 'dead', status, error } : { kind: 'retry', status, error, nextAttemptAt: new Date(now.getTime() + delay) };
    }
    const recorded = await recordAttempt(db, delivery, outcome, now);
    if (recorded) countWebhookAttempt(outcome.kind, delivery.failures > 0);
    if (!recorded) log?.warn({ deliveryId: delivery.id }, 'webhook delivery was claimed by another dispatcher meanwhile');
    else if (outcome.kind !== 'delivered') log?.warn({ deliveryId: delivery.id, url: delivery.url, error, outcome: outcome.kind }, 'webhook delivery failed');
  }

  async function runOnce(): Promise<number> {
    const claimed = await claimDueDeliveries(db, { now: clock(), leaseMs, limit: batchSize, claimId: randomUUID() });
    await Promise.all(
      claimed.map((delivery) => attempt(delivery).catch((err: unknown) => log?.warn({ err, deliveryId: delivery.id }, 'could not record a webhook attempt'))),
    );
    return claimed.length;
  }

  const loop = pollingLoop(runOnce, { batchSize, pollMs, onError: (err) => log?.warn({ err }, 'webhook dispatcher could not claim deliveries') });
  return {
    start: loop.start,
    stop: loop.stop,
    runOnce,
    wake: loop.wake,
  };
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const error = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = error?.cause;
  if (cause?.code) return `connection failed: ${cause.code}`;
  return `request failed: ${cause?.message ?? error?.message ?? String(err)}`.slice(0, 500);
}
