// The baselines: a bare Fastify app on the same database, driver and pool settings as the service,
// with no authentication, validation or domain logic. What it serves is the most the service could
// hope for on this machine, so scenarios are reported as ratios to it:
//   GET  /read/:id   reads one row by primary key;
//   POST /write/:id  one small write transaction: lock a row, insert an event row, update the row
//                    (the shape of a jump: lock the journey, append an event, move the journey).
// Its tables live in their own schema, bench_baseline, of the benchmark's throwaway database.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/store/database.ts';
import { BASELINE_ROWS } from './load.ts';

const config = loadConfig();
const database = await openDatabase(config);
const db = database.db;

await sql`create schema if not exists bench_baseline`.execute(db);
await sql`create table if not exists bench_baseline.items (
  id text primary key, name text not null, email text not null, version integer not null, updated_at timestamptz(3) not null)`.execute(db);
await sql`create table if not exists bench_baseline.item_events (
  id uuid primary key, item_id text not null references bench_baseline.items (id), seq integer not null,
  data jsonb not null, created_at timestamptz(3) not null, unique (item_id, seq))`.execute(db);
await sql`insert into bench_baseline.items (id, name, email, version, updated_at)
  select 'item-' || n, 'Item ' || n, 'item' || n || '@example.com', 0, now() from generate_series(1, ${BASELINE_ROWS}) n
  on conflict (id) do nothing`.execute(db);

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.get<{ Params: { id: string } }>('/read/:id', async (request, reply) => {
  const { rows } = await sql<{ id: string; name: string; email: string; version: number; updated_at: Date }>`
    select id, name, email, version, updated_at from bench_baseline.items where id = ${request.params.id}`.execute(db);
  const row = rows[0];
  if (!row) return reply.code(404).send({ status: 404 });
  return { id: row.id, name: row.name, email: row.email, version: row.version, updatedAt: row.updated_at.toISOString() };
});

app.post<{ Params: { id: string }; Body: Record<string, string> | undefined }>('/write/:id', async (request, reply) => {
  const event = await db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ version: number }>`
      select version from bench_baseline.items where id = ${request.params.id} for update`.execute(trx);
    const locked = rows[0];
    if (!locked) return undefined;
    const id = randomUUID();
    const seq = locked.version + 1;
    const data = JSON.stringify(request.body ?? {});
    const createdAt = new Date();
    await sql`insert into bench_baseline.item_events (id, item_id, seq, data, created_at)
      values (${id}, ${request.params.id}, ${seq}, ${data}::jsonb, ${createdAt})`.execute(trx);
    await sql`update bench_baseline.items set version = ${seq}, updated_at = ${createdAt} where id = ${request.params.id}`.execute(trx);
    return { id, itemId: request.params.id, seq, data: request.body ?? {}, createdAt: createdAt.toISOString() };
  });
  if (!event) return reply.code(404).send({ status: 404 });
  return reply.code(201).send(event);
});

await app.listen({ port: config.port, host: config.host });

const stop = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
