// GET /deals/deal/{dealId}/events?after=<sequence>&limit (issue #6): the pull feed. A deal's outbox
// entries with a sequence above `after`, in sequence order, in the shape of the webhook bodies. A
// system that missed webhooks keeps the last sequence it saw and asks for what follows; sequences
// have no gaps and are never reordered by a late commit (see store/outbox.ts).
import { notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { listDealFeed, listPlatformFeed } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

export type { OutboxEntry } from '../store/outbox.ts';

export async function listDealEvents(deps: Deps, dealId: string, query: { after?: number; limit?: number }) {
  const { db } = forReading(deps);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const after = query.after ?? 0;
  const { entries, hasMore } = await listDealFeed(db, dealId, after, query.limit ?? 20);
  return { output: entries, lastSequence: entries.at(-1)?.sequence ?? after, hasMore };
}

/**
 * GET /webhooks/events?after&limit: the same feed for the events that belong to no deal
 * (`subscription.created`), numbered in one platform-wide sequence.
 */
export async function listPlatformEvents(deps: Deps, query: { after?: number; limit?: number }) {
  const after = query.after ?? 0;
  const { entries, hasMore } = await listPlatformFeed(forReading(deps).db, after, query.limit ?? 20);
  return { output: entries, lastSequence: entries.at(-1)?.sequence ?? after, hasMore };
}
