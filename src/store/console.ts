// Read models of the console: the investor directory as a searchable page, every pending
// edit request across deals (oldest first, with the values it would replace), and people's names.
import { sql, type Kysely } from 'kysely';
import type { PaidState, RowSort } from '../domain/console.ts';
import type { DB } from './schema.ts';
import { asAmount, type BoardCard, cardValues, type CardRow, containsPattern, dealKeys, matches, type Money, toCard, toMoney } from './console-board.ts';

export interface DirectoryEntry {
  id: string;
  fullName: string;
  email: string | null;
  status: string;
  kycCheckLevel: number | null;
  classifications: string[];
  deals: number;
  updatedAt: string;
}

/** A page of the directory ordered by full name then id; `query` matches name, e-mail or id. */
export async function listDirectory(db: Kysely<DB>, options: { query: string | undefined; limit: number; offset: number }) {
  const { rows } = await sql<{
    id: string;
    full_name: string;
    email: string | null;
    status: string;
    kyc_check_level: number | null;
    classifications: unknown;
    deals: string;
    updated_at: Date;
    total: string;
  }>`
    with page as (
      select i.id, i.full_name, i.email, i.status, i.kyc_check_level, i.contact -> 'classifications' as classifications, i.updated_at,
             count(*) over () as total
      from investors i
      ${options.query ? sql`where i.full_name ilike ${containsPattern(options.query)} or i.email ilike ${containsPattern(options.query)} or i.id ilike ${containsPattern(options.query)}` : sql``}
      order by i.full_name, i.id
      limit ${options.limit} offset ${options.offset}
    )
    select p.*, (select count(*) from journeys j where j.investor_user_id = p.id) as deals
    from page p
    order by p.full_name, p.id`.execute(db);
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && options.offset > 0) {
    const { rows: counted } = await sql<{ total: string }>`
      select count(*) as total from investors i
      ${options.query ? sql`where i.full_name ilike ${containsPattern(options.query)} or i.email ilike ${containsPattern(options.query)} or i.id ilike ${containsPattern(options.query)}` : sql``}`.execute(
      db,
    );
    total = Number(counted[0]?.total ?? 0);
  }
  const entries: DirectoryEntry[] = rows.map((r) => ({
    id: r.id,
    fullName: r.full_name,
    email: r.email,
    status: r.status,
    kycCheckLevel: r.kyc_check_level,
    classifications: Array.isArray(r.classifications)
      ? r.classifications.map((c: { name?: unknown; investorClass?: unknown }) => String(c.name ?? c.investorClass ?? ''))
      : [],
    deals: Number(r.deals),
    updatedAt: r.updated_at.toISOString(),
  }));
  return { total, entries };
}

export interface PendingRequest {
  id: string;
  dealId: string;
  dealName: string;
  investorUserId: string;
  investorFullName: string;
  workflowEventId: string;
  type: string;
  reason: string;
  newData: Record<string, string> | null;
  createdByUserId: string;
  dateRecieved: string;
  event: { fromStepId: string | null; toStepId: string; toStepLabel: string; data: Record<string, string> };
}

/** Pending edit requests, oldest first (arrival order), optionally of one deal. */
export async function listPendingRequests(db: Kysely<DB>, options: { dealId: string | undefined; limit: number; offset: number }) {
  const base = db
    .selectFrom('edit_requests as r')
    .innerJoin('deals as d', 'd.id', 'r.deal_id')
    .innerJoin('investors as i', 'i.id', 'r.investor_user_id')
    .innerJoin('workflow_events as e', 'e.id', 'r.workflow_event_id')
    .innerJoin('workflow_steps as s', 's.id', 'e.to_step_id')
    .where('r.status', '=', 'pending')
    .$if(options.dealId !== undefined, (q) => q.where('r.deal_id', '=', options.dealId!));
  const [rows, counted] = await Promise.all([
    base
      .select([
        'r.id',
        'r.deal_id',
        'd.name as deal_name',
        'r.investor_user_id',
        'i.full_name',
        'r.workflow_event_id',
        'r.type',
        'r.reason',
        'r.new_data',
        'r.created_by_user_id',
        'r.created_at',
        'e.from_step_id',
        'e.to_step_id',
        's.label as step_label',
        'e.data',
      ])
      .orderBy('r.seq')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirst(),
  ]);
  const requests: PendingRequest[] = rows.map((r) => ({
    id: r.id,
    dealId: r.deal_id,
    dealName: r.deal_name,
    investorUserId: r.investor_user_id,
    investorFullName: r.full_name,
    workflowEventId: r.workflow_event_id,
    type: r.type,
    reason: r.reason,
    newData: (r.new_data as Record<string, string> | null) ?? null,
    createdByUserId: r.created_by_user_id,
    dateRecieved: r.created_at.toISOString(),
    event: { fromStepId: r.from_step_id, toStepId: r.to_step_id, toStepLabel: r.step_label, data: r.data as Record<string, string> },
  }));
  return { total: Number(counted?.total ?? 0), requests };
}

/** Names of the staff people and API keys whose ids writes record (a person's id, a key's); other ids are left out. */
export async function actorNames(db: Kysely<DB>, ids: string[]): Promise<{ id: string; name: string }[]> {
  // Both are UUIDs; anything else (a JWT subject, an investor id) cannot be one, and would not cast.
  const uuids = ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
  if (uuids.length === 0) return [];
  return db
    .selectFrom('staff_people')
    .select(['id', 'name'])
    .where('id', 'in', uuids)
    .unionAll(db.selectFrom('api_tokens').select(['id', 'name']).where('id', 'in', uuids))
    .orderBy('id')
    .execute();
}

