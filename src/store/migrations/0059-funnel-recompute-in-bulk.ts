// The funnel recomputed in bulk (docs/reference/funnel.md, "How it is kept"; docs/benchmarks.md,
// "The funnel's catch-up").
//
// funnel_rebuild (0017, 0020), which the catch-up of a long backlog runs per deal (0031), wrote the
// positions and the stays and left the sums to the triggers on funnel_positions and funnel_stays,
// written for the few journeys of an upkeep: each inserted stay probed the stays for the investor's
// first entry and first transition, with nested loops, once per class and once more for the cohort
// sums. It now writes a deal in one statement: the positions (each journey's last event from one
// read of the deal's events), the stays (a second read), and every sum with one GROUP BY from the
// rows just written; the flags are numbered among the deal's stays, as the delete triggers number
// them (a stay is its investor's first at its step, or the first of their transitions to its next
// step). The insert triggers on funnel_stays and funnel_positions are told
// to skip by the same setting that already skips the delete triggers during a rebuild
// (dealflow.funnel_rebuilding), as a WHEN of the trigger, so their functions are not even called.
// The kept rows are the ones the triggers wrote: the same keys, counts, sums and flags.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

/** The sums' insert triggers, skipped while a rebuild writes the sums itself. */
const inserts = [
  ['funnel_stays_insert', 'funnel_stays', 'funnel_stays_insert'],
  ['funnel_cohort_stays_insert', 'funnel_stays', 'funnel_cohort_stays_insert'],
  ['funnel_positions_insert', 'funnel_positions', 'funnel_positions_insert'],
  ['funnel_cohort_positions_insert', 'funnel_positions', 'funnel_cohort_positions_insert'],
] as const;

