// Helpers of the bulk, dry-run, import and export tests.
import { sql } from 'kysely';
import type { TestApp } from './app.ts';

/** Row counts of every table of the test's schema: equal before and after means nothing was written. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(t.database.db);
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(name)}`.execute(t.database.db);
    counts[name] = Number(rows[0]!.n);
  }
  return counts;
}

/** A problem document without the request id (which differs between requests). */
export const withoutRequestId = (problem: Record<string, unknown>) => {
  const { requestId: _ignored, ...rest } = problem;
  return rest;
};
