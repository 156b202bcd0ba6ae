// The funnel's reads (migrations 0015, 0017 and 0020 keep what they read). Without filters, or with
// a classification alone, every figure comes from the kept sums (O(steps) rows, kept per class too)
// and the percentiles from the index of stay durations (an index range skipped to the rank, per
// step). With a filter on entry into the deal, from the same sums kept per cohort (the journey's
// entry day, and blocks of 8 and 64 days): a range of days reads O(steps × keys) rows, and each
// percentile a few dozen rows of duration counts and an index range of one bucket's stays.
// `recountFunnel` computes the same figures from the stays (linear in the deal's stays), for tests.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { FunnelFilter } from '../domain/funnel.ts';
import type { DB } from './schema.ts';

export type { FunnelFilter } from '../domain/funnel.ts';

export interface FunnelStepRow {
  stepId: string;
  standing: number;
  entered: number;
  left: number;
  medianMs: number | null;
  p90Ms: number | null;
}

export interface FunnelRows {
  steps: FunnelStepRow[];
  transitions: { fromStepId: string; toStepId: string; investors: number }[];
  money: { stepId: string; currency: string; total: string; investors: number }[];
  pending: { stepId: string; requests: number }[];
}

/** Whether the filter is on entry into the deal (the cohort sums); a classification alone reads 0017's sums. */
export const isFiltered = (f: FunnelFilter) => f.enteredFrom !== undefined || f.enteredTo !== undefined;

/** The kept sums' class key: '' for every investor. */
const classOf = (f: FunnelFilter) => f.classification ?? '';

/** The journeys a filter keeps, as a subquery of (investor_user_id). */
function matching(dealId: string, f: FunnelFilter): RawBuilder<unknown> {
  const conditions = [sql`j.deal_id = ${dealId}`, sql`j.event_count > 0`];
  if (f.enteredFrom !== undefined) conditions.push(sql`j.started_at >= ${f.enteredFrom}::date::timestamp at time zone 'UTC'`);
  if (f.enteredTo !== undefined) conditions.push(sql`j.started_at < (${f.enteredTo}::date + 1)::timestamp at time zone 'UTC'`);
  if (f.classification !== undefined) {
    conditions.push(sql`exists (select 1 from investors i where i.id = j.investor_user_id
      and i.contact -> 'classifications' @> jsonb_build_array(jsonb_build_object('investorClass', ${f.classification}::text)))`);
  }
  return sql`(select j.investor_user_id from journeys j where ${sql.join(conditions, sql` and `)})`;
}

const int = (v: unknown) => Number(v);
const intOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function readFunnel(db: Kysely<DB>, dealId: string, filter: FunnelFilter): Promise<FunnelRows> {
  return isFiltered(filter) ? readCohorts(db, dealId, filter) : readKept(db, dealId, classOf(filter));
}

const DAY_MS = 86_400_000;
/** Lengths in days of the blocks the cohort sums are kept for (migration 0020), longest first. */
const SPANS = [64, 8, 1] as const;
const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
const dayText = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * The cohort keys whose sums add up to the days `from` … `to` (inclusive, YYYY-MM-DD): from the
 * first day on, each time the longest block (64, 8 or 1 days, aligned on 1970-01-01) that starts
 * there and ends within the range. At most 7 days and 7 blocks of 8 at each end, and the blocks of
 * 64 between.
 */
export function cohortKeys(from: string, to: string): { span: number; firstDay: string }[] {
  const keys = [];
  const end = dayNumber(to);
  for (let day = dayNumber(from); day <= end; ) {
    const span = SPANS.find((s) => ((day % s) + s) % s === 0 && day + s - 1 <= end)!;
    keys.push({ span, firstDay: dayText(day) });
    day += span;
  }
  return keys;
}

