// The operations console's read models (admin only): the investor directory, the inbox of pending
// edit requests across deals, and people's names for the ids recorded as actors.
import { invalid, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import * as store from '../store/console.ts';
import type { Deps } from './deps.ts';

export async function listDirectory(deps: Deps, options: { query: string | undefined; limit: number; page: number }) {
  const { total, entries } = await store.listDirectory(deps.db, { query: options.query || undefined, limit: options.limit, offset: (options.page - 1) * options.limit });
  return { output: entries, page: options.page, totalPages: Math.ceil(total / options.limit), total };
}

export async function listPendingEditRequests(deps: Deps, options: { dealId: string | undefined; limit: number; page: number }) {
  if (options.dealId !== undefined) {
    const deal = await deps.db.selectFrom('deals').select('id').where('id', '=', options.dealId).executeTakeFirst();
    if (!deal) throw notFound('deal', options.dealId);
  }
  const { total, requests } = await store.listPendingRequests(deps.db, { dealId: options.dealId, limit: options.limit, offset: (options.page - 1) * options.limit });
  return { output: requests, page: options.page, totalPages: Math.ceil(total / options.limit), total };
}

/**
 * Names for actor ids: API keys by their id; the caller's own JWT `name` claim for the caller's
 * id. Ids without a known name are left out (the console shows the id).
 */
export async function namePeople(deps: Deps, principal: Principal, ids: string[]) {
  const unique = [...new Set(ids)];
  if (unique.length > 100) throw invalid([{ in: 'query', field: 'ids', detail: `at most 100 ids at a time; ${unique.length} were given` }]);
  const named = new Map((await store.tokenNames(deps.db, unique)).map((p) => [p.id, p.name]));
  if (principal.name && unique.includes(principal.userId) && !named.has(principal.userId)) named.set(principal.userId, principal.name);
  return unique.filter((id) => named.has(id)).map((id) => ({ id, name: named.get(id)! }));
}
