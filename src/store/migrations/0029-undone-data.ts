// What an undone write captured no longer counts as captured. An undo (migration 0025) moves the
// investors back by new events and never changes the events it reverses, so "captured" is read
// through `counted_events`: the events of the journeys less those of a batch an undo reversed
// (the undo's own row for the same investor names the batch in `undoes`). An undo of an undo
// carries the reversed data again on its own events, so the rule stays one level deep.
//
// Every reader of captured data reads the journey row's `captured` (migration 0021), which is kept
// from this view: a move merges its data over it, an undo and an event edit compute it again from
// the view. Filled again here for the journeys an undo touched; the funnel's positions now take
// the commitment and its currency from the same row, and those journeys are queued for the funnel.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Written as an anti-join of two relations so that PostgreSQL 15 (whose views carry OLD and NEW
  // range entries) and 16+ print the definition alike, qualified (db/schema.sql is compared on both).
  await sql`create view counted_events as
    select e.* from workflow_events e
    left join (select distinct b.event_id from move_batch_events b
      join move_batch_events u on u.undoes = b.batch_id and u.investor_user_id = b.investor_user_id) r on r.event_id = e.id
    where r.event_id is null`.execute(db);
  await sql`with touched as (
      select distinct deal_id, investor_user_id from move_batch_events where undoes is not null
    ), data as (
      select t.deal_id, t.investor_user_id,
        (select coalesce(jsonb_object_agg(d.key, d.value order by e.seq), '{}') from counted_events e cross join lateral jsonb_each(e.data) d
          where e.deal_id = t.deal_id and e.investor_user_id = t.investor_user_id) as captured
      from touched t
    ), changed as (
      update journeys j set captured = d.captured from data d
      where j.deal_id = d.deal_id and j.investor_user_id = d.investor_user_id and j.captured is distinct from d.captured
      returning j.deal_id, j.investor_user_id
    )
    insert into funnel_pending (deal_id, investor_user_id) select deal_id, investor_user_id from changed`.execute(db);

  // 0020's positions, the commitment and currency read from the journey's captured data.
  await sql`create or replace function funnel_refresh_positions(deal_ids text[], investor_ids text[], rekeys boolean[] default null) returns void language plpgsql as $$
    begin
      if deal_ids is null then return; end if;
      insert into funnel_positions as p (deal_id, investor_user_id, step_id, amount, currency, last_seq, classes, entry_day)
      select j.d, j.i, last.to_step_id,
        case when a.v ~ '^[0-9]{1,30}(\\.[0-9]{1,12})?$' then a.v::numeric end,
        coalesce(case when c.v ~ '^[A-Z]{3}$' then c.v end, deal.currency),
        last.seq, coalesce(case when j.r then null else kept.classes end, funnel_classes(inv.contact), '{}'),
        coalesce(case when j.r then null else kept.entry_day end, (journey.started_at at time zone 'UTC')::date)
      from (select d, i, bool_or(coalesce(r, false)) as r from unnest(deal_ids, investor_ids, rekeys) as u(d, i, r) group by d, i) j
      join deals deal on deal.id = j.d
      join journeys journey on journey.deal_id = j.d and journey.investor_user_id = j.i
      left join investors inv on inv.id = j.i
      left join funnel_positions kept on kept.deal_id = j.d and kept.investor_user_id = j.i
      left join deal_payment_settings ps on ps.deal_id = j.d
      cross join lateral (select e.to_step_id, e.seq from workflow_events e where e.deal_id = j.d and e.investor_user_id = j.i order by e.seq desc limit 1) last
      cross join lateral (select journey.captured ->> coalesce(ps.commitment_field_key, 'committed_amount') as v) a
      cross join lateral (select journey.captured ->> (case when ps.deal_id is null then 'currency' else ps.currency_field_key end) as v) c
      on conflict (deal_id, investor_user_id) do update set step_id = excluded.step_id, amount = excluded.amount, currency = excluded.currency,
        last_seq = excluded.last_seq, classes = excluded.classes, entry_day = excluded.entry_day
      where (p.step_id, p.amount, p.currency, p.last_seq, p.classes, p.entry_day)
        is distinct from (excluded.step_id, excluded.amount, excluded.currency, excluded.last_seq, excluded.classes, excluded.entry_day);
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0029 is not reversible: restore a backup taken before it');
}