async function readCohorts(db: Kysely<DB>, dealId: string, filter: FunnelFilter): Promise<FunnelRows> {
  const cls = classOf(filter);
  // The range within the deal's entry days (an open end, or one far out, reads only days that have
  // journeys); kept rows at zero may widen it a little, never narrow it.
  const { rows: bounds } = await sql<{ first: string | null; last: string | null }>`
    select (select min(first_day) from funnel_cohort_counts where deal_id = ${dealId} and class = ${cls} and span = 1)::text as first,
      (select max(first_day) from funnel_cohort_counts where deal_id = ${dealId} and class = ${cls} and span = 1)::text as last`.execute(db);
  const { first, last } = bounds[0]!;
  const from = filter.enteredFrom !== undefined && first !== null && filter.enteredFrom > first ? filter.enteredFrom : first;
  const to = filter.enteredTo !== undefined && last !== null && filter.enteredTo < last ? filter.enteredTo : last;
  if (from === null || to === null || from > to) return toRows([], [], [], []);
  const keys = cohortKeys(from, to);
  const cohorts = sql`unnest(${keys.map((k) => k.span)}::smallint[], ${keys.map((k) => k.firstDay)}::date[]) as k(span, first_day)`;
  const of = (table: string, alias: string) =>
    sql`${sql.raw(table)} ${sql.raw(alias)} on ${sql.raw(alias)}.deal_id = ${dealId} and ${sql.raw(alias)}.class = ${cls}
      and ${sql.raw(alias)}.span = k.span and ${sql.raw(alias)}.first_day = k.first_day`;
  const steps = await sql<Record<string, unknown>>`
    select c.step_id, sum(c.standing) as standing, sum(c.entered) as entered, sum(c.left_count) as left_count
    from ${cohorts} join ${of('funnel_cohort_counts', 'c')} group by c.step_id having sum(c.entered) > 0 or sum(c.standing) > 0`.execute(db);
  // Nearest rank, as readKept, in three steps: the group of 32 buckets holding rank k (the wide
  // counts), the bucket within it (the narrow counts of that group), the value within the bucket
  // (the stays' duration index, the cohort's days picked from its entries).
  const percentiles = await sql<Record<string, unknown>>`
    with counts as (
      select c.step_id, sum(c.left_count)::int as n from ${cohorts} join ${of('funnel_cohort_counts', 'c')}
      group by c.step_id having sum(c.left_count) > 0
    ), groups as (
      select d.step_id, d.bucket, sum(d.stays)::int as stays, sum(sum(d.stays)) over (partition by d.step_id order by d.bucket)::int as upto
      from ${cohorts} join ${of('funnel_cohort_durations', 'd')} and d.width = 32
      group by d.step_id, d.bucket having sum(d.stays) > 0
    ), ranks as (
      select c.step_id, p.p, greatest(ceil(c.n * p.p)::int, 1) as k from counts c cross join (values (0.5), (0.9)) as p(p)
    ), in_group as (
      select r.step_id, r.p, g.bucket as first_bucket, r.k - (g.upto - g.stays) as k
      from ranks r cross join lateral (select bucket, upto, stays from groups g where g.step_id = r.step_id and g.upto >= r.k order by bucket limit 1) g
    ), picked as (
      select q.step_id, q.p, b.bucket, q.k - (b.upto - b.stays) - 1 as within
      from in_group q cross join lateral (select bucket, upto, stays from (
          select d.bucket, sum(d.stays)::int as stays, sum(sum(d.stays)) over (order by d.bucket)::int as upto
          from ${cohorts} join ${of('funnel_cohort_durations', 'd')} and d.width = 1
            and d.step_id = q.step_id and d.bucket >= q.first_bucket and d.bucket < q.first_bucket + 32
          group by d.bucket having sum(d.stays) > 0) b
        where b.upto >= q.k order by b.bucket limit 1) b
    )
    select step_id, p::text as p, (select s.duration_ms from funnel_stays s
        where s.deal_id = ${dealId} and s.step_id = picked.step_id and s.left_at is not null and s.bucket = picked.bucket
          and s.entry_day between ${from}::date and ${to}::date ${cls === '' ? sql`` : sql`and s.classes @> array[${cls}::text]`}
        order by s.duration_ms offset picked.within limit 1) as ms
    from picked`.execute(db);
  const at = (stepId: unknown, p: string) => percentiles.rows.find((r) => r.step_id === stepId && Number(r.p) === Number(p))?.ms ?? null;
  const transitions = await sql<Record<string, unknown>>`
    select t.from_step_id, t.to_step_id, sum(t.investors) as n from ${cohorts} join ${of('funnel_cohort_transitions', 't')}
    group by 1, 2 having sum(t.investors) > 0`.execute(db);
  const money = await sql<Record<string, unknown>>`
    select m.step_id, m.currency, sum(m.total)::text as total, sum(m.investors) as n from ${cohorts} join ${of('funnel_cohort_money', 'm')}
    group by 1, 2 having sum(m.investors) > 0`.execute(db);
  const pending = await sql<Record<string, unknown>>`
    select p.step_id, count(*) as n from edit_requests r join funnel_positions p on p.deal_id = r.deal_id and p.investor_user_id = r.investor_user_id
    where r.deal_id = ${dealId} and r.status = 'pending' and p.entry_day between ${from}::date and ${to}::date
      ${cls === '' ? sql`` : sql`and p.classes @> array[${cls}::text]`} group by 1`.execute(db);
  const withPercentiles = steps.rows.map((r) => ({ ...r, median_ms: at(r.step_id, '0.5'), p90_ms: at(r.step_id, '0.9') }));
  return toRows(withPercentiles, transitions.rows, money.rows, pending.rows);
}

