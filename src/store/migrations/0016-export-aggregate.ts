// jsonb_merge_agg: the objects of a group merged in the aggregate's order, later keys winning (the
// `||` of jsonb, jsonb_concat, folded). The all-investor-workflows export gives each investor every
// field their events captured, the latest value of each: folding the events' data in sequence order
// does that in one pass, where splitting every event into key/value rows and keeping the latest per
// key took twice the database time (figures: docs/benchmarks.md).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create aggregate jsonb_merge_agg(jsonb) (sfunc = jsonb_concat, stype = jsonb, initcond = '{}')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop aggregate jsonb_merge_agg(jsonb)`.execute(db);
}
