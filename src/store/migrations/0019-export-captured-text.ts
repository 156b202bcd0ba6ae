// The all-investor-workflows export no longer folds each investor's event data with
// jsonb_merge_agg (migration 0016): it reads the data of their events as text, joined in sequence
// order (string_agg), and merges them in the service. Building a jsonb value per event merged cost
// the database more than writing each event's data out as text (figures:
// docs/benchmarks.md). Nothing else uses the aggregate.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop aggregate jsonb_merge_agg(jsonb)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create aggregate jsonb_merge_agg(jsonb) (sfunc = jsonb_concat, stype = jsonb, initcond = '{}')`.execute(db);
}
