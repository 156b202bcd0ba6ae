// The funnel kept off the move's transaction (README, "The funnel": "How it is kept").
//
// Migration 0015 kept the funnel in every writing transaction: per move, about ten PL/pgSQL
// statements (the stay closed and opened, the journey's position with three index lookups, the
// sums of counts, daily series, durations, transitions and money), which doubled a move's database
// time. Now a move only notes which journey changed, and an upkeep applies the noted journeys in
// batches, in the background (every instance and `dealflow worker`) and before every funnel read:
//
// - funnel_pending: one row per written statement and journey (an insert, never locked by anyone
//   else: moves do not wait for each other or for the upkeep).
// - funnel_positions.last_seq: the journey's last event the funnel has applied; the upkeep applies
//   the journey's events after it.
// - funnel_upkeep: one row the upkeep updates first in its transaction (REPEATABLE READ), so two
//   upkeeps never apply the same journeys: the second waits, then fails to serialise and leaves
//   the work to the first (the caller retries with a fresh snapshot when it needs the funnel
//   current). Everything an upkeep reads (pending rows, events, positions) is of one snapshot, so
//   an event it sees is applied exactly once: its pending row is either in the snapshot (applied
//   now) or not (its event is not either, or it is and the next run finds nothing after last_seq).
//
// The sums (funnel_counts, …) are still kept by migration 0015's triggers on funnel_stays and
// funnel_positions, which now fire in the upkeep's transaction. Frozen in time: migrations never
// import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table funnel_pending (
    id bigint generated always as identity primary key,
    deal_id text not null,
    investor_user_id text not null
  )`.execute(db);
  await sql`create table funnel_upkeep (
    id smallint primary key check (id = 1),
    runs bigint not null default 0,
    ran_at timestamptz(3)
  )`.execute(db);
  await sql`insert into funnel_upkeep (id) values (1)`.execute(db);
  // Until now the triggers kept every journey current: its last event is applied.
  await sql`alter table funnel_positions add column last_seq integer not null default 0`.execute(db);
  await sql`update funnel_positions p set last_seq = j.event_count from journeys j
    where j.deal_id = p.deal_id and j.investor_user_id = p.investor_user_id`.execute(db);

  // New events and edited data: note the journeys, nothing else.
  await sql`create or replace function funnel_events_insert() returns trigger language plpgsql as $$
    begin
      insert into funnel_pending (deal_id, investor_user_id) select distinct deal_id, investor_user_id from new_rows;
      return null;
    end $$`.execute(db);
  await sql`create or replace function funnel_events_update() returns trigger language plpgsql as $$
    begin
      insert into funnel_pending (deal_id, investor_user_id) select distinct deal_id, investor_user_id from new_rows;
      return null;
    end $$`.execute(db);

  // A journey's position as in 0015, with the last event applied (last_seq).
  await sql`create or replace function funnel_refresh_positions(deal_ids text[], investor_ids text[]) returns void language plpgsql as $$
    begin
      if deal_ids is null then return; end if;
      insert into funnel_positions as p (deal_id, investor_user_id, step_id, amount, currency, last_seq)
      select j.d, j.i, last.to_step_id,
        case when a.v ~ '^[0-9]{1,30}(\\.[0-9]{1,12})?$' then a.v::numeric end,
        coalesce(case when c.v ~ '^[A-Z]{3}$' then c.v end, deal.currency),
        last.seq
      from (select distinct d, i from unnest(deal_ids, investor_ids) as u(d, i)) j
      join deals deal on deal.id = j.d
      left join deal_payment_settings ps on ps.deal_id = j.d
      cross join lateral (select e.to_step_id, e.seq from workflow_events e where e.deal_id = j.d and e.investor_user_id = j.i order by e.seq desc limit 1) last
      left join lateral (select e.data ->> k.key as v from (select coalesce(ps.commitment_field_key, 'committed_amount') as key) k, workflow_events e
        where e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) a on true
      left join lateral (select e.data ->> k.key as v from (select case when ps.deal_id is null then 'currency' else ps.currency_field_key end as key) k,
          workflow_events e
        where k.key is not null and e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) c on true
      on conflict (deal_id, investor_user_id) do update set step_id = excluded.step_id, amount = excluded.amount, currency = excluded.currency, last_seq = excluded.last_seq
      where (p.step_id, p.amount, p.currency, p.last_seq) is distinct from (excluded.step_id, excluded.amount, excluded.currency, excluded.last_seq);
    end $$`.execute(db);

  // Applies the journeys of the oldest `max_rows` pending rows: their events after last_seq become
  // stays (the first one closes the journey's open stay), then their positions are refreshed. The
  // caller runs it in REPEATABLE READ after updating funnel_upkeep (src/store/funnel.ts). Returns
  // the pending rows taken (0: nothing was pending). Nested loops on primary keys, as in 0015: a
  // batch is small against the tables it reads.
  await sql`create function funnel_apply(max_rows integer) returns integer language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
    declare deal_ids text[]; investor_ids text[]; taken integer;
    begin
      with picked as (
        delete from funnel_pending where id in (select id from funnel_pending order by id limit max_rows)
        returning deal_id, investor_user_id
      ), journeys as (select distinct deal_id, investor_user_id from picked)
      select array_agg(deal_id), array_agg(investor_user_id), (select count(*) from picked) into deal_ids, investor_ids, taken from journeys;
      if deal_ids is null then return coalesce(taken, 0); end if;
      with j as (
        select u.d as deal_id, u.i as investor_user_id, coalesce(p.last_seq, 0) as after
        from unnest(deal_ids, investor_ids) as u(d, i)
        left join funnel_positions p on p.deal_id = u.d and p.investor_user_id = u.i
      ), moves as (
        select e.deal_id, e.investor_user_id, e.seq, e.to_step_id, e.created_at,
          row_number() over (partition by e.deal_id, e.investor_user_id order by e.seq) as n,
          lead(e.created_at) over (partition by e.deal_id, e.investor_user_id order by e.seq) as left_at,
          lead(e.to_step_id) over (partition by e.deal_id, e.investor_user_id order by e.seq) as next_step_id
        from j join workflow_events e on e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id and e.seq > j.after
        where e.from_step_id is distinct from e.to_step_id
      ), closed as (
        update funnel_stays s set left_at = m.created_at, next_step_id = m.to_step_id
        from moves m where m.n = 1 and s.deal_id = m.deal_id and s.investor_user_id = m.investor_user_id and s.left_at is null
      )
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id)
      select deal_id, investor_user_id, seq, to_step_id, created_at, left_at, next_step_id from moves;
      perform funnel_refresh_positions(deal_ids, investor_ids);
      return taken;
    end $$`.execute(db);

  // As in 0015, and what was pending for the deal is covered by the rebuild.
  await sql`create or replace function funnel_rebuild(deal text) returns void language plpgsql as $$
    begin
      delete from funnel_pending where deal is null or deal_id = deal;
      delete from funnel_stays where deal is null or deal_id = deal;
      delete from funnel_positions where deal is null or deal_id = deal;
      delete from funnel_counts where deal is null or deal_id = deal;
      delete from funnel_transitions where deal is null or deal_id = deal;
      delete from funnel_money where deal is null or deal_id = deal;
      delete from funnel_daily where deal is null or deal_id = deal;
      delete from funnel_durations where deal is null or deal_id = deal;
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id)
      select deal_id, investor_user_id, seq, to_step_id, created_at, lead(created_at) over w, lead(to_step_id) over w
      from workflow_events where (deal is null or deal_id = deal) and from_step_id is distinct from to_step_id
      window w as (partition by deal_id, investor_user_id order by seq);
      perform funnel_refresh_positions(array_agg(deal_id), array_agg(investor_user_id))
      from journeys where (deal is null or deal_id = deal) and event_count > 0;
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  // Going back would put the funnel's upkeep into every move again; the kept tables are rebuilt
  // from the events either way (funnel_rebuild), so a rollback restores a backup instead.
  throw new Error('0017-funnel-upkeep cannot be undone; restore a backup taken before it');
}
