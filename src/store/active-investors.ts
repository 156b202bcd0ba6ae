// Active investors with their deal counts (listActiveInvestors, all-transactions): investors whose contact
// status is active and who have at least one journey, ordered by full name then id.
//
// Reads investor_deal_counts (migration 0014), kept by triggers in every transaction that writes a
// journey: a page without a search is one range of its partial index (name, id) and the total is
// the kept number of listed investors; with a search the trigram index finds the listed investors
// that match, they are counted (no sort), and only the page's keys go through a top-N sort. The
// page's directory rows are then read by primary key, 20 at a time whatever the directory holds.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import { toInvestor } from './investors.ts';
import { likeContaining } from './journeys.ts';
import type { DB } from './schema.ts';

export interface ActiveInvestorEntry {
  investor: Investor;
  dealsCompletedCount: string;
  dealsInProgressCount: string;
  dealsTotal: string;
}

interface Row {
  listed: string;
  id: string | null;
  remote_id: string;
  data_source: string;
  team_user_id: string | null;
  kyc_check_level: number | null;
  contact: unknown;
  completed: number;
  in_progress: number;
  deals_total: number;
}

/** One page and the number of matches, in one statement. */
export async function listActiveInvestors(
  db: Kysely<DB>,
  options: { nameOrEmail: string | undefined; limit: number; offset: number },
): Promise<{ entries: ActiveInvestorEntry[]; total: number }> {
  const page = (from: ReturnType<typeof sql>) => sql`
    select i.id, i.remote_id, i.data_source, i.team_user_id, i.kyc_check_level, i.contact,
      p.completed, p.in_progress, p.total as deals_total, p.full_name
    from (select investor_user_id, full_name, completed, in_progress, total from ${from}
          order by full_name, investor_user_id limit ${options.limit} offset ${options.offset}) p
    join investors i on i.id = p.investor_user_id`;
  const { rows } =
    options.nameOrEmail === undefined
      ? await sql<Row>`
          select t.listed, r.* from (select coalesce(sum(investors), 0)::text as listed from listed_investor_counts) t
          left join lateral (${page(sql`investor_deal_counts where active`)}) r on true
          order by r.full_name, r.id`.execute(db)
      : await sql<Row>`
          with matches as materialized (
            select investor_user_id, full_name, completed, in_progress, total from investor_deal_counts
            where active and search ilike ${likeContaining(options.nameOrEmail)}
              and (full_name ilike ${likeContaining(options.nameOrEmail)} or email ilike ${likeContaining(options.nameOrEmail)})
          )
          select t.listed, r.* from (select count(*)::text as listed from matches) t
          left join lateral (${page(sql`matches`)}) r on true
          order by r.full_name, r.id`.execute(db);
  return {
    total: Number(rows[0]?.listed ?? 0),
    entries: rows
      .filter((r) => r.id !== null)
      .map((r) => ({
        investor: toInvestor({ ...r, id: r.id!, contact: r.contact as never }),
        dealsCompletedCount: String(r.completed),
        dealsInProgressCount: String(r.in_progress),
        dealsTotal: String(r.deals_total),
      })),
  };
}

/**
 * Recomputes the kept list data (investor_deal_counts, the listed total, deal_investor_search)
 * from the journeys, in three set-based statements. For bulk loads that switch the per-statement
 * trigger off while they write (bench/scale-seed.ts); the service never needs it.
 */
export async function rebuildListCounts(db: Kysely<DB>): Promise<void> {
  await sql`truncate investor_deal_counts, deal_investor_search, listed_investor_counts`.execute(db);
  await sql`insert into investor_deal_counts (investor_user_id, full_name, email, active, completed, in_progress, total)
    select i.id, i.full_name, i.email, i.status = 'active', c.completed, c.in_progress, c.total
    from (select j.investor_user_id,
            count(*) filter (where s.type = 'complete')::int as completed,
            count(*) filter (where s.type = 'default')::int as in_progress,
            count(*)::int as total
          from journeys j join workflow_steps s on s.id = j.current_step_id
          where j.event_count > 0 group by j.investor_user_id) c
    join investors i on i.id = c.investor_user_id`.execute(db);
  await sql`insert into deal_investor_search (deal_id, investor_user_id, full_name, email)
    select j.deal_id, i.id, i.full_name, i.email from journeys j join investors i on i.id = j.investor_user_id where j.event_count > 0`.execute(db);
}
