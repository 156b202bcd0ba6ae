// Helpers of the audit tests: seal everything, run `verify` as the CLI does, and change a history
// table behind the service's back (as a superuser who disables its append-only trigger).
import { type Kysely, sql } from 'kysely';
import { runVerify } from '../../src/cli/verify.ts';
import { sealAll } from '../../src/operations/audit.ts';
import { systemClock } from '../../src/operations/deps.ts';
import type { DB } from '../../src/store/schema.ts';

/** `dealflow verify [--deal]` on this database: its exit code and what it printed. */
export async function verify(db: Kysely<DB>, options: { dealId?: string; seal?: boolean } = {}) {
  const lines: string[] = [];
  const code = await runVerify(db, options, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

/**
 * Seals until every entry is in a checkpoint. On a shared PostgreSQL another session's open
 * transaction (any database of the server) holds the horizon back until it ends: entries after it
 * wait for a later seal.
 */
export async function sealEverything(db: Kysely<DB>) {
  for (let i = 0; i < 1200; i++) {
    await sealAll({ db, clock: systemClock });
    const { rows } = await sql<{ n: string }>`select count(*) as n from audit_log a
      where not exists (select 1 from audit_checkpoints c where (c.up_to_xid, c.up_to_position) >= (a.xid, a.position))`.execute(db);
    if (Number(rows[0]!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('entries stayed unsealed for a minute: a long transaction on the server holds the horizon');
}

/** Runs statements with a table's append-only trigger (`<table>_append_only` unless named) disabled. */
export async function behindTheBack(db: Kysely<DB>, table: string, statement: string, trigger = `${table}_append_only`) {
  await db.transaction().execute(async (trx) => {
    await sql.raw(`alter table ${table} disable trigger ${trigger}`).execute(trx);
    await sql.raw(statement).execute(trx);
    await sql.raw(`alter table ${table} enable trigger ${trigger}`).execute(trx);
  });
}
