// The funnel kept off the move's transaction (docs/reference/funnel.md, "How it is kept").
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
// The sums (funnel_counts, …) are kept by triggers on funnel_stays and funnel_positions, which now
// fire in the upkeep's transaction, and now per investor class as well: every sum has a `class`
// key, '' for every investor and one more row per class the journey's investor holds (their
// contact's classifications, copied to funnel_positions.classes), so a funnel filtered by
// classification reads kept sums too. A change of an investor's classes notes their journeys for
// a recount (`rekey`): the upkeep removes the journey's stays (a delete trigger subtracts them
// under the old classes), refreshes its position (the new classes; its money moves by the
// position's update trigger) and adds its stays again from its events (under the new classes).
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table funnel_pending (
    id bigint generated always as identity primary key,
    deal_id text not null,
    investor_user_id text not null,
    rekey boolean not null default false
  )`.execute(db);
  await sql`create table funnel_upkeep (
    id smallint primary key check (id = 1),
    runs bigint not null default 0,
    ran_at timestamptz(3)
  )`.execute(db);
  await sql`insert into funnel_upkeep (id) values (1)`.execute(db);
  await sql`alter table funnel_positions add column last_seq integer not null default 0`.execute(db);
  await sql`alter table funnel_positions add column classes text[] not null default '{}'`.execute(db);
  // A stay carries the classes it is counted under (its journey's when it was added), so that
  // closing or removing it changes exactly the sums it was added to, and a class's percentile reads
  // the duration index alone.
  await sql`alter table funnel_stays add column classes text[] not null default '{}'`.execute(db);
  await sql`drop index funnel_stays_durations`.execute(db);
  await sql`create index funnel_stays_durations on funnel_stays (deal_id, step_id, bucket, duration_ms) include (classes) where left_at is not null`.execute(
    db,
  );
  // The sums gain the class key; they are recomputed below (funnel_rebuild).
  for (const [table, key] of [
    ['funnel_counts', 'deal_id, class, step_id, slot'],
    ['funnel_transitions', 'deal_id, class, from_step_id, to_step_id, slot'],
    ['funnel_money', 'deal_id, class, step_id, currency, slot'],
    ['funnel_durations', 'deal_id, class, step_id, bucket, slot'],
    ['funnel_daily', 'deal_id, class, day, step_id, slot'],
  ] as const) {
    await sql.raw(`delete from ${table}`).execute(db);
    await sql.raw(`alter table ${table} add column class text not null default '', drop constraint ${table}_pkey, add primary key (${key})`).execute(db);
  }

  // An investor's classes, sorted and distinct (contact.classifications[].investorClass).
  await sql`create function funnel_classes(contact jsonb) returns text[] language sql immutable as $$
    select coalesce(array(select distinct c ->> 'investorClass' from jsonb_array_elements(
      case when jsonb_typeof(contact -> 'classifications') = 'array' then contact -> 'classifications' else '[]'::jsonb end) c
      where jsonb_typeof(c -> 'investorClass') = 'string' order by 1), '{}') $$`.execute(db);

  // New events and edited data: note the journeys, nothing else.
  for (const f of ['funnel_events_insert', 'funnel_events_update']) {
    await sql
      .raw(`create or replace function ${f}() returns trigger language plpgsql as $$
      begin
        insert into funnel_pending (deal_id, investor_user_id) select distinct deal_id, investor_user_id from new_rows;
        return null;
      end $$`)
      .execute(db);
  }
  // Changed classes: the investor's journeys are recounted under the new ones.
  await sql`create function funnel_investors_update() returns trigger language plpgsql as $$
    begin
      insert into funnel_pending (deal_id, investor_user_id, rekey)
      select j.deal_id, j.investor_user_id, true
      from new_rows n join old_rows o on o.id = n.id
      join journeys j on j.investor_user_id = n.id and j.event_count > 0
      where funnel_classes(n.contact) is distinct from funnel_classes(o.contact);
      return null;
    end $$`.execute(db);
  await sql`create trigger funnel_investors_update after update on investors referencing old table as old_rows new table as new_rows
    for each statement execute function funnel_investors_update()`.execute(db);

  // A journey's position as in 0015, with the last event applied and the investor's classes. The
  // classes are taken from the directory only for a new position or a recount (`rekeys`): the
  // stays already counted stay under the classes they were counted under until their recount
  // (which a change of classes always notes), so that the recount takes away exactly what was added.
  await sql`drop function funnel_refresh_positions(text[], text[])`.execute(db);
  await sql`create function funnel_refresh_positions(deal_ids text[], investor_ids text[], rekeys boolean[] default null) returns void language plpgsql as $$
    begin
      if deal_ids is null then return; end if;
      insert into funnel_positions as p (deal_id, investor_user_id, step_id, amount, currency, last_seq, classes)
      select j.d, j.i, last.to_step_id,
        case when a.v ~ '^[0-9]{1,30}(\\.[0-9]{1,12})?$' then a.v::numeric end,
        coalesce(case when c.v ~ '^[A-Z]{3}$' then c.v end, deal.currency),
        last.seq, coalesce(case when j.r then null else kept.classes end, funnel_classes(inv.contact), '{}')
      from (select d, i, bool_or(coalesce(r, false)) as r from unnest(deal_ids, investor_ids, rekeys) as u(d, i, r) group by d, i) j
      join deals deal on deal.id = j.d
      left join investors inv on inv.id = j.i
      left join funnel_positions kept on kept.deal_id = j.d and kept.investor_user_id = j.i
      left join deal_payment_settings ps on ps.deal_id = j.d
      cross join lateral (select e.to_step_id, e.seq from workflow_events e where e.deal_id = j.d and e.investor_user_id = j.i order by e.seq desc limit 1) last
      left join lateral (select e.data ->> k.key as v from (select coalesce(ps.commitment_field_key, 'committed_amount') as key) k, workflow_events e
        where e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) a on true
      left join lateral (select e.data ->> k.key as v from (select case when ps.deal_id is null then 'currency' else ps.currency_field_key end as key) k,
          workflow_events e
        where k.key is not null and e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) c on true
      on conflict (deal_id, investor_user_id) do update set step_id = excluded.step_id, amount = excluded.amount, currency = excluded.currency,
        last_seq = excluded.last_seq, classes = excluded.classes
      where (p.step_id, p.amount, p.currency, p.last_seq, p.classes) is distinct from (excluded.step_id, excluded.amount, excluded.currency, excluded.last_seq, excluded.classes);
    end $$`.execute(db);

  // ---- stays → counts, transitions, daily, durations: once for '' and once per class ----
  // `rows` is a set of stays named n, with two flags: whether the stay is the investor's first at
  // its step (`first_entry`) and the first of their transitions from its step to its next one
  // (`first_transition`): an investor counts once per step entered and once per transition taken.
  // `sign` is 1 to add the stays, -1 to take them away.
  const classed = (rows: string) => `${rows} cross join lateral unnest(array[''] || n.classes) as k(class)`;
  // New stays: their earlier stays are in the table (an index range of the journey).
  const earlier = (extra: string) =>
    `exists (select 1 from funnel_stays x where x.deal_id = r.deal_id and x.investor_user_id = r.investor_user_id and x.step_id = r.step_id ${extra} and x.seq < r.seq)`;
  const flaggedFromTable = (rows: string) => `(select r.*, not ${earlier('')} as first_entry,
      r.next_step_id is not null and not ${earlier('and x.next_step_id = r.next_step_id')} as first_transition from ${rows} r) n`;
  // Deleted stays: a journey's stays are only ever deleted all together, so the earlier ones are
  // among the deleted rows (numbered in one pass: a transition table has no index to look them up).
  const flaggedAmongThemselves = (rows: string) => `(select r.*,
      row_number() over (partition by r.deal_id, r.investor_user_id, r.step_id order by r.seq) = 1 as first_entry,
      r.next_step_id is not null and row_number() over (partition by r.deal_id, r.investor_user_id, r.step_id, r.next_step_id order by r.seq) = 1 as first_transition
      from ${rows} r) n`;
  const sums = (rows: string, sign: 1 | -1) => `
      insert into funnel_counts as f (deal_id, class, step_id, slot, standing, entered, left_count)
      select n.deal_id, k.class, n.step_id, funnel_slot(n.investor_user_id),
        ${sign} * count(*) filter (where n.left_at is null),
        ${sign} * count(*) filter (where n.first_entry),
        ${sign} * count(*) filter (where n.left_at is not null)
      from ${classed(rows)} group by 1, 2, 3, 4
      on conflict (deal_id, class, step_id, slot) do update set standing = f.standing + excluded.standing,
        entered = f.entered + excluded.entered, left_count = f.left_count + excluded.left_count;
      insert into funnel_daily as f (deal_id, class, day, step_id, slot, entered, left_count)
      select deal_id, class, day, step_id, slot, ${sign} * sum(e)::int, ${sign} * sum(l)::int from (
        select n.deal_id, k.class, (n.entered_at at time zone 'UTC')::date as day, n.step_id, funnel_slot(n.investor_user_id) as slot, 1 as e, 0 as l from ${classed(rows)}
        union all
        select n.deal_id, k.class, (n.left_at at time zone 'UTC')::date, n.step_id, funnel_slot(n.investor_user_id), 0, 1 from ${classed(rows)} where n.left_at is not null) d
      group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, day, step_id, slot) do update set entered = f.entered + excluded.entered, left_count = f.left_count + excluded.left_count;
      insert into funnel_durations as f (deal_id, class, step_id, bucket, slot, stays)
      select n.deal_id, k.class, n.step_id, n.bucket, funnel_slot(n.investor_user_id), ${sign} * count(*) from ${classed(rows)} where n.left_at is not null group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, step_id, bucket, slot) do update set stays = f.stays + excluded.stays;
      insert into funnel_transitions as f (deal_id, class, from_step_id, to_step_id, slot, investors)
      select n.deal_id, k.class, n.step_id, n.next_step_id, funnel_slot(n.investor_user_id), ${sign} * count(*)
      from ${classed(rows)}
      where n.first_transition
      group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, from_step_id, to_step_id, slot) do update set investors = f.investors + excluded.investors;`;
  const nestedLoops = 'set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off';
  await sql
    .raw(`create or replace function funnel_stays_insert() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      ${sums(flaggedFromTable('new_rows'), 1)}
      return null;
    end $$`)
    .execute(db);
  // Deleted stays (a recount after a change of classes) are taken away again; a rebuild, which
  // empties the sums anyway, says so and skips the work.
  await sql
    .raw(`create function funnel_stays_delete() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      if current_setting('dealflow.funnel_rebuilding', true) = 'on' then return null; end if;
      ${sums(flaggedAmongThemselves('old_rows'), -1)}
      return null;
    end $$`)
    .execute(db);
  await sql`create trigger funnel_stays_delete after delete on funnel_stays referencing old table as old_rows
    for each statement execute function funnel_stays_delete()`.execute(db);
  // Only a stay being left is ever updated (left_at and next_step_id set, once: funnel_apply's
  // `closed` takes only stays with no left_at), so every updated row is a stay being left. (Joining
  // new_rows to old_rows to check it would compare every pair: a transition table has no index.)
  const left = `(select n.* from new_rows n where n.left_at is not null)`;
  await sql
    .raw(`create or replace function funnel_stays_update() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      insert into funnel_counts as f (deal_id, class, step_id, slot, standing, entered, left_count)
      select n.deal_id, k.class, n.step_id, funnel_slot(n.investor_user_id), -count(*), 0, count(*)
      from ${classed(`${left} n`)} group by 1, 2, 3, 4
      on conflict (deal_id, class, step_id, slot) do update set standing = f.standing + excluded.standing, left_count = f.left_count + excluded.left_count;
      insert into funnel_daily as f (deal_id, class, day, step_id, slot, entered, left_count)
      select n.deal_id, k.class, (n.left_at at time zone 'UTC')::date, n.step_id, funnel_slot(n.investor_user_id), 0, count(*)
      from ${classed(`${left} n`)} group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, day, step_id, slot) do update set left_count = f.left_count + excluded.left_count;
      insert into funnel_durations as f (deal_id, class, step_id, bucket, slot, stays)
      select n.deal_id, k.class, n.step_id, n.bucket, funnel_slot(n.investor_user_id), count(*)
      from ${classed(`${left} n`)} group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, step_id, bucket, slot) do update set stays = f.stays + excluded.stays;
      insert into funnel_transitions as f (deal_id, class, from_step_id, to_step_id, slot, investors)
      select n.deal_id, k.class, n.step_id, n.next_step_id, funnel_slot(n.investor_user_id), count(*)
      from ${classed(`${left} n`)}
      where not exists (select 1 from funnel_stays x where x.deal_id = n.deal_id and x.investor_user_id = n.investor_user_id
        and x.step_id = n.step_id and x.next_step_id = n.next_step_id and x.seq < n.seq)
      group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, from_step_id, to_step_id, slot) do update set investors = f.investors + excluded.investors;
      return null;
    end $$`)
    .execute(db);

  // ---- positions → money, under '' and each of the position's classes ----
  const money = (rows: string, sign: string) =>
    `select deal_id, k.class, step_id, currency, funnel_slot(investor_user_id) as slot, ${sign}amount as amount, ${sign}1 as n
        from ${rows} cross join lateral unnest(array[''] || classes) as k(class) where amount is not null and currency is not null`;
  await sql
    .raw(`create or replace function funnel_positions_change() returns trigger language plpgsql as $$
    begin
      insert into funnel_money as f (deal_id, class, step_id, currency, slot, total, investors)
      select deal_id, class, step_id, currency, slot, sum(amount), sum(n)::int from (${money('new_rows', '')} union all ${money('old_rows', '-')}) d
      group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, step_id, currency, slot) do update set total = f.total + excluded.total, investors = f.investors + excluded.investors;
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create or replace function funnel_positions_insert() returns trigger language plpgsql as $$
    begin
      insert into funnel_money as f (deal_id, class, step_id, currency, slot, total, investors)
      select deal_id, class, step_id, currency, slot, sum(amount), sum(n)::int from (${money('new_rows', '')}) d
      group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, step_id, currency, slot) do update set total = f.total + excluded.total, investors = f.investors + excluded.investors;
      return null;
    end $$`)
    .execute(db);

  // Applies the journeys of the oldest `max_rows` pending rows: a journey noted for a recount
  // loses its stays first (and is applied from its first event); then every journey's position is
  // refreshed (its classes with it) and its events after the last one applied become stays (the
  // first one closes the journey's open stay). The caller runs it in REPEATABLE READ after
  // updating funnel_upkeep (src/store/funnel.ts). Returns the pending rows taken (0: nothing was
  // pending). Nested loops on primary keys, as in 0015: a batch is small against the tables it reads.
  await sql`create function funnel_apply(max_rows integer) returns integer language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
    declare deal_ids text[]; investor_ids text[]; afters integer[]; rekeys boolean[]; taken integer;
    begin
      with picked as (
        delete from funnel_pending where id in (select id from funnel_pending order by id limit max_rows)
        returning deal_id, investor_user_id, rekey
      ), journeys as (
        select q.deal_id, q.investor_user_id, bool_or(q.rekey) as rekey, coalesce(min(p.last_seq), 0) as after
        from picked q left join funnel_positions p on p.deal_id = q.deal_id and p.investor_user_id = q.investor_user_id
        group by 1, 2
      )
      select array_agg(deal_id), array_agg(investor_user_id), array_agg(case when rekey then 0 else after end), array_agg(rekey),
        (select count(*) from picked)
      into deal_ids, investor_ids, afters, rekeys, taken from journeys;
      if deal_ids is null then return coalesce(taken, 0); end if;
      delete from funnel_stays s using unnest(deal_ids, investor_ids, rekeys) as u(d, i, r)
      where u.r and s.deal_id = u.d and s.investor_user_id = u.i;
      perform funnel_refresh_positions(deal_ids, investor_ids, rekeys);
      with moves as (
        select e.deal_id, e.investor_user_id, e.seq, e.to_step_id, e.created_at,
          row_number() over (partition by e.deal_id, e.investor_user_id order by e.seq) as n,
          lead(e.created_at) over (partition by e.deal_id, e.investor_user_id order by e.seq) as left_at,
          lead(e.to_step_id) over (partition by e.deal_id, e.investor_user_id order by e.seq) as next_step_id
        from unnest(deal_ids, investor_ids, afters) as j(deal_id, investor_user_id, after)
        join workflow_events e on e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id and e.seq > j.after
        where e.from_step_id is distinct from e.to_step_id
      ), closed as (
        update funnel_stays s set left_at = m.created_at, next_step_id = m.to_step_id
        from moves m where m.n = 1 and s.deal_id = m.deal_id and s.investor_user_id = m.investor_user_id and s.left_at is null
      )
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id, classes)
      select m.deal_id, m.investor_user_id, m.seq, m.to_step_id, m.created_at, m.left_at, m.next_step_id, p.classes
      from moves m join funnel_positions p on p.deal_id = m.deal_id and p.investor_user_id = m.investor_user_id;
      return taken;
    end $$`.execute(db);

  // Everything again from the events, for one deal or all (null): positions first (each stay takes
  // its journey's classes from them), then the stays.
  await sql`create or replace function funnel_rebuild(deal text) returns void language plpgsql as $$
    begin
      perform set_config('dealflow.funnel_rebuilding', 'on', true);
      delete from funnel_pending where deal is null or deal_id = deal;
      delete from funnel_stays where deal is null or deal_id = deal;
      delete from funnel_positions where deal is null or deal_id = deal;
      delete from funnel_counts where deal is null or deal_id = deal;
      delete from funnel_transitions where deal is null or deal_id = deal;
      delete from funnel_money where deal is null or deal_id = deal;
      delete from funnel_daily where deal is null or deal_id = deal;
      delete from funnel_durations where deal is null or deal_id = deal;
      perform set_config('dealflow.funnel_rebuilding', 'off', true);
      perform funnel_refresh_positions(array_agg(deal_id), array_agg(investor_user_id))
      from journeys where (deal is null or deal_id = deal) and event_count > 0;
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id, classes)
      select e.deal_id, e.investor_user_id, e.seq, e.to_step_id, e.created_at, lead(e.created_at) over w, lead(e.to_step_id) over w, p.classes
      from workflow_events e join funnel_positions p on p.deal_id = e.deal_id and p.investor_user_id = e.investor_user_id
      where (deal is null or e.deal_id = deal) and e.from_step_id is distinct from e.to_step_id
      window w as (partition by e.deal_id, e.investor_user_id order by e.seq);
    end $$`.execute(db);
  await sql`select funnel_rebuild(null)`.execute(db);
}

export async function down(): Promise<void> {
  // Going back would put the funnel's upkeep into every move again; the kept tables are rebuilt
  // from the events either way (funnel_rebuild), so a rollback restores a backup instead.
  throw new Error('0017-funnel-upkeep cannot be undone; restore a backup taken before it');
}
