// GET /console/deals/{dealId}/activity?before&limit: a deal's event feed newest first, for the
// console's activity page. The pull feed (list-deal-events.ts) is read oldest first by design, so a
// screen that wants the latest entries would have to read all of it; this reads backwards on the
// same index and order, a page at a time, with the name of the investor each entry is about.
import { AppError, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { batchesOfEvents } from '../store/move-batches.ts';
import { listDealFeedLatest } from '../store/outbox.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';
import { UNDO_WINDOW_MS } from './undo.ts';

export async function listDealActivity(deps: Deps, dealId: string, query: { before?: number; limit?: number }) {
  const { db } = forReading(deps);
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const before = query.before ?? 0;
  const result = await listDealFeedLatest(db, dealId, before, query.limit ?? 20);
  if (!result.found) {
    throw new AppError(
      'validation',
      `before=${before} is not the sequence of an entry of this deal's feed. Pass the sequence of the last entry of the page you have, or leave it out for the newest entries`,
      {
        errors: [{ in: 'query', field: 'before', detail: 'must be the sequence of an entry of this feed' }],
      },
    );
  }
  // Each entry that records a move names the batch it was part of, so the console can show a bulk
  // move as one entry and offer its undo (operations/undo.ts) while the window lasts. The batch's
  // count and whether its undo would be accepted now are read over all its rows, not this page's.
  const eventIdOf = (data: unknown): string | undefined => {
    const d = data as { event?: { id?: unknown }; eventId?: unknown } | null;
    const id = d?.event?.id ?? d?.eventId;
    return typeof id === 'string' ? id : undefined;
  };
  const batches = await batchesOfEvents(
    db,
    result.entries.flatMap((e) => eventIdOf(e.data) ?? []),
  );
  const now = deps.clock().getTime();
  const output = result.entries.map((e) => {
    const id = eventIdOf(e.data);
    const b = id ? batches.get(id) : undefined;
    const open = b !== undefined && !b.undoneBy && now - b.createdAt.getTime() <= UNDO_WINDOW_MS;
    return {
      ...e,
      batch: b
        ? {
            id: b.batchId,
            kind: b.kind,
            size: b.size,
            undoes: b.undoes,
            undoneBy: b.undoneBy,
            undoableUntil: open ? new Date(b.createdAt.getTime() + UNDO_WINDOW_MS).toISOString() : null,
            undoable: open && !b.blocked,
          }
        : null,
    };
  });
  return { output, hasMore: result.hasMore };
}
