// The baselines: a bare Fastify app on the database driver alone (`pg` with a pool of the service's
// size, or PGlite when DATABASE_URL is unset), with no project code at all: no config loader, no
// Kysely, no timeouts, no authentication, validation or domain logic. What it serves is the most
// this machine can do for these shapes, so scenarios are reported as ratios to it:
//   GET  /read/:id   reads one row by primary key;
//   POST /write/:id  one small write transaction: lock a row, insert an event row, update the row
//                    (the shape of a jump: lock the journey, append an event, move the journey).
// Its tables live in their own schema, bench_baseline, of the benchmark's throwaway database.
// Environment: PORT, HOST, DATABASE_URL or DATA_DIR, DATABASE_POOL_SIZE (the service's variables).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { BASELINE_ROWS } from './load.ts';

interface Queryable {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Runs `work` in a transaction on one connection. */
type Transact = <T>(work: (q: Queryable) => Promise<T>) => Promise<T>;

async function connect(): Promise<{ q: Queryable; transact: Transact; close(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    // The service's default pool size (DATABASE_POOL_SIZE, 10).
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE || 10) });
    return {
      q: pool,
      async transact(work) {
        const client = await pool.connect();
        try {
          await client.query('begin');
          const result = await work(client);
          await client.query('commit');
          return result;
        } catch (err) {
          await client.query('rollback').catch(() => {});
          throw err;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(process.env.DATA_DIR || './.data');
  return { q: db, transact: (work) => db.transaction((tx) => work(tx)), close: () => db.close() };
}

const { q, transact, close } = await connect();

await q.query('create schema if not exists bench_baseline');
await q.query(`create table if not exists bench_baseline.items (
  id text primary key, name text not null, email text not null, version integer not null, updated_at timestamptz(3) not null)`);
await q.query(`create table if not exists bench_baseline.item_events (
  id uuid primary key, item_id text not null references bench_baseline.items (id), seq integer not null,
  data jsonb not null, created_at timestamptz(3) not null, unique (item_id, seq))`);
await q.query(
  `insert into bench_baseline.items (id, name, email, version, updated_at)
  select 'item-' || n, 'Item ' || n, 'item' || n || '@example.com', 0, now() from generate_series(1, $1::int) n
  on conflict (id) do nothing`,
  [BASELINE_ROWS],
);

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.get<{ Params: { id: string } }>('/read/:id', async (request, reply) => {
  const { rows } = await q.query<{ id: string; name: string; email: string; version: number; updated_at: Date }>(
    'select id, name, email, version, updated_at from bench_baseline.items where id = $1',
    [request.params.id],
  );
  const row = rows[0];
  if (!row) return reply.code(404).send({ status: 404 });
  return { id: row.id, name: row.name, email: row.email, version: row.version, updatedAt: row.updated_at.toISOString() };
});

app.post<{ Params: { id: string }; Body: Record<string, string> | undefined }>('/write/:id', async (request, reply) => {
  const event = await transact(async (tx) => {
    const { rows } = await tx.query<{ version: number }>('select version from bench_baseline.items where id = $1 for update', [request.params.id]);
    const locked = rows[0];
    if (!locked) return undefined;
    const id = randomUUID();
    const seq = locked.version + 1;
    const data = JSON.stringify(request.body ?? {});
    const createdAt = new Date();
    await tx.query('insert into bench_baseline.item_events (id, item_id, seq, data, created_at) values ($1, $2, $3, $4::jsonb, $5)', [
      id,
      request.params.id,
      seq,
      data,
      createdAt,
    ]);
    await tx.query('update bench_baseline.items set version = $1, updated_at = $2 where id = $3', [seq, createdAt, request.params.id]);
    return { id, itemId: request.params.id, seq, data: request.body ?? {}, createdAt: createdAt.toISOString() };
  });
  if (!event) return reply.code(404).send({ status: 404 });
  return reply.code(201).send(event);
});

await app.listen({ port: Number(process.env.PORT || 3000), host: process.env.HOST || '127.0.0.1' });

const stop = async () => {
  await app.close();
  await close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