export { type RowSort, rowSorts } from '../domain/console.ts';

export interface RowFilters {
  stepId?: string | undefined;
  query?: string | undefined;
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  currency?: string | undefined;
  /** At the step since at or before this instant (days at step ≥ n). */
  enteredAtOrBefore?: Date | undefined;
  /** At the step since after this instant (days at step ≤ n). */
  enteredAfter?: Date | undefined;
  minKycLevel?: number | undefined;
  classification?: string | undefined;
  pending?: boolean | undefined;
  paid?: PaidState | undefined;
}

export interface DealRow extends BoardCard {
  kycCheckLevel: number | null;
  classifications: string[];
  pendingEditRequests: number;
  paymentReference: string;
}

/**
 * A deal's investors with their position, committed amount, KYC level, classes and pending edit
 * requests, filtered and sorted, a page at a time, with the filtered count and committed totals.
 */
export async function dealRows(
  db: Kysely<DB>,
  dealId: string,
  filters: RowFilters,
  options: { sort: RowSort; descending: boolean; limit: number; offset: number },
): Promise<{ total: number; committed: Money[]; rows: DealRow[] } | undefined> {
  const keys = await dealKeys(db, dealId);
  if (!keys) return undefined;
  const where = [
    filters.stepId !== undefined ? sql`and j.current_step_id = ${filters.stepId}` : sql``,
    filters.enteredAtOrBefore ? sql`and j.moved_at <= ${filters.enteredAtOrBefore}` : sql``,
    filters.enteredAfter ? sql`and j.moved_at > ${filters.enteredAfter}` : sql``,
    filters.minKycLevel !== undefined ? sql`and i.kyc_check_level >= ${filters.minKycLevel}` : sql``,
    filters.classification
      ? sql`and exists (select 1 from jsonb_array_elements(case when jsonb_typeof(i.contact -> 'classifications') = 'array' then i.contact -> 'classifications' else '[]'::jsonb end) c
                        where lower(c ->> 'name') = lower(${filters.classification}) or lower(c ->> 'investorClass') = lower(${filters.classification}))`
      : sql``,
  ];
  const outer = [
    filters.minAmount !== undefined ? sql`and ${asAmount(sql.ref('amount'))} >= ${filters.minAmount}::numeric` : sql``,
    filters.maxAmount !== undefined ? sql`and ${asAmount(sql.ref('amount'))} <= ${filters.maxAmount}::numeric` : sql``,
    filters.currency ? sql`and currency = ${filters.currency}` : sql``,
    filters.pending === true ? sql`and pending > 0` : filters.pending === false ? sql`and pending = 0` : sql``,
    filters.paid === 'none'
      ? sql`and coalesce(received::numeric, 0) = 0`
      : filters.paid === 'partly'
        ? sql`and received::numeric > 0 and ${asAmount(sql.ref('amount'))} > received::numeric`
        : filters.paid === 'full'
          ? sql`and received::numeric > 0 and received::numeric >= ${asAmount(sql.ref('amount'))}`
          : sql``,
  ];
  const direction = options.descending ? sql`desc` : sql`asc`;
  const order =
    options.sort === 'amount'
      ? sql`${asAmount(sql.ref('amount'))} ${direction} nulls last, full_name, investor_user_id`
      : options.sort === 'days'
        ? // More days at the step is an earlier entry.
          sql`moved_at ${options.descending ? sql`asc` : sql`desc`}, full_name, investor_user_id`
        : sql`full_name ${direction}, investor_user_id ${direction}`;
  const { rows } = await sql<CardRow & { kyc_check_level: number | null; classifications: unknown; pending: string; total: string; payment_reference: string }>`
    with base as (
      select j.investor_user_id, j.current_step_id, j.moved_at, j.payment_reference, i.full_name, i.email, i.kyc_check_level,
             i.contact -> 'classifications' as classifications, j.deal_id,
             ${cardValues(keys)},
             (select count(*) from edit_requests r
               where r.deal_id = j.deal_id and r.investor_user_id = j.investor_user_id and r.status = 'pending') as pending
      from journeys j
      join investors i on i.id = j.investor_user_id
      where j.deal_id = ${dealId} ${matches(filters.query || undefined)} ${sql.join(where, sql` `)}
    ),
    filtered as (select * from base where true ${sql.join(outer, sql` `)})
    select *, count(*) over () as total from filtered
    order by ${order}
    limit ${options.limit} offset ${options.offset}`.execute(db);
  const { rows: sums } = await sql<{ currency: string | null; amount: string | null; total: string }>`
    with base as (
      select i.full_name, ${cardValues(keys)},
             (select count(*) from edit_requests r
               where r.deal_id = j.deal_id and r.investor_user_id = j.investor_user_id and r.status = 'pending') as pending
      from journeys j
      join investors i on i.id = j.investor_user_id
      where j.deal_id = ${dealId} ${matches(filters.query || undefined)} ${sql.join(where, sql` `)}
    ),
    filtered as (select * from base where true ${sql.join(outer, sql` `)})
    select currency, sum(${asAmount(sql.ref('amount'))}) as amount, count(*) as total from filtered group by currency`.execute(db);
  return {
    total: sums.reduce((n, s) => n + Number(s.total), 0),
    committed: toMoney(sums),
    rows: rows.map((r) => ({
      ...toCard(r),
      kycCheckLevel: r.kyc_check_level,
      classifications: Array.isArray(r.classifications)
        ? r.classifications.map((c: { name?: unknown; investorClass?: unknown }) => String(c.name ?? c.investorClass ?? ''))
        : [],
      pendingEditRequests: Number(r.pending),
      paymentReference: r.payment_reference,
    })),
  };
}
