// `node --liftoff-only bench/subscription-groups.ts` (PGlite in a temporary folder) or with
// DATABASE_URL=postgres://… (a new database on that server, dropped at the end); N bookings (1000),
// G per group (10).
//
// Whether subscriptions would gain from group commit: books N subscriptions through the store's
// one-statement booking (store/subscriptions.ts) three ways, twice each: one after another, each in
// its own transaction; G callers at once, each booking in its own transaction (what G concurrent
// requests do today); and groups of G in one transaction, one group at a time (what a group commit
// with one group in flight would do). Prints bookings per second, wall time and this process's CPU
// per booking (on PGlite that includes the database). Results: docs/benchmarks.md.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { insertSubscriptionWithEntry } from '../src/store/subscriptions.ts';
import { bookingAuditEntry } from '../src/operations/audit-entries.ts';
import type { Principal } from '../src/domain/principal.ts';
import type { SubscriptionInput } from '../src/domain/subscription.ts';

const N = Number(process.env.N ?? 1000);
const G = Number(process.env.G ?? 10);
const url = process.env.DATABASE_URL;
const env: Record<string, string> = { ...process.env } as Record<string, string>;
let cleanup = async () => {};
if (url) {
  const name = `dealflow_probe_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  env.DATABASE_URL = u.toString();
  cleanup = async () => {
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  };
} else {
  const dir = mkdtempSync(join(tmpdir(), 'reads-probe-'));
  delete env.DATABASE_URL;
  env.DATA_DIR = dir;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}
const database = await openDatabase(loadConfig(env));
const db = database.db;
await migrateToLatest(db);
await sql`insert into assets (id, name, currency, created_at, updated_at) values (1, 'A', 'EUR', now(), now())`.execute(db).catch(async (e) => {
  console.error(String(e));
});
await sql`insert into investors (id, remote_id, data_source, kyc_check_level, contact, full_name, email, status, created_at, updated_at)
  values ('inv-1', 'inv-1', 'probe', 2, '{}'::jsonb, 'P', 'p@example.com', 'active', now(), now())`
  .execute(db)
  .catch((e) => console.error(String(e)));
const principal = { role: 'admin', userId: 'probe', tokenKey: 'probe' } as Principal;
const input = {
  assetId: 1,
  investorId: 'inv-1',
  units: '1000',
  pricePerUnit: '25.5',
  total: '25500',
  fee: '12.75',
  fundingSource: 'bank_transfer',
  invoiceDate: '2026-01-01',
  settlementDate: '2026-01-02',
  source: 'probe',
  sourceId: 'p',
  description: 'probe',
} as unknown as SubscriptionInput;
const book = async (on: typeof db) => {
  const id = randomUUID();
  const now = new Date();
  const r = await insertSubscriptionWithEntry(
    on,
    { ...input, id, createdByUserId: 'probe', createdAt: now },
    { id: randomUUID(), type: 'subscription.created', occurredAt: now, dealId: null, stepIds: [] },
    bookingAuditEntry(principal, id, input, now),
  );
  if (!r.written) throw new Error(`not written ${JSON.stringify(r)}`);
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function alone(n: number) {
  for (let i = 0; i < n; i++) await book(db);
}
async function concurrent(n: number) {
  await Promise.all(Array.from({ length: G }, () => alone(n / G)));
}
async function grouped(n: number) {
  for (let i = 0; i < n; i += G)
    await db.transaction().execute(async (trx) => {
      for (let j = 0; j < G; j++) await book(trx);
    });
}
await alone(100);
await grouped(100);
for (const round of [1, 2]) {
  for (const [name, f] of [
    ['alone', alone],
    [`${G} concurrent, each alone`, concurrent],
    [`groups of ${G}`, grouped],
  ] as const) {
    const c0 = cpu();
    const t0 = performance.now();
    await f(N);
    const wall = performance.now() - t0;
    const c = cpu() - c0;
    console.log(
      `${url ? 'postgres' : 'pglite'} round ${round} ${name}: ${(N / (wall / 1000)).toFixed(0)} bookings/s, ${(wall / N).toFixed(2)} ms wall, ${(c / N).toFixed(2)} ms process CPU per booking`,
    );
  }
}
await database.close?.();
await cleanup();
process.exit(0);
