// GET /console/deals/{dealId}/activity?before&limit: a deal's event feed newest first, for the
// console's activity page. The pull feed (list-deal-events.ts) is read oldest first by design, so a
// screen that wants the latest entries would have to read all of it; this reads backwards on the
// same index and order, a page at a time, with the name of the investor each entry is about.
import { AppError, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { listDealFeedLatest } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

export async function listDealActivity(deps: Deps, dealId: string, query: { before?: number; limit?: number }) {
  const { db } = forReading(deps);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const before = query.before ?? 0;
  const result = await listDealFeedLatest(db, dealId, before, query.limit ?? 20);
  if (!result.found) {
    throw new AppError('validation', `before=${before} is not the sequence of an entry of this deal's feed. Pass the sequence of the last entry of the page you have, or leave it out for the newest entries`, {
      errors: [{ in: 'query', field: 'before', detail: 'must be the sequence of an entry of this feed' }],
    });
  }
  return { output: result.entries, hasMore: result.hasMore };
}
