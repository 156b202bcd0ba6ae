// The statements of the readiness probe.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * A commit that proves writes complete: one row updated, so the commit is written to the WAL and,
 * with synchronous_standby_names set, waits for a synchronous standby as every write's commit
 * does. It fails on a standby and on a read-only server.
 */
export async function commitHeartbeat(db: Kysely<DB>): Promise<void> {
  await sql`update database_identity set heartbeat_at = now()`.execute(db);
}