async function readKept(db: Kysely<DB>, dealId: string, cls: string): Promise<FunnelRows> {
  // A class's stays within a duration bucket (for the exact percentile): those counted under the
  // class (the classes a stay carries are in the duration index); '' is every stay.
  const ofClass = cls === '' ? sql`` : sql`and s.classes @> array[${cls}::text]`;
  const steps = await sql<Record<string, unknown>>`
    select step_id, sum(standing) as standing, sum(entered) as entered, sum(left_count) as left_count
    from funnel_counts where deal_id = ${dealId} and class = ${cls} group by step_id having sum(entered) > 0 or sum(standing) > 0`.execute(db);
  // Nearest rank (as percentile_disc): the value at rank k = ceil(p × n) of the step's n left stays.
  // The kept counts per duration bucket say which bucket holds rank k and how far into it; the index
  // on (deal, step, bucket, duration) gives the exact value there.
  const percentiles = await sql<Record<string, unknown>>`
    with counts as (
      select step_id, sum(left_count)::int as n from funnel_counts where deal_id = ${dealId} and class = ${cls} group by step_id having sum(left_count) > 0
    ), buckets as (
      select step_id, bucket, sum(stays)::int as stays, sum(sum(stays)) over (partition by step_id order by bucket)::int as upto
      from funnel_durations where deal_id = ${dealId} and class = ${cls} group by step_id, bucket having sum(stays) > 0
    ), ranks as (
      select c.step_id, p.p, greatest(ceil(c.n * p.p)::int, 1) as k from counts c cross join (values (0.5), (0.9)) as p(p)
    ), picked as (
      select r.step_id, r.p, b.bucket, r.k - (b.upto - b.stays) - 1 as within
      from ranks r cross join lateral (select bucket, upto, stays from buckets b where b.step_id = r.step_id and b.upto >= r.k order by bucket limit 1) b
    )
    select step_id, p::text as p, (select s.duration_ms from funnel_stays s
        where s.deal_id = ${dealId} and s.step_id = picked.step_id and s.left_at is not null and s.bucket = picked.bucket ${ofClass}
        order by s.duration_ms offset picked.within limit 1) as ms
    from picked`.execute(db);
  const at = (stepId: unknown, p: string) => percentiles.rows.find((r) => r.step_id === stepId && Number(r.p) === Number(p))?.ms ?? null;
  const transitions = await sql<Record<string, unknown>>`
    select from_step_id, to_step_id, sum(investors) as n from funnel_transitions where deal_id = ${dealId} and class = ${cls} group by 1, 2 having sum(investors) > 0`.execute(
    db,
  );
  const money = await sql<Record<string, unknown>>`
    select step_id, currency, sum(total)::text as total, sum(investors) as n from funnel_money where deal_id = ${dealId} and class = ${cls}
    group by 1, 2 having sum(investors) > 0`.execute(db);
  const pending = await sql<Record<string, unknown>>`
    select p.step_id, count(*) as n from edit_requests r join funnel_positions p on p.deal_id = r.deal_id and p.investor_user_id = r.investor_user_id
    where r.deal_id = ${dealId} and r.status = 'pending' ${cls === '' ? sql`` : sql`and p.classes @> array[${cls}::text]`} group by 1`.execute(db);
  const withPercentiles = steps.rows.map((r) => ({ ...r, median_ms: at(r.step_id, '0.5'), p90_ms: at(r.step_id, '0.9') }));
  return toRows(withPercentiles, transitions.rows, money.rows, pending.rows);
}

/**
 * The funnel's figures computed from the stays of the journeys the filter keeps (any filter, none
 * too): what the kept sums must equal. Linear in the deal's stays; the tests' reference.
 */
