// Bookings made on completion, and those queued for staff (GET /payments/bookings).
import { pageJourneyBookings } from '../store/journey-bookings.ts';
import type { Deps } from './deps.ts';

export async function listJourneyBookings(
  deps: Deps,
  filter: { status?: string | undefined; dealId?: string | undefined },
  page: { limit: number; page: number },
) {
  const { items, total } = await pageJourneyBookings(deps.db, filter, { limit: page.limit, offset: (page.page - 1) * page.limit });
  return { output: items, page: page.page, totalPages: Math.ceil(total / page.limit) };
}
