// The journey row keeps what the jump rules read of its events: `captured`, the data of its events
// merged in sequence order (a later event's value of a key wins), and `visited`, the steps it has
// entered, in order of first entry. A move's load then reads one row instead of aggregating every
// event of the journey (O(events) per move; docs/benchmarks.md). Kept by the statements that write events: a move's write (store/moves.ts) merges its
// data and appends its step, an event edit's (store/event-edits.ts) recomputes `captured` from the
// events with the edited data, and the seed's bulk insert (store/bulk.ts) writes both. Filled here
// from the events of existing journeys.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table journeys add column captured jsonb not null default '{}', add column visited text[] not null default '{}'`.execute(db);
  // Only the two new columns change, so the row triggers on journeys (0008, 0011) do not fire and
  // the statement trigger counting journeys with events (0008) finds nothing to add.
  await sql`with visits as (
      select deal_id, investor_user_id, array_agg(to_step_id order by first_seq) as visited
      from (select deal_id, investor_user_id, to_step_id, min(seq) as first_seq from workflow_events group by 1, 2, 3) s
      group by 1, 2
    ), data as (
      select e.deal_id, e.investor_user_id, jsonb_object_agg(d.key, d.value order by e.seq) as captured
      from workflow_events e cross join lateral jsonb_each(e.data) d
      group by 1, 2
    )
    update journeys j set visited = v.visited, captured = coalesce(d.captured, '{}')
    from visits v left join data d on d.deal_id = v.deal_id and d.investor_user_id = v.investor_user_id
    where j.deal_id = v.deal_id and j.investor_user_id = v.investor_user_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table journeys drop column captured, drop column visited`.execute(db);
}
