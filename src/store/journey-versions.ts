// Which deals' journey versions (journeys.audit_seq, a journey's ETag) a transaction of this
// process changed. Every statement that changes a version notes its deal here; the transaction
// helpers of operations/ run each transaction they open in `trackingJourneyVersions` and, once it
// has ended, drop what this instance keeps of those deals (operations/caches.ts JourneyVersions),
// before the write's answer is sent. Other instances learn of the change from the NOTIFY that the
// journeys' triggers send on commit (migration 0058), which reaches this one too, later.
import { AsyncLocalStorage } from 'node:async_hooks';

const tracked = new AsyncLocalStorage<Set<string>>();

/** Notes that the current transaction changed versions of journeys in `dealId` (nothing outside a tracked one). */
export function noteJourneyVersionsChanged(dealId: string): void {
  tracked.getStore()?.add(dealId);
}

/**
 * Runs `work` (one transaction), noting the deals whose journey versions its statements change;
 * `changed` gets them once it has ended, committed or not (a commit cut off may have landed).
 */
export async function trackingJourneyVersions<T>(work: () => Promise<T>, changed: (dealIds: ReadonlySet<string>) => void): Promise<T> {
  const dealIds = new Set<string>();
  try {
    return await tracked.run(dealIds, work);
  } finally {
    if (dealIds.size > 0) changed(dealIds);
  }
}
