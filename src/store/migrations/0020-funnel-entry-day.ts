// The funnel filtered by entry into the deal, from kept sums (docs/reference/funnel.md).
//
// A journey's cohort is its entry day: the UTC day of journeys.started_at (set when its first event
// is written, never changed). Migration 0017's sums are kept per class; these are kept per class and
// per cohort too, so that `enteredFrom`/`enteredTo` sum kept rows instead of reading every stay:
//
// - A cohort sum is kept per entry day and per aligned block of 8 and of 64 days (`span` 1, 8, 64;
//   `first_day` the block's first day, blocks counted from 1970-01-01). A range of days is summed
//   from at most 7 days and 7 blocks of 8 at each end and the blocks of 64 between (at most about
//   30 keys for a year), so a read's cost grows with the steps and the keys, not the journeys.
// - funnel_cohort_counts (standing, entered, left), funnel_cohort_transitions, funnel_cohort_money:
//   as funnel_counts, … with the cohort key instead of the 16 slots (the upkeep is one transaction
//   at a time since 0017, so nothing queues on these rows).
// - funnel_cohort_durations: left stays per duration bucket, at two widths: 1 (0015's 1% buckets)
//   and 32 (groups of 32 buckets). A percentile finds its group from the wide counts, its bucket
//   within the group from the narrow ones (at most 32 per key), and its exact value by an offset in
//   that bucket on the stays' duration index, now with the entry day in it.
// - A stay and a position carry their journey's entry day (as they carry its classes since 0017):
//   taken from the journey when its position is first written or recounted, so that a stay closed
//   or removed changes exactly the sums it was added to.
//
// The cohort sums follow the stays and positions by triggers of their own beside 0017's (which are
// left as they are); the upkeep (funnel_apply), the recount after a change of classes and
// funnel_rebuild are 0017's, now writing the entry day. Frozen in time: migrations never import
// application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Filled by the rebuild at the end; the default only lets the columns be added to existing rows.
  await sql`alter table funnel_positions add column entry_day date not null default '1970-01-01'`.execute(db);
  await sql`alter table funnel_stays add column entry_day date not null default '1970-01-01'`.execute(db);
  await sql`drop index funnel_stays_durations`.execute(db);
  await sql`create index funnel_stays_durations on funnel_stays (deal_id, step_id, bucket, duration_ms) include (classes, entry_day) where left_at is not null`.execute(
    db,
  );

  await sql`create table funnel_cohort_counts (
    deal_id text not null, class text not null, span smallint not null, first_day date not null, step_id text not null,
    standing integer not null default 0, entered integer not null default 0, left_count integer not null default 0,
    primary key (deal_id, class, span, first_day, step_id))`.execute(db);
  await sql`create table funnel_cohort_transitions (
    deal_id text not null, class text not null, span smallint not null, first_day date not null, from_step_id text not null, to_step_id text not null,
    investors integer not null default 0,
    primary key (deal_id, class, span, first_day, from_step_id, to_step_id))`.execute(db);
  await sql`create table funnel_cohort_money (
    deal_id text not null, class text not null, span smallint not null, first_day date not null, step_id text not null, currency text not null,
    total numeric not null default 0, investors integer not null default 0,
    primary key (deal_id, class, span, first_day, step_id, currency))`.execute(db);
  await sql`create table funnel_cohort_durations (
    deal_id text not null, class text not null, width smallint not null, span smallint not null, first_day date not null, step_id text not null,
    bucket integer not null, stays integer not null default 0,
    primary key (deal_id, class, width, span, first_day, step_id, bucket))`.execute(db);

  // A set of rows named n (stays or positions, with classes and entry_day), once per class key ('' and
  // each class) and per cohort key (the day, and the blocks of 8 and 64 days holding it).
  const cohorted = (rows: string) => `${rows}
      cross join lateral unnest(array[''] || n.classes) as k(class)
      cross join lateral (select g.span, n.entry_day - ((n.entry_day - date '1970-01-01') % g.span + g.span) % g.span as first_day
        from (values (1), (8), (64)) as g(span)) c`;

  // ---- stays → cohort counts, transitions, durations ----
  // The flags as in 0017: whether a stay is the investor's first at its step (`first_entry`) and the
  // first of their transitions from its step to its next one (`first_transition`).
  const earlier = (extra: string) =>
    `exists (select 1 from funnel_stays x where x.deal_id = r.deal_id and x.investor_user_id = r.investor_user_id and x.step_id = r.step_id ${extra} and x.seq < r.seq)`;
  const flaggedFromTable = (rows: string) => `(select r.*, not ${earlier('')} as first_entry,
      r.next_step_id is not null and not ${earlier('and x.next_step_id = r.next_step_id')} as first_transition from ${rows} r) n`;
  const flaggedAmongThemselves = (rows: string) => `(select r.*,
      row_number() over (partition by r.deal_id, r.investor_user_id, r.step_id order by r.seq) = 1 as first_entry,
      r.next_step_id is not null and row_number() over (partition by r.deal_id, r.investor_user_id, r.step_id, r.next_step_id order by r.seq) = 1 as first_transition
      from ${rows} r) n`;
  const durations = (rows: string, amount: string) => `
      insert into funnel_cohort_durations as f (deal_id, class, width, span, first_day, step_id, bucket, stays)
      select n.deal_id, k.class, w.width, c.span, c.first_day, n.step_id, n.bucket / w.width * w.width, ${amount}
      from ${cohorted(rows)} cross join (values (1), (32)) as w(width) where n.left_at is not null group by 1, 2, 3, 4, 5, 6, 7
      on conflict (deal_id, class, width, span, first_day, step_id, bucket) do update set stays = f.stays + excluded.stays;`;
  const transitions = (rows: string, amount: string) => `
      insert into funnel_cohort_transitions as f (deal_id, class, span, first_day, from_step_id, to_step_id, investors)
      select n.deal_id, k.class, c.span, c.first_day, n.step_id, n.next_step_id, ${amount}
      from ${cohorted(rows)} where n.first_transition group by 1, 2, 3, 4, 5, 6
      on conflict (deal_id, class, span, first_day, from_step_id, to_step_id) do update set investors = f.investors + excluded.investors;`;
  const sums = (rows: string, sign: 1 | -1) => `
      insert into funnel_cohort_counts as f (deal_id, class, span, first_day, step_id, standing, entered, left_count)
      select n.deal_id, k.class, c.span, c.first_day, n.step_id,
        ${sign} * count(*) filter (where n.left_at is null),
        ${sign} * count(*) filter (where n.first_entry),
        ${sign} * count(*) filter (where n.left_at is not null)
      from ${cohorted(rows)} group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, span, first_day, step_id) do update set standing = f.standing + excluded.standing,
        entered = f.entered + excluded.entered, left_count = f.left_count + excluded.left_count;
      ${durations(rows, `${sign} * count(*)`)}
      ${transitions(rows, `${sign} * count(*)`)}`;
  const nestedLoops = 'set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off';
  await sql
    .raw(`create function funnel_cohort_stays_insert() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      ${sums(flaggedFromTable('new_rows'), 1)}
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create function funnel_cohort_stays_delete() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      if current_setting('dealflow.funnel_rebuilding', true) = 'on' then return null; end if;
      ${sums(flaggedAmongThemselves('old_rows'), -1)}
      return null;
    end $$`)
    .execute(db);
  // Only a stay being left is ever updated (0017: left_at and next_step_id set, once); whether it is
  // the investor's first such transition is looked up among their earlier stays.
  const left = `(select r.*, not ${earlier('and x.next_step_id = r.next_step_id')} as first_transition from new_rows r where r.left_at is not null) n`;
  await sql
    .raw(`create function funnel_cohort_stays_update() returns trigger language plpgsql ${nestedLoops} as $$
    begin
      insert into funnel_cohort_counts as f (deal_id, class, span, first_day, step_id, standing, entered, left_count)
      select n.deal_id, k.class, c.span, c.first_day, n.step_id, -count(*), 0, count(*)
      from ${cohorted(left)} group by 1, 2, 3, 4, 5
      on conflict (deal_id, class, span, first_day, step_id) do update set standing = f.standing + excluded.standing, left_count = f.left_count + excluded.left_count;
      ${durations(left, 'count(*)')}
      ${transitions(left, 'count(*)')}
      return null;
    end $$`)
    .execute(db);
  await sql`create trigger funnel_cohort_stays_insert after insert on funnel_stays referencing new table as new_rows
    for each statement execute function funnel_cohort_stays_insert()`.execute(db);
  await sql`create trigger funnel_cohort_stays_update after update on funnel_stays referencing old table as old_rows new table as new_rows
    for each statement execute function funnel_cohort_stays_update()`.execute(db);
  await sql`create trigger funnel_cohort_stays_delete after delete on funnel_stays referencing old table as old_rows
    for each statement execute function funnel_cohort_stays_delete()`.execute(db);

  // ---- positions → cohort money ----
  const money = (rows: string, sign: string) =>
    `select n.deal_id, k.class, c.span, c.first_day, n.step_id, n.currency, ${sign}n.amount as amount, ${sign}1 as n
        from ${cohorted(`${rows} n`)} where n.amount is not null and n.currency is not null`;
  const upsertMoney = (select: string) => `
      insert into funnel_cohort_money as f (deal_id, class, span, first_day, step_id, currency, total, investors)
      select deal_id, class, span, first_day, step_id, currency, sum(amount), sum(n)::int from (${select}) d
      group by 1, 2, 3, 4, 5, 6
      on conflict (deal_id, class, span, first_day, step_id, currency) do update set total = f.total + excluded.total, investors = f.investors + excluded.investors;`;
  await sql
    .raw(`create function funnel_cohort_positions_change() returns trigger language plpgsql as $$
    begin
      ${upsertMoney(`${money('new_rows', '')} union all ${money('old_rows', '-')}`)}
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create function funnel_cohort_positions_insert() returns trigger language plpgsql as $$
    begin
      ${upsertMoney(money('new_rows', ''))}
      return null;
    end $$`)
    .execute(db);
  await sql`create trigger funnel_cohort_positions_insert after insert on funnel_positions referencing new table as new_rows
    for each statement execute function funnel_cohort_positions_insert()`.execute(db);
  await sql`create trigger funnel_cohort_positions_update after update on funnel_positions referencing old table as old_rows new table as new_rows
    for each statement execute function funnel_cohort_positions_change()`.execute(db);

  // A journey's position as in 0017, with its entry day: like its classes, taken from the journey
  // for a new position or a recount, and otherwise kept, so that its stays keep their cohort.
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
      left join lateral (select e.data ->> k.key as v from (select coalesce(ps.commitment_field_key, 'committed_amount') as key) k, workflow_events e
        where e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) a on true
      left join lateral (select e.data ->> k.key as v from (select case when ps.deal_id is null then 'currency' else ps.currency_field_key end as key) k,
          workflow_events e
        where k.key is not null and e.deal_id = j.d and e.investor_user_id = j.i and e.data ? k.key order by e.seq desc limit 1) c on true
      on conflict (deal_id, investor_user_id) do update set step_id = excluded.step_id, amount = excluded.amount, currency = excluded.currency,
        last_seq = excluded.last_seq, classes = excluded.classes, entry_day = excluded.entry_day
      where (p.step_id, p.amount, p.currency, p.last_seq, p.classes, p.entry_day)
        is distinct from (excluded.step_id, excluded.amount, excluded.currency, excluded.last_seq, excluded.classes, excluded.entry_day);
    end $$`.execute(db);

  // 0017's upkeep, the stays now taking their journey's entry day from its position with its classes.
  await sql`create or replace function funnel_apply(max_rows integer) returns integer language plpgsql set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off as $$
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
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id, classes, entry_day)
      select m.deal_id, m.investor_user_id, m.seq, m.to_step_id, m.created_at, m.left_at, m.next_step_id, p.classes, p.entry_day
      from moves m join funnel_positions p on p.deal_id = m.deal_id and p.investor_user_id = m.investor_user_id;
      return taken;
    end $$`.execute(db);

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
      delete from funnel_cohort_counts where deal is null or deal_id = deal;
      delete from funnel_cohort_transitions where deal is null or deal_id = deal;
      delete from funnel_cohort_money where deal is null or deal_id = deal;
      delete from funnel_cohort_durations where deal is null or deal_id = deal;
      perform set_config('dealflow.funnel_rebuilding', 'off', true);
      perform funnel_refresh_positions(array_agg(deal_id), array_agg(investor_user_id))
      from journeys where (deal is null or deal_id = deal) and event_count > 0;
      insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id, classes, entry_day)
      select e.deal_id, e.investor_user_id, e.seq, e.to_step_id, e.created_at, lead(e.created_at) over w, lead(e.to_step_id) over w, p.classes, p.entry_day
      from workflow_events e join funnel_positions p on p.deal_id = e.deal_id and p.investor_user_id = e.investor_user_id
      where (deal is null or e.deal_id = deal) and e.from_step_id is distinct from e.to_step_id
      window w as (partition by e.deal_id, e.investor_user_id order by e.seq);
    end $$`.execute(db);
  await sql`select funnel_rebuild(null)`.execute(db);
  await sql`alter table funnel_positions alter column entry_day drop default`.execute(db);
  await sql`alter table funnel_stays alter column entry_day drop default`.execute(db);
}

export async function down(): Promise<void> {
  // The kept tables are rebuilt from the events either way (funnel_rebuild); a rollback restores a
  // backup taken before this migration, as for 0017.
  throw new Error('0020-funnel-entry-day cannot be undone; restore a backup taken before it');
}
