// A move no longer stores its event's revision 1: until the event is first edited, revision 1 is
// the event itself (its data as the move captured it, its author and time), so the move writes one
// row fewer. `all_event_revisions` is every revision of every event: the rows of `event_revisions`,
// and revision 1 read from `workflow_events` for an event that has none.
// - The first edit of an event stores revision 1 from the event's data before revision 2 changes it
//   (store/event-edits.ts, under the journey lock, in the edit's statement), so an event with any
//   revision row has its revision 1 row, and an event without one still holds its first data.
// - A move that records a reason on revision 1 (an approved withdrawal, an undo) still stores the
//   row: the event has no column for the reason.
// - Rows stored before this migration stay (history is never deleted): an event with its revision 1
//   row reads the same through the view as one without.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An anti-join of two relations, as counted_events (migration 0029), so that PostgreSQL 15 and
  // 16+ print the definition alike (db/schema.sql is compared on both). Any revision row implies
  // revision 1's, so the anti-join looks up that one row by the primary key.
  await sql`create view all_event_revisions as
    select r.event_id, r.revision, r.data, r.set_by_user_id, r.set_at, r.reason from event_revisions r
    union all
    select e.id as event_id, 1 as revision, e.data, e.created_by_user_id as set_by_user_id, e.created_at as set_at, null::text as reason
    from workflow_events e left join event_revisions f on f.event_id = e.id and f.revision = 1
    where f.event_id is null`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0042 is not reversible: events moved since have no revision 1 row; restore a backup taken before it');
}
