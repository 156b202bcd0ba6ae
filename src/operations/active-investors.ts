// POST /deals/deal/all-transactions (listActiveInvestors, admin): active investors with at least one
// journey, with their completed / in-progress / total deal counts, paged, searchable by name or
// e-mail. Ordering, paging and search as every list's (docs/reference/http-api.md, "Lists and pages").
import * as store from '../store/active-investors.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

/** Far past any real page; keeps page × limit inside PostgreSQL's bigint. */
const MAX_OFFSET = 1e15;

export async function listActiveInvestors(deps: Deps, input: { nameOrEmail?: string | null | undefined; limit: number; page: number }) {
  const search = input.nameOrEmail?.trim();
  const { entries, total } = await store.listActiveInvestors(forReading(deps).db, {
    nameOrEmail: search ? search : undefined,
    limit: input.limit,
    offset: Math.min((input.page - 1) * input.limit, MAX_OFFSET),
  });
  return { output: entries, page: input.page, totalPages: Math.ceil(total / input.limit) };
}