const tables = [
  'funnel_stays',
  'funnel_positions',
  'funnel_counts',
  'funnel_transitions',
  'funnel_money',
  'funnel_daily',
  'funnel_durations',
  'funnel_cohort_counts',
  'funnel_cohort_transitions',
  'funnel_cohort_money',
  'funnel_cohort_durations',
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [trigger, table, fn] of inserts) {
    await sql.raw(`drop trigger ${trigger} on ${table}`).execute(db);
    await sql
      .raw(`create trigger ${trigger} after insert on ${table} referencing new table as new_rows for each statement
        when (current_setting('dealflow.funnel_rebuilding', true) is distinct from 'on') execute function ${fn}()`)
      .execute(db);
  }

  // One deal's kept funnel from its events, into tables that hold nothing of it (funnel_rebuild
  // empties them first). Each CTE that writes is one statement's work; the rows written are read
  // back from RETURNING (a statement does not see its own writes in the tables).
  // - positions: as funnel_refresh_positions (0029) writes a new one: the last event's step and seq,
  //   the commitment and currency from the journey's captured data, the investor's classes now and
  //   the journey's entry day;
  // - stays: as 0020's rebuild, each step-changing event a stay left at the next one;
  // - flagged: a stay's slot, and whether it is the investor's first at its step and the first of
  //   their transitions from its step to its next one (0017's flaggedAmongThemselves);
  // - the sums: as the insert triggers of 0017 and 0020 add them for a statement's new rows, once
  //   per class ('' and each of the row's classes), the cohort sums once per span (1, 8, 64 days)
  //   and the cohort durations once per width (1, 32 buckets). Sums that per-key triggers add up
  //   in any order are the same when added at once: integers, and numeric sums (exact; the scale
  //   the largest of the amounts').
  await sql`create function funnel_recompute(deal text) returns void language plpgsql as $$
    begin
      with latest as (
        select distinct on (e.investor_user_id) e.investor_user_id, e.to_step_id, e.seq
        from workflow_events e where e.deal_id = deal order by e.investor_user_id, e.seq desc
      ), positions as (
        insert into funnel_positions (deal_id, investor_user_id, step_id, amount, currency, last_seq, classes, entry_day)
        select j.deal_id, j.investor_user_id, latest.to_step_id,
          case when a.v ~ '^[0-9]{1,30}(\\.[0-9]{1,12})?$' then a.v::numeric end,
          coalesce(case when c.v ~ '^[A-Z]{3}$' then c.v end, d.currency),
          latest.seq, coalesce(funnel_classes(inv.contact), '{}'), (j.started_at at time zone 'UTC')::date
        from journeys j
        join deals d on d.id = j.deal_id
        join latest on latest.investor_user_id = j.investor_user_id
        left join investors inv on inv.id = j.investor_user_id
        left join deal_payment_settings ps on ps.deal_id = j.deal_id
        cross join lateral (select j.captured ->> coalesce(ps.commitment_field_key, 'committed_amount') as v) a
        cross join lateral (select j.captured ->> (case when ps.deal_id is null then 'currency' else ps.currency_field_key end) as v) c
        where j.deal_id = deal and j.event_count > 0
        returning deal_id, investor_user_id, step_id, amount, currency, classes, entry_day
      ), stays as (
        insert into funnel_stays (deal_id, investor_user_id, seq, step_id, entered_at, left_at, next_step_id, classes, entry_day)
        select e.deal_id, e.investor_user_id, e.seq, e.to_step_id, e.created_at, lead(e.created_at) over w, lead(e.to_step_id) over w, p.classes, p.entry_day
        from workflow_events e join positions p on p.investor_user_id = e.investor_user_id
        where e.deal_id = deal and e.from_step_id is distinct from e.to_step_id
        window w as (partition by e.investor_user_id order by e.seq)
        returning investor_user_id, seq, step_id, entered_at, left_at, next_step_id, bucket, classes, entry_day
      ), flagged as materialized (
        select s.step_id, s.entered_at, s.left_at, s.next_step_id, s.bucket, s.classes, s.entry_day, funnel_slot(s.investor_user_id) as slot,
          s.seq = min(s.seq) over (partition by s.investor_user_id, s.step_id) as first_entry,
          s.next_step_id is not null and row_number() over (partition by s.investor_user_id, s.step_id, s.next_step_id order by s.seq) = 1 as first_transition
        from stays s
      ), classed as materialized (
        select n.*, k.class from flagged n cross join lateral unnest(array[''] || n.classes) as k(class)
      ), spans as (
        select g.span from (values (1), (8), (64)) as g(span)
      ), counts as (
        insert into funnel_counts (deal_id, class, step_id, slot, standing, entered, left_count)
        select deal, n.class, n.step_id, n.slot,
          count(*) filter (where n.left_at is null), count(*) filter (where n.first_entry), count(*) filter (where n.left_at is not null)
        from classed n group by 2, 3, 4
      ), daily as (
        insert into funnel_daily (deal_id, class, day, step_id, slot, entered, left_count)
        select deal, class, day, step_id, slot, sum(e)::int, sum(l)::int from (
          select n.class, (n.entered_at at time zone 'UTC')::date as day, n.step_id, n.slot, 1 as e, 0 as l from classed n
          union all
          select n.class, (n.left_at at time zone 'UTC')::date, n.step_id, n.slot, 0, 1 from classed n where n.left_at is not null) x
        group by 2, 3, 4, 5
      ), durations as (
        insert into funnel_durations (deal_id, class, step_id, bucket, slot, stays)
        select deal, n.class, n.step_id, n.bucket, n.slot, count(*) from classed n where n.left_at is not null group by 2, 3, 4, 5
      ), transitions as (
        insert into funnel_transitions (deal_id, class, from_step_id, to_step_id, slot, investors)
        select deal, n.class, n.step_id, n.next_step_id, n.slot, count(*) from classed n where n.first_transition group by 2, 3, 4, 5
      ), by_day as materialized (
        select n.class, n.entry_day, n.step_id,
          count(*) filter (where n.left_at is null) as standing, count(*) filter (where n.first_entry) as entered,
          count(*) filter (where n.left_at is not null) as left_count
        from classed n group by 1, 2, 3
      ), cohort_counts as (
        insert into funnel_cohort_counts (deal_id, class, span, first_day, step_id, standing, entered, left_count)
        select deal, b.class, g.span, b.entry_day - ((b.entry_day - date '1970-01-01') % g.span + g.span) % g.span, b.step_id,
          sum(b.standing)::int, sum(b.entered)::int, sum(b.left_count)::int
        from by_day b cross join spans g group by 2, 3, 4, 5
      ), cohort_durations as (
        insert into funnel_cohort_durations (deal_id, class, width, span, first_day, step_id, bucket, stays)
        select deal, b.class, w.width, g.span, b.entry_day - ((b.entry_day - date '1970-01-01') % g.span + g.span) % g.span, b.step_id,
          b.bucket / w.width * w.width, sum(b.stays)::int
        from (select n.class, n.entry_day, n.step_id, n.bucket, count(*) as stays from classed n where n.left_at is not null group by 1, 2, 3, 4) b
        cross join spans g cross join (values (1), (32)) as w(width)
        group by 2, 3, 4, 5, 6, 7
      ), cohort_transitions as (
        insert into funnel_cohort_transitions (deal_id, class, span, first_day, from_step_id, to_step_id, investors)
        select deal, b.class, g.span, b.entry_day - ((b.entry_day - date '1970-01-01') % g.span + g.span) % g.span, b.step_id, b.next_step_id,
          sum(b.investors)::int
        from (select n.class, n.entry_day, n.step_id, n.next_step_id, count(*) as investors from classed n where n.first_transition group by 1, 2, 3, 4) b
        cross join spans g group by 2, 3, 4, 5, 6
      ), money as (
        insert into funnel_money (deal_id, class, step_id, currency, slot, total, investors)
        select deal, k.class, p.step_id, p.currency, funnel_slot(p.investor_user_id), sum(p.amount), count(*)::int
        from positions p cross join lateral unnest(array[''] || p.classes) as k(class)
        where p.amount is not null and p.currency is not null group by 2, 3, 4, 5
      )
      insert into funnel_cohort_money (deal_id, class, span, first_day, step_id, currency, total, investors)
      select deal, k.class, g.span, p.entry_day - ((p.entry_day - date '1970-01-01') % g.span + g.span) % g.span, p.step_id, p.currency,
        sum(p.amount), count(*)::int
      from positions p cross join lateral unnest(array[''] || p.classes) as k(class) cross join spans g
      where p.amount is not null and p.currency is not null group by 2, 3, 4, 5, 6;
    end $$`.execute(db);

  // Everything again from the events, for one deal or all (null), as before: the deal's kept rows
  // and noted journeys deleted (their triggers skipped), then each deal recomputed.
  await sql`create or replace function funnel_rebuild(deal text) returns void language plpgsql as $$
    declare d text;
    begin
      perform set_config('dealflow.funnel_rebuilding', 'on', true);
      delete from funnel_pending where deal is null or deal_id = deal;
      ${sql.raw(tables.map((t) => `delete from ${t} where deal is null or deal_id = deal;`).join('\n      '))}
      for d in select distinct j.deal_id from journeys j where (deal is null or j.deal_id = deal) and j.event_count > 0 loop
        perform funnel_recompute(d);
      end loop;
      perform set_config('dealflow.funnel_rebuilding', 'off', true);
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0059-funnel-recompute-in-bulk cannot be undone: restore a backup taken before it');
}
