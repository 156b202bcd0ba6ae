// NOTIFY on a channel, delivered on commit to every connection LISTENing on the same database
// (Database.listen in database.ts is the other end).
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export async function notify(db: Kysely<DB>, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
