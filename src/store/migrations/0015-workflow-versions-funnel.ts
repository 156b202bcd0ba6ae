// Workflow versions and the funnel (docs/guides/change-a-workflow.md, docs/reference/funnel.md).
//
// Versions
// - workflow_versions: the structure of every version a deal's workflow has had (workflows.version
//   is the number; it already rose by one on every PUT), written once, never changed, with the step
//   mapping the PUT named for steps it removed under investors.
// - journeys.workflow_version: the version a journey moves on until it is migrated; null only for
//   journeys that never had an event.
// - workflow_events.workflow_version: the version an event was made under, written by the insert
//   (history is not updated afterwards, so events older than this migration keep null).
//
// Funnel, kept in the writing transaction by triggers (as migration 0011's list counts):
// - funnel_stays: one row per stay of an investor at a step (entered by an event, left by the next
//   event that goes elsewhere), with its duration once left; an index per (deal, step, duration)
//   gives exact percentiles by position.
// - funnel_positions: one row per journey: where it stands, what it committed and in which currency
//   (the deal's payment settings name the fields; the deal's currency when none is captured).
// - funnel_counts, funnel_transitions, funnel_money, funnel_daily, funnel_durations (stays per 1%
//   bucket of duration, for the percentiles): the sums a funnel request reads,
//   each in 16 slots per key (the investor's hash picks one) so moves of one deal do not queue on
//   one row.
// Events are only inserted (and their data cache updated by edits), so the triggers are on insert
// (per statement: a bulk load is one grouped write) and on update of data. Migration events that
// keep the step (a new version, same step) start no new stay.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // ---- versions ----
  await sql`create table workflow_versions (
    deal_id text not null references workflows (deal_id),
    version integer not null,
    structure jsonb not null,
    step_mapping jsonb not null default '{}'::jsonb,
    created_at timestamptz(3) not null,
    primary key (deal_id, version)
  )`.execute(db);
  await sql`alter table journeys add column workflow_version integer`.execute(db);
  await sql`alter table workflow_events add column workflow_version integer`.execute(db);
  // What exists is version N of each workflow, as it stands now.
  await sql`insert into workflow_versions (deal_id, version, structure, created_at)
    select w.deal_id, w.version, jsonb_build_object(
      'id', w.id, 'dealId', w.deal_id, 'label', w.label, 'description', w.description,
      'investorEngagementEnabled', w.investor_engagement_enabled, 'version', w.version,
      'steps', coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'label', s.label, 'type', s.type, 'stepFields', s.fields,
          'requirements', s.requirements, 'formId', s.form_id) order by s.position)
        from workflow_steps s where s.deal_id = w.deal_id and s.retired_at is null), '[]'::jsonb),
      'links', coalesce((select jsonb_agg(jsonb_build_object('fromStepId', l.from_step_id, 'toStepId', l.to_step_id) order by l.from_step_id, l.to_step_id)
        from workflow_links l where l.deal_id = w.deal_id), '[]'::jsonb)), w.updated_at
    from workflows w`.execute(db);
  await sql`update journeys j set workflow_version = w.version from workflows w where w.deal_id = j.deal_id and j.event_count > 0`.execute(db);
  await sql`create index journeys_deal_version on journeys (deal_id, workflow_version)`.execute(db);

  // ---- funnel tables ----
  await sql`create table funnel_stays (
    deal_id text not null,
    investor_user_id text not null,
    seq integer not null,
    step_id text not null,
    entered_at timestamptz(3) not null,
    left_at timestamptz(3),
    next_step_id text,
    duration_ms bigint generated always as ((extract(epoch from (left_at - entered_at)) * 1000)::bigint) stored,
    -- 1% wide logarithmic buckets of the duration: funnel_durations counts stays per bucket, so a
    -- percentile finds its bucket in the kept counts and its exact value by an offset within it.
    bucket integer generated always as (floor(ln(greatest((extract(epoch from (left_at - entered_at)) * 1000)::bigint, 1)) * 100)::int) stored,
    primary key (deal_id, investor_user_id, seq)
  ) with (fillfactor = 85)`.execute(db);
  await sql`create index funnel_stays_durations on funnel_stays (deal_id, step_id, bucket, duration_ms) where left_at is not null`.execute(db);
  await sql`create table funnel_positions (
    deal_id text not null,
    investor_user_id text not null,
    step_id text not null,
    amount numeric,
    currency text,
    primary key (deal_id, investor_user_id)
  ) with (fillfactor = 85)`.execute(db);
  await sql`create table funnel_counts (
    deal_id text not null, step_id text not null, slot smallint not null,
    standing integer not null default 0, entered integer not null default 0, left_count integer not null default 0,
    primary key (deal_id, step_id, slot))`.execute(db);
  await sql`create table funnel_transitions (
    deal_id text not null, from_step_id text not null, to_step_id text not null, slot smallint not null,
    investors integer not null default 0,
    primary key (deal_id, from_step_id, to_step_id, slot))`.execute(db);
  await sql`create table funnel_money (
    deal_id text not null, step_id text not null, currency text not null, slot smallint not null,
    total numeric not null default 0, investors integer not null default 0,
    primary key (deal_id, step_id, currency, slot))`.execute(db);
  await sql`create table funnel_durations (
    deal_id text not null, step_id text not null, bucket integer not null, slot smallint not null,
    stays integer not null default 0,
    primary key (deal_id, step_id, bucket, slot))`.execute(db);
  await sql`create table funnel_daily (
    deal_id text not null, day date not null, step_id text not null, slot smallint not null,
    entered integer not null default 0, left_count integer not null default 0,
    primary key (deal_id, day, step_id, slot))`.execute(db);
  await sql`create index edit_requests_pending_deal on edit_requests (deal_id, investor_user_id) where status = 'pending'`.execute(db);

  await sql`create function funnel_slot(investor text) returns smallint language sql immutable as $$
    select (abs(hashtext(investor)) % 16)::smallint $$`.execute(db);

  // ---- events → stays and positions ----
  // New events (per statement): close each journey's open stay, open one per event that changes
  // the step (the next event of the same batch closes it), then refresh the journeys' positions.
  // The triggers' joins between a statement's rows and funnel_stays run as nested loops on its
  // primary key (`set enable_hashjoin/mergejoin/seqscan = off` for the function's duration only: during a
  // bulk load its statistics lag far behind its size, so the planner still thinks it tiny): with
  // many rows in one statement (a seed, an import's batch) the planner otherwise hashes the whole
  // of funnel_stays for each batch, which made a 100,000-investor seed quadratic (16 min, not 1).
  await sql`create function funnel_events_insert() returns trigger language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
    declare k record;
    begin
      -- Every kept row below is keyed by (deal, …, slot), and one move touches the rows of two
      -- steps in the order of its move: two moves of one slot going opposite ways would take them
      -- in opposite orders and deadlock. A lock per (deal, slot), taken first and in key order,
      -- makes them take turns instead (only moves whose investors share one of 16 slots).
      for k in select distinct hashtext(deal_id) as h, funnel_slot(investor_user_id) as s from new_rows order by 1, 2 loop
        perform pg_advisory_xact_lock(k.h, k.s);
      end loop;
      with moves as (
        select deal_id, investor_user_id, seq, to_step_id, created_at,
          row_number() over (partition by deal_id, investor_user_id order by seq) as n,
          lead(created_at) over (partition by deal_id, investor_user_id order by seq) as left_at,
          lead(to_step_id) over (partition by deal_id, investor_user_id order by seq) as next_step_id
        from new_rows where from_step_id is distinct from to_step_id
      ), closed as (
        update funnel_stays s set left_at = m.created_at, next_step_id = m.to_step_id
        from moves m where m.n = 1 and s.deal_id = m.deal_id and s.investor_user_id = m.investor_user_id and s.left_at is null
      )
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id)
      select deal_id, investor_user_id, seq, to_step_id, created_at, left_at, next_step_id from moves;
      perform funnel_refresh_positions(array_agg(deal_id), array_agg(investor_user_id)) from new_rows;
      return null;
    end $$`.execute(db);

  // Edits change captured data: the commitment may change.
  await sql`create function funnel_events_update() returns trigger language plpgsql as $$
    declare k record;
    begin
      -- As for new events (funnel_events_insert): every kept row below is keyed by (deal, …, slot), and the lock per (deal, slot) comes first.
      for k in select distinct hashtext(deal_id) as h, funnel_slot(investor_user_id) as s from new_rows order by 1, 2 loop
        perform pg_advisory_xact_lock(k.h, k.s);
      end loop;
      perform funnel_refresh_positions(array_agg(deal_id), array_agg(investor_user_id)) from new_rows;
      return null;
    end $$`.execute(db);

  // A journey's position: its latest event's step, and the latest captured commitment and currency
  // (only values that read as a decimal / an ISO 4217 code count; text fields may hold anything).
  await sql`create function funnel_refresh_positions(deal_ids text[], investor_ids text[]) returns void language plpgsql as $$
    begin
      if deal_ids is null then return; end if;
      insert into funnel_positions as p (deal_id, investor_user_id, step_id, amount, currency)
      select j.d, j.i, last.to_step_id,
        case when a.v ~ '^[0-9]{1,30}(\\.[0-9]{1,12})?$' then a.v::numeric end,
        coalesce(case when c.v ~ '^[A-Z]{3}$' then c.v end, deal.currency)
      from (select distinct d, i from unnest(deal_ids, investor_ids) as u(d, i)) j
      join deals deal on deal.id = j.d
      left join deal_payment_settings ps on ps.deal_id = j.d
      cross join lateral (select e.to_step_id from workflow_events e where e.deal_id = j.d and e.investor_user_id = j.i order by e.seq desc limit 1) last
      left join lateral (select e.data ->> k.key as v from (select coalesce(ps.commitment_field_key, 'committed_amount') as key) k, workflow_events e
        where e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) a on true
      left join lateral (select e.data ->> k.key as v from (select case when ps.deal_id is null then 'currency' else ps.currency_field_key end as key) k,
          workflow_events e
        where k.key is not null and e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) c on true
      on conflict (deal_id, investor_user_id) do update set step_id = excluded.step_id, amount = excluded.amount, currency = excluded.currency
      where (p.step_id, p.amount, p.currency) is distinct from (excluded.step_id, excluded.amount, excluded.currency);
    end $$`.execute(db);

  // Everything again from the events, for one deal or all (null): the migration's backfill, and
  // bulk loads that bypass the triggers (bench/funnel.ts). The triggers on the kept tables do the sums.
  await sql`create function funnel_rebuild(deal text) returns void language plpgsql as $$
    begin
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

  // ---- stays → counts, transitions, daily ----
  // An investor counts once per step entered and once per transition taken (the first time).
  const firstTransitions = (rows: string, extra = '') => `
      insert into funnel_transitions as f (deal_id, from_step_id, to_step_id, slot, investors)
      select n.deal_id, n.step_id, n.next_step_id, funnel_slot(n.investor_user_id), count(*)
      from ${rows}
      where n.next_step_id is not null ${extra}
        and not exists (select 1 from funnel_stays x where x.deal_id = n.deal_id and x.investor_user_id = n.investor_user_id
          and x.step_id = n.step_id and x.next_step_id = n.next_step_id and x.seq < n.seq)
      group by 1, 2, 3, 4
      on conflict (deal_id, from_step_id, to_step_id, slot) do update set investors = f.investors + excluded.investors`;
  await sql
    .raw(`create function funnel_stays_insert() returns trigger language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
    begin
      insert into funnel_counts as f (deal_id, step_id, slot, standing, entered, left_count)
      select deal_id, step_id, funnel_slot(investor_user_id),
        count(*) filter (where left_at is null),
        count(*) filter (where not exists (select 1 from funnel_stays x where x.deal_id = n.deal_id and x.investor_user_id = n.investor_user_id
          and x.step_id = n.step_id and x.seq < n.seq)),
        count(*) filter (where left_at is not null)
      from new_rows n group by 1, 2, 3
      on conflict (deal_id, step_id, slot) do update set standing = f.standing + excluded.standing,
        entered = f.entered + excluded.entered, left_count = f.left_count + excluded.left_count;
      insert into funnel_daily as f (deal_id, day, step_id, slot, entered, left_count)
      select deal_id, day, step_id, slot, sum(e)::int, sum(l)::int from (
        select deal_id, (entered_at at time zone 'UTC')::date as day, step_id, funnel_slot(investor_user_id) as slot, 1 as e, 0 as l from new_rows
        union all
        select deal_id, (left_at at time zone 'UTC')::date, step_id, funnel_slot(investor_user_id), 0, 1 from new_rows where left_at is not null) d
      group by 1, 2, 3, 4
      on conflict (deal_id, day, step_id, slot) do update set entered = f.entered + excluded.entered, left_count = f.left_count + excluded.left_count;
      insert into funnel_durations as f (deal_id, step_id, bucket, slot, stays)
      select deal_id, step_id, bucket, funnel_slot(investor_user_id), count(*) from new_rows where left_at is not null group by 1, 2, 3, 4
      on conflict (deal_id, step_id, bucket, slot) do update set stays = f.stays + excluded.stays;
      ${firstTransitions('new_rows n')};
      return null;
    end $$`)
    .execute(db);
  // Only a stay being left is ever updated (left_at and next_step_id set, once).
  await sql
    .raw(`create function funnel_stays_update() returns trigger language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
    begin
      insert into funnel_counts as f (deal_id, step_id, slot, standing, entered, left_count)
      select n.deal_id, n.step_id, funnel_slot(n.investor_user_id), -count(*), 0, count(*)
      from new_rows n join old_rows o using (deal_id, investor_user_id, seq)
      where o.left_at is null and n.left_at is not null group by 1, 2, 3
      on conflict (deal_id, step_id, slot) do update set standing = f.standing + excluded.standing, left_count = f.left_count + excluded.left_count;
      insert into funnel_daily as f (deal_id, day, step_id, slot, entered, left_count)
      select n.deal_id, (n.left_at at time zone 'UTC')::date, n.step_id, funnel_slot(n.investor_user_id), 0, count(*)
      from new_rows n join old_rows o using (deal_id, investor_user_id, seq)
      where o.left_at is null and n.left_at is not null group by 1, 2, 3, 4
      on conflict (deal_id, day, step_id, slot) do update set left_count = f.left_count + excluded.left_count;
      insert into funnel_durations as f (deal_id, step_id, bucket, slot, stays)
      select n.deal_id, n.step_id, n.bucket, funnel_slot(n.investor_user_id), count(*)
      from new_rows n join old_rows o using (deal_id, investor_user_id, seq)
      where o.left_at is null and n.left_at is not null group by 1, 2, 3, 4
      on conflict (deal_id, step_id, bucket, slot) do update set stays = f.stays + excluded.stays;
      ${firstTransitions('new_rows n join old_rows o using (deal_id, investor_user_id, seq)', 'and o.next_step_id is null')};
      return null;
    end $$`)
    .execute(db);

  // ---- positions → money ----
  await sql`create function funnel_positions_change() returns trigger language plpgsql as $$
    begin
      insert into funnel_money as f (deal_id, step_id, currency, slot, total, investors)
      select deal_id, step_id, currency, slot, sum(amount), sum(n)::int from (
        select deal_id, step_id, currency, funnel_slot(investor_user_id) as slot, amount, 1 as n from new_rows where amount is not null and currency is not null
        union all
        select deal_id, step_id, currency, funnel_slot(investor_user_id), -amount, -1 from old_rows where amount is not null and currency is not null) d
      group by 1, 2, 3, 4
      on conflict (deal_id, step_id, currency, slot) do update set total = f.total + excluded.total, investors = f.investors + excluded.investors;
      return null;
    end $$`.execute(db);
  await sql`create function funnel_positions_insert() returns trigger language plpgsql as $$
    begin
      insert into funnel_money as f (deal_id, step_id, currency, slot, total, investors)
      select deal_id, step_id, currency, funnel_slot(investor_user_id), sum(amount), count(*)::int from new_rows
      where amount is not null and currency is not null group by 1, 2, 3, 4
      on conflict (deal_id, step_id, currency, slot) do update set total = f.total + excluded.total, investors = f.investors + excluded.investors;
      return null;
    end $$`.execute(db);

  await sql`create trigger funnel_events_insert after insert on workflow_events referencing new table as new_rows
    for each statement execute function funnel_events_insert()`.execute(db);
  await sql`create trigger funnel_events_update after update on workflow_events referencing new table as new_rows
    for each statement execute function funnel_events_update()`.execute(db);
  await sql`create trigger funnel_stays_insert after insert on funnel_stays referencing new table as new_rows
    for each statement execute function funnel_stays_insert()`.execute(db);
  await sql`create trigger funnel_stays_update after update on funnel_stays referencing old table as old_rows new table as new_rows
    for each statement execute function funnel_stays_update()`.execute(db);
  await sql`create trigger funnel_positions_insert after insert on funnel_positions referencing new table as new_rows
    for each statement execute function funnel_positions_insert()`.execute(db);
  await sql`create trigger funnel_positions_update after update on funnel_positions referencing old table as old_rows new table as new_rows
    for each statement execute function funnel_positions_change()`.execute(db);

  // ---- backfill: every deal's events, as if each had been inserted now (the triggers do the sums) ----
  await sql`select funnel_rebuild(null)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [t, on] of [
    ['funnel_events_insert', 'workflow_events'],
    ['funnel_events_update', 'workflow_events'],
    ['funnel_stays_insert', 'funnel_stays'],
    ['funnel_stays_update', 'funnel_stays'],
    ['funnel_positions_insert', 'funnel_positions'],
    ['funnel_positions_update', 'funnel_positions'],
  ] as const) {
    await sql.raw(`drop trigger ${t} on ${on}`).execute(db);
  }
  for (const t of [
    'funnel_durations',
    'funnel_daily',
    'funnel_money',
    'funnel_transitions',
    'funnel_counts',
    'funnel_positions',
    'funnel_stays',
    'workflow_versions',
  ]) {
    await sql.raw(`drop table ${t}`).execute(db);
  }
  for (const f of [
    'funnel_events_insert()',
    'funnel_events_update()',
    'funnel_refresh_positions(text[], text[])',
    'funnel_rebuild(text)',
    'funnel_stays_insert()',
    'funnel_stays_update()',
    'funnel_positions_change()',
    'funnel_positions_insert()',
    'funnel_slot(text)',
  ]) {
    await sql.raw(`drop function ${f}`).execute(db);
  }
  await sql`drop index edit_requests_pending_deal`.execute(db);
  await sql`drop index journeys_deal_version`.execute(db);
  await sql`alter table workflow_events drop column workflow_version`.execute(db);
  await sql`alter table journeys drop column workflow_version`.execute(db);
}
