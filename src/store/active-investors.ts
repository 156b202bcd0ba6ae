// Active investors with their deal counts (endpoint 7, all-transactions): investors whose contact
// status is active and who have at least one journey, ordered by full name then id.
import { type Kysely, sql } from 'kysely';
import { ACTIVE_STATUS, type Investor } from '../domain/investor.ts';
import { toInvestor } from './investors.ts';
import { likeContaining } from './journeys.ts';
import type { DB } from './schema.ts';

export interface ActiveInvestorEntry {
  investor: Investor;
  dealsCompletedCount: string;
  dealsInProgressCount: string;
  dealsTotal: string;
}

/**
 * One page and the number of matches, in one statement. The inner query pages the matching
 * investors in SQL (the index on (full_name, id) gives the order); the lateral join then counts
 * journeys by the type of the step each one stands at, for the page's rows only, so the work per
 * request is one pass over the matching investors plus `limit` index lookups into journeys.
 * A page past the end has no rows to carry the total, and is counted separately.
 */
export async function listActiveInvestors(
  db: Kysely<DB>,
  options: { nameOrEmail: string | undefined; limit: number; offset: number },
): Promise<{ entries: ActiveInvestorEntry[]; total: number }> {
  const matching = db
    .selectFrom('investors as i')
    .where('i.status', '=', ACTIVE_STATUS)
    .where(({ exists, selectFrom }) => exists(selectFrom('journeys as j').select(sql`1`.as('one')).whereRef('j.investor_user_id', '=', 'i.id').where('j.event_count', '>', 0)))
    .$if(options.nameOrEmail !== undefined, (qb) => {
      const pattern = likeContaining(options.nameOrEmail!);
      return qb.where(sql<boolean>`(i.full_name ilike ${pattern} escape '\\' or i.email ilike ${pattern} escape '\\')`);
    });

  // Only the sort key travels through the sort; the page's rows are joined back for the rest.
  const page = matching
    .select(['i.id', 'i.full_name'])
    .select(sql<string>`count(*) over ()`.as('total'))
    .orderBy('i.full_name')
    .orderBy('i.id')
    .limit(options.limit)
    .offset(options.offset)
    .as('p');

  const rows = await db
    .selectFrom(page)
    .innerJoin('investors as inv', 'inv.id', 'p.id')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('journeys as j')
          .innerJoin('workflow_steps as s', 's.id', 'j.current_step_id')
          .whereRef('j.investor_user_id', '=', 'p.id')
          .where('j.event_count', '>', 0)
          .select([
            sql<string>`count(*) filter (where s.type = 'complete')`.as('completed'),
            sql<string>`count(*) filter (where s.type = 'default')`.as('in_progress'),
            sql<string>`count(*)`.as('deals_total'),
          ])
          .as('c'),
      (join) => join.onTrue(),
    )
    .select(['inv.id', 'inv.remote_id', 'inv.data_source', 'inv.team_user_id', 'inv.kyc_check_level', 'inv.contact', 'p.total'])
    .select(['c.completed', 'c.in_progress', 'c.deals_total'])
    .orderBy('p.full_name')
    .orderBy('p.id')
    .execute();

  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && options.offset > 0) {
    const counted = await matching.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    total = Number(counted.n);
  }
  return {
    total,
    entries: rows.map((r) => ({
      investor: toInvestor(r),
      // count(*) is int8: a string from both drivers; String() keeps it one even if that changes.
      dealsCompletedCount: String(r.completed),
      dealsInProgressCount: String(r.in_progress),
      dealsTotal: String(r.deals_total),
    })),
  };
}
