// A journey's payment facts: what a credit is judged against, read under the journey's lock (the
// money received so far, the captured commitment and its currency (the journey row's captured
// data, which leaves out what an undo reversed: migration 0029), the step the investor
// stands at, the deal's currency), and the value date of the latest money received (a booking's
// settlement). Amounts are read as decimal text.
import { type Kysely, sql } from 'kysely';
import type { StepType } from '../domain/workflow.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

export interface JourneyPaymentFacts {
  currentStepId: string | null;
  /** The type of that step (read with the batch's facts only; undefined elsewhere). */
  currentStepType?: StepType | null;
  received: string;
  commitment: string | null;
  commitmentCurrency: string | null;
}

/**
 * Locks the journey (FOR UPDATE, the same lock a move takes, so lines of one investor are judged one
 * at a time across imports) and reads what was received and the latest captured commitment and
 * currency. Undefined when there is no journey.
 */
export async function lockJourneyPaymentFacts(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  /** The captured fields to read; without them the journey is only locked (commitment and currency null). */
  fields?: { commitment: string; currency: string | null },
): Promise<JourneyPaymentFacts | undefined> {
  const { rows } = await sql<{ current_step_id: string; event_count: number; received: string; commitment: string | null; currency: string | null }>`
    select j.current_step_id, j.event_count,
      (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received,
      j.captured ->> ${fields?.commitment ?? null}::text as commitment,
      j.captured ->> ${fields?.currency ?? null}::text as currency
    from journeys j where j.deal_id = ${key.dealId} and j.investor_user_id = ${key.investorUserId} and j.event_count > 0
    for update of j`.execute(db);
  const row = rows[0];
  return row && { currentStepId: row.current_step_id, received: row.received, commitment: row.commitment, commitmentCurrency: row.currency };
}

/** One investor's credits to judge: which lines, and which captured fields hold the commitment and its currency. */
export interface JourneyCredits {
  dealId: string;
  investorUserId: string;
  lineIds: readonly string[];
  fields: { commitment: string; currency: string | null };
}

/**
 * For each journey, in one statement: locks it (FOR UPDATE, as lockJourneyPaymentFacts, in one
 * order: deal, investor, so two batches never wait on each other), reads its payment facts, then
 * locks its lines among `lineIds` that still wait for matching and returns their ids, in statement
 * order (the caller has the lines). A journey's facts are undefined when it has no events. Keyed
 * by `journeyKey`.
 */
export async function lockJourneyCredits(
  db: Kysely<DB>,
  journeys: readonly JourneyCredits[],
  /**
   * The rest of the transaction runs its prepared statements on generic plans (plan_cache_mode, set
   * locally): see the caller for why.
   */
  options: { genericPlans?: boolean } = {},
): Promise<Map<string, { facts: JourneyPaymentFacts | undefined; lineIds: string[] }>> {
  const result = new Map(journeys.map((j) => [journeyKey(j), { facts: undefined as JourneyPaymentFacts | undefined, lineIds: [] as string[] }]));
  if (journeys.length === 0) return result;
  const col = <T>(f: (j: JourneyCredits) => T) => journeys.map(f);
  type Row = {
    id: string | null;
    deal_id: string | null;
    investor_user_id: string | null;
    journey_deal_id: string | null;
    journey_investor_user_id: string | null;
    current_step_id: string | null;
    current_step_type: string | null;
    received: string | null;
    commitment: string | null;
    commitment_currency: string | null;
  };
  // The journeys are locked first: `l` waits for the count of `j` (an init plan), so a batch takes
  // its locks in the order a move does (journey, then its lines). A journey without pending lines
  // comes with null line columns; a line whose journey has no events with null facts.
  const { rows } = await sql<Row>`${prepared('journey-credits')}
    with j as (
      select j.deal_id, j.investor_user_id, j.current_step_id,
        (select s.type from workflow_steps s where s.deal_id = j.deal_id and s.id = j.current_step_id) as current_step_type,
        (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received,
        j.captured ->> k.commitment as commitment,
        j.captured ->> k.currency as commitment_currency
      from unnest(${col((j) => j.dealId)}::text[], ${col((j) => j.investorUserId)}::text[], ${col((j) => j.fields.commitment)}::text[],
        ${col((j) => j.fields.currency)}::text[]) as k(deal_id, investor_user_id, commitment, currency)
      join journeys j on j.deal_id = k.deal_id and j.investor_user_id = k.investor_user_id and j.event_count > 0
      order by j.deal_id, j.investor_user_id
      for update of j
    ), l as (
      select id, deal_id, investor_user_id, seq from payment_lines
      where id = any(${journeys.flatMap((j) => j.lineIds)}::uuid[]) and status = 'pending' and (select count(*) from j) >= 0
      order by seq for update
    )
    select l.id, l.deal_id, l.investor_user_id, j.deal_id as journey_deal_id, j.investor_user_id as journey_investor_user_id, j.current_step_id, j.current_step_type,
      j.received, j.commitment, j.commitment_currency, ${options.genericPlans ? sql`set_config('plan_cache_mode', 'force_generic_plan', true)` : sql`null`} as plans
    from j full join l on l.deal_id = j.deal_id and l.investor_user_id = j.investor_user_id
    order by l.seq`.execute(db);
  for (const row of rows) {
    if (row.journey_deal_id !== null) {
      const facts = {
        currentStepId: row.current_step_id,
        currentStepType: row.current_step_type as StepType | null,
        received: row.received!,
        commitment: row.commitment,
        commitmentCurrency: row.commitment_currency,
      };
      result.get(journeyKey({ dealId: row.journey_deal_id, investorUserId: row.journey_investor_user_id! }))!.facts = facts;
    }
    if (row.id !== null) result.get(journeyKey({ dealId: row.deal_id!, investorUserId: row.investor_user_id! }))!.lineIds.push(row.id);
  }
  return result;
}

export const journeyKey = (j: { dealId: string; investorUserId: string }) => JSON.stringify([j.dealId, j.investorUserId]);

/** The deals' currencies (the commitment's currency when no currency field holds one). */
export async function dealCurrencies(db: Kysely<DB>, dealIds: readonly string[]): Promise<Map<string, string | null>> {
  if (dealIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; currency: string | null }>`select id, currency from deals where id = any(${[...dealIds]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.id, r.currency]));
}

/** The value date of the latest money allocated to a journey (the settlement of its booking). */
export async function latestPaymentValueDate(db: Kysely<DB>, dealId: string, investorUserId: string): Promise<string | null> {
  const { rows } = await sql<{ value_date: string | null }>`
    select value_date::text as value_date from payment_allocations where deal_id = ${dealId} and investor_user_id = ${investorUserId}
      and amount > 0 and value_date is not null order by seq desc limit 1`.execute(db);
  return rows[0]?.value_date ?? null;
}
