// PostgreSQL for the reliability suite: the shared server (TEST_DATABASE_URL, or 127.0.0.1:5432)
// only ever gets fresh databases of our own, `dealflow_rel_<ts>_<n>`, dropped at the end. The
// server itself is never stopped or reconfigured (the outage check starts its own cluster).
import type { Role } from '../../../src/domain/principal.ts';
import pg from 'pg';
import { createToken } from '../../../src/operations/tokens.ts';
import { openDatabase } from '../../../src/store/database.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import { loadConfig } from '../../../src/config.ts';

export const serverUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const withDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

/** Undefined when the server answers, else why not. */
export async function serverUnavailable(url = serverUrl): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return `no PostgreSQL answers at ${new URL(url).host} (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function adminQuery<T extends pg.QueryResultRow = any>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query<T>(text, values);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface FreshDatabase {
  name: string;
  url: string;
  /** A live admin API key, made through the operations (as `dealflow token create` does). */
  adminToken: string;
  /** A pool of the harness's own (for checks and checksums). */
  pool: pg.Pool;
  newToken(role: Role, investorUserId?: string): Promise<{ id: string; token: string }>;
  drop(): Promise<void>;
}

let counter = 0;
const undropped = new Set<FreshDatabase>();

/** Drops every database of this run still there (the `after` hook calls this even on failure). */
export async function dropAll(): Promise<void> {
  await Promise.all([...undropped].map((d) => d.drop()));
}

const runStamp = `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;

/** A new, migrated database on `server` (the shared one unless told otherwise). */
export async function freshDatabase(label: string, server = serverUrl): Promise<FreshDatabase> {
  const name = `dealflow_rel_${runStamp}_${++counter}_${label.replace(/\W/g, '')}`.slice(0, 63).toLowerCase();
  await adminQuery(withDatabase(server, 'postgres'), `create database ${name}`);
  const url = withDatabase(server, name);
  const database = await openDatabase({ ...loadConfig({}), databaseUrl: url });
  let adminToken: string;
  const tokens: (role: Role, investorUserId?: string) => Promise<{ id: string; token: string }> = async (role, investorUserId) => {
    const created = await createToken(database.db, { name: `reliability ${role}`, role, ...(investorUserId ? { investorUserId } : {}) });
    return { id: created.id, token: created.token };
  };
  try {
    await migrateToLatest(database.db);
    adminToken = (await tokens('admin')).token;
  } catch (err) {
    await database.close();
    throw err;
  }
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {});
  let dropped = false;
  const fresh: FreshDatabase = {
    name,
    url,
    adminToken,
    pool,
    newToken: tokens,
    async drop() {
      if (dropped) return;
      dropped = true;
      undropped.delete(fresh);
      await database.close().catch(() => {});
      await pool.end().catch(() => {});
      await adminQuery(withDatabase(server, 'postgres'), `drop database if exists ${name} with (force)`).catch((err) =>
        process.stderr.write(`could not drop ${name}: ${(err as Error).message}\n`),
      );
    },
  };
  undropped.add(fresh);
  return fresh;
}

/** Tables of the service's schema, without the migrator's own. */
export async function serviceTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
      order by table_name`,
  );
  return rows.map((r) => r.table_name);
}

/**
 * The tables a request can change: all of the service's but those written on a timer whatever
 * requests do: the checkpoints and their kept trees (the sealer, every AUDIT_SEAL_INTERVAL_MS) and
 * the kept funnel (`funnel_*`: the upkeep applies earlier moves every FUNNEL_UPKEEP_INTERVAL_MS).
 * The funnel is derived from workflow_events alone, which stay checked: a request that changed the
 * funnel's source shows there.
 */
const sealerTables = ['audit_checkpoints', 'audit_tree_leaves', 'audit_tree_nodes'];
export async function requestWrittenTables(pool: pg.Pool): Promise<string[]> {
  return (await serviceTables(pool)).filter((table) => !sealerTables.includes(table) && !table.startsWith('funnel_'));
}

/** Columns that change on reads by design: authentication records a token's last use. */
const volatileColumns: Record<string, string[]> = { api_tokens: ['last_used_at'] };

/** Row count and md5 of every table: equal fingerprints mean equal contents. */
export async function fingerprint(pool: pg.Pool, tables: string[]): Promise<Map<string, string>> {
  const parts = await Promise.all(
    tables.map(async (table) => {
      const volatile = volatileColumns[table];
      const row = volatile ? `(to_jsonb(t) - array[${volatile.map((c) => `'${c}'`).join(',')}]::text[])::text` : 't::text';
      const { rows } = await pool.query<{ n: string; sum: string }>(
        `select count(*)::text as n, md5(coalesce(string_agg(${row}, E'\\n' order by ${row}), '')) as sum from "${table}" t`,
      );
      return [table, `${rows[0]!.n}:${rows[0]!.sum}`] as const;
    }),
  );
  return new Map(parts);
}

/** The tables whose fingerprints differ. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((table) => before.get(table) !== after.get(table));
}

/** A table of the service whose name contains one of these words (table names may change between builds). */
export async function findTable(pool: pg.Pool, ...words: string[]): Promise<string | undefined> {
  const tables = await serviceTables(pool);
  return tables.find((t) => words.some((w) => t.includes(w)));
}
