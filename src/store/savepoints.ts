// A part of the caller's transaction that is always undone: `work` runs after a savepoint, which is
// rolled back whatever `work` did or threw, the transaction going on as before it. Four-eyes tries
// a held write this way (operations/payment-line-decisions.ts): whatever would refuse it now is
// told at once, and nothing of it stays. As with a dry run (operations/dry-run.ts), numbers drawn
// from sequences meanwhile are not given back.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export async function undoneAfter<T>(db: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  if (!db.isTransaction) throw new Error('undoneAfter needs a transaction');
  await sql`savepoint undone_after`.execute(db);
  try {
    return await work();
  } finally {
    await sql`rollback to savepoint undone_after`.execute(db);
    await sql`release savepoint undone_after`.execute(db);
  }
}
