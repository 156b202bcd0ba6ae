// Helpers of the webhook and feed tests: a real HTTP receiver on 127.0.0.1, a clock the test moves, bounded
// polling, and the shortest way to a deal with step triggers and a committed step-entered event.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Kysely, sql } from 'kysely';
import { type Deps, inTransaction, newUuid } from '../../src/operations/deps.ts';
import { recordStepEntered } from '../../src/operations/outbox-events.ts';
import { checkWorkflowTriggers, saveStepTriggers } from '../../src/operations/step-triggers.ts';
import type { StepTriggerInput } from '../../src/domain/step-trigger.ts';
import type { DB } from '../../src/store/schema.ts';
import type { Client } from './app.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** What the receiver does with the n-th request (1-based): answer with a status, or never answer. */
export type Behaviour = (n: number, request: Received) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let current = behaviour;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request = { headers: req.headers, body, json };
      received.push(request);
      const action = current(received.length, request);
      if (action === 'hang') hanging.push(res);
      else res.writeHead(action, { 'content-type': 'text/plain' }).end(action < 300 ? 'ok' : 'no');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    behave: (next) => {
      current = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A clock that moves only when the test says so. */
export function manualClock(start?: Date) {
  // Without a start, the real time of its first reading: a file's tests may run minutes after it
  // was loaded (npm test loads a shard's files first), and a receiver checks timestamps against now.
  let now = start?.getTime();
  const clock = () => {
    now ??= Date.now();
    return new Date(now);
  };
  return Object.assign(clock, {
    advance: (ms: number) => {
      now = (now ?? Date.now()) + ms;
    },
    set: (date: Date) => {
      now = date.getTime();
    },
  });
}

/** Polls `check` until it returns a value other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const depsOf = (db: Kysely<DB>, clock: () => Date = () => new Date()): Deps => ({ db, clock, newId: newUuid });

/** A new deal (through the API) with these triggers on its steps. */
export async function dealWithTriggers(admin: Client, deps: Deps, steps: Record<string, StepTriggerInput[]>): Promise<string> {
  const dealId = `deal-${newUuid()}`;
  const put = await admin.put(`/deals/deal/${dealId}`, { name: 'Webhook test deal' });
  if (put.status !== 201) throw new Error(`could not create the deal: ${put.status} ${put.text}`);
  const checked = checkWorkflowTriggers(Object.entries(steps).map(([id, triggers]) => ({ id, triggers })));
  await inTransaction(deps, (tx) => saveStepTriggers(tx, dealId, checked));
  return dealId;
}

/** Commits one move of an investor into `toStepId`, with its outbox entry; returns the entry id. */
export async function commitStepEntered(deps: Deps, dealId: string, toStepId: string, investorUserId = 'inv-1', fromStepId: string | null = null) {
  return inTransaction(deps, (tx) =>
    recordStepEntered(tx, {
      dealId,
      investorUserId,
      event: {
        id: newUuid(),
        fromStepId,
        toStepId,
        data: { amount: '25000.00' },
        createdByUserId: 'ops-1',
        createdAt: tx.clock().toISOString(),
      },
    }),
  );
}

/**
 * Waits until the feed shows every entry committed before the call: the feed stops below the
 * oldest transaction still running anywhere on the server (store/outbox.ts), and on a shared
 * PostgreSQL another test's transaction may be that one for a moment. Immediate on PGlite.
 */
export async function feedCaughtUp(db: Kysely<DB>): Promise<void> {
  const { rows } = await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db);
  const next = rows[0]!.next;
  await eventually(
    async () => {
      const passed = await sql<{ ok: boolean }>`select pg_snapshot_xmin(pg_current_snapshot()) >= ${next}::xid8 as ok`.execute(db);
      return passed.rows[0]!.ok ? true : undefined;
      // Generous: on a server shared with other suites a long transaction of theirs holds it back.
    },
    120_000,
    'the feed to pass every transaction begun before',
  );
}
