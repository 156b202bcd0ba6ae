// The cheapest statement that proves the database answers (the readiness probe).
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
