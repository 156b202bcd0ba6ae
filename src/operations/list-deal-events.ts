// GET /deals/deal/{dealId}/events?after=<sequence>&limit: the pull feed. A deal's outbox entries
// after the entry numbered `after`, in feed order, in the shape of the webhook bodies. A system
// that missed webhooks keeps the number of the last entry it processed (`lastSequence`) and asks
// for what follows. Numbers name entries; they have gaps and are not increasing along the feed
// (the order is the writers' transaction order: store/outbox.ts, and docs/reference/webhooks-and-feed.md, "The pull feed").
import { AppError, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { type FeedPage, listDealFeed, listPlatformFeed } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

/** A cursor that names no entry this feed has shown: a number guessed, or from another feed. */
export function unknownCursor(after: number, restart: string): AppError {
  return new AppError(
    'validation',
    `after=${after} is not the sequence of an entry of this feed. Pass the sequence of the last entry you received (lastSequence), or restart from after=0 (${restart}) and skip the entry ids you have already processed`,
    { errors: [{ in: 'query', field: 'after', detail: 'must be 0 or the sequence of an entry of this feed' }] },
  );
}

function page(result: FeedPage, after: number, restart: string) {
  if (!result.found) throw unknownCursor(after, restart);
  const { entries, hasMore } = result;
  return { output: entries, lastSequence: entries.at(-1)?.sequence ?? after, hasMore };
}

export async function listDealEvents(deps: Deps, dealId: string, query: { after?: number; limit?: number }) {
  const { db } = forReading(deps);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const after = query.after ?? 0;
  return page(await listDealFeed(db, dealId, after, query.limit ?? 20), after, `GET /deals/deal/${dealId}/events?after=0`);
}

/** GET /webhooks/events?after&limit: the same feed for the events that belong to no deal (`subscription.created`). */
export async function listPlatformEvents(deps: Deps, query: { after?: number; limit?: number }) {
  const after = query.after ?? 0;
  return page(await listPlatformFeed(forReading(deps).db, after, query.limit ?? 20), after, 'GET /webhooks/events?after=0');
}
