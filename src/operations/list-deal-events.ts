// GET /deals/deal/{dealId}/events?after=<sequence>&limit (issue #6): the pull feed. A deal's outbox
// entries with a sequence above `after`, in sequence order, in the shape of the webhook bodies. A
// system that missed webhooks keeps the last sequence it saw and asks for what follows; sequences
// have no gaps and are never reordered by a late commit (see store/outbox.ts).
import { notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { listDealFeed } from '../store/outbox.ts';
import type { Deps } from './deps.ts';

export type { OutboxEntry } from '../store/outbox.ts';

export async function listDealEvents(deps: Deps, dealId: string, query: { after?: number; limit?: number }) {
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  const after = query.after ?? 0;
  const { entries, hasMore } = await listDealFeed(deps.db, dealId, after, query.limit ?? 20);
  return { output: entries, lastSequence: entries.at(-1)?.sequence ?? after, hasMore };
}