export async function recountFunnel(db: Kysely<DB>, dealId: string, filter: FunnelFilter): Promise<FunnelRows> {
  // One statement: the matching journeys and their stays are read once (materialized), then grouped.
  const agg = (query: RawBuilder<unknown>) => sql`(select coalesce(json_agg(x), '[]'::json) from (${query}) x)`;
  const { rows } = await sql<{
    steps: Record<string, unknown>[];
    transitions: Record<string, unknown>[];
    money: Record<string, unknown>[];
    pending: Record<string, unknown>[];
  }>`
    with m as materialized ${matching(dealId, filter)},
    s as materialized (select s.step_id, s.investor_user_id, s.left_at, s.next_step_id, s.duration_ms from funnel_stays s
      where s.deal_id = ${dealId} and s.investor_user_id in (select investor_user_id from m))
    select
      ${agg(sql`select step_id, count(*) filter (where left_at is null) as standing, count(distinct investor_user_id) as entered,
          count(*) filter (where left_at is not null) as left_count,
          percentile_disc(0.5) within group (order by duration_ms) filter (where left_at is not null) as median_ms,
          percentile_disc(0.9) within group (order by duration_ms) filter (where left_at is not null) as p90_ms
        from s group by step_id`)} as steps,
      ${agg(sql`select step_id as from_step_id, next_step_id as to_step_id, count(distinct investor_user_id) as n
        from s where next_step_id is not null group by 1, 2`)} as transitions,
      ${agg(sql`select step_id, currency, sum(amount)::text as total, count(*) as n from funnel_positions p
        where p.deal_id = ${dealId} and p.investor_user_id in (select investor_user_id from m) and amount is not null and currency is not null group by 1, 2`)} as money,
      ${agg(sql`select p.step_id, count(*) as n from edit_requests r join funnel_positions p on p.deal_id = r.deal_id and p.investor_user_id = r.investor_user_id
        where r.deal_id = ${dealId} and r.status = 'pending' and r.investor_user_id in (select investor_user_id from m) group by 1`)} as pending`.execute(db);
  const row = rows[0]!;
  return toRows(row.steps, row.transitions, row.money, row.pending);
}

function toRows(
  steps: Record<string, unknown>[],
  transitions: Record<string, unknown>[],
  money: Record<string, unknown>[],
  pending: Record<string, unknown>[],
): FunnelRows {
  return {
    steps: steps.map((r) => ({
      stepId: String(r.step_id),
      standing: int(r.standing),
      entered: int(r.entered),
      left: int(r.left_count),
      medianMs: intOrNull(r.median_ms),
      p90Ms: intOrNull(r.p90_ms),
    })),
    transitions: transitions.map((r) => ({ fromStepId: String(r.from_step_id), toStepId: String(r.to_step_id), investors: int(r.n) })),
    money: money.map((r) => ({ stepId: String(r.step_id), currency: String(r.currency), total: String(r.total), investors: int(r.n) })),
    pending: pending.map((r) => ({ stepId: String(r.step_id), requests: int(r.n) })),
  };
}

/** Per step and day from `from` on: stays entered and left that day (kept, or from the filtered stays). */
export async function readFunnelDays(
  db: Kysely<DB>,
  dealId: string,
  from: string,
  filter: FunnelFilter,
): Promise<{ stepId: string; day: string; entered: number; left: number }[]> {
  const result = isFiltered(filter)
    ? await sql<Record<string, unknown>>`
        select step_id, day::text as day, sum(e)::int as entered, sum(l)::int as left_count from (
          select step_id, (entered_at at time zone 'UTC')::date as day, 1 as e, 0 as l from funnel_stays
          where deal_id = ${dealId} and investor_user_id in ${matching(dealId, filter)}
          union all
          select step_id, (left_at at time zone 'UTC')::date, 0, 1 from funnel_stays
          where deal_id = ${dealId} and left_at is not null and investor_user_id in ${matching(dealId, filter)}) d
        where day >= ${from}::date group by 1, 2 order by 2`.execute(db)
    : await sql<Record<string, unknown>>`
        select step_id, day::text as day, sum(entered)::int as entered, sum(left_count)::int as left_count from funnel_daily
        where deal_id = ${dealId} and class = ${classOf(filter)} and day >= ${from}::date group by 1, 2 having sum(entered) <> 0 or sum(left_count) <> 0 order by 2`.execute(
        db,
      );
  return result.rows.map((r) => ({ stepId: String(r.step_id), day: String(r.day), entered: int(r.entered), left: int(r.left_count) }));
}

/** Labels and types of steps that are not (or no longer) in the current version but have figures. */
export async function findStepsByIds(db: Kysely<DB>, stepIds: string[]): Promise<{ id: string; label: string; type: string }[]> {
  if (stepIds.length === 0) return [];
  return db.selectFrom('workflow_steps').select(['id', 'label', 'type']).where('id', 'in', stepIds).orderBy('position').execute();
}
