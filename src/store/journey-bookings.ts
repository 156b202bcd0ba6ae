// journey_bookings: one row per journey that reached completion in a deal that books on completion.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

/** Claims the journey's one booking; false when it was claimed before (booked or queued). */
export async function claimJourneyBooking(db: Kysely<DB>, b: { dealId: string; investorUserId: string; eventId: string; at: Date }): Promise<boolean> {
  const { rows } = await sql<{ deal_id: string }>`
    insert into journey_bookings (deal_id, investor_user_id, status, event_id, created_at)
    values (${b.dealId}, ${b.investorUserId}, 'queued', ${b.eventId}, ${b.at})
    on conflict do nothing returning deal_id`.execute(db);
  return rows.length > 0;
}

export async function setJourneyBooking(
  db: Kysely<DB>,
  key: { dealId: string; investorUserId: string },
  state: { status: 'booked'; subscriptionId: string } | { status: 'queued'; reason: string },
): Promise<void> {
  await sql`update journey_bookings set status = ${state.status},
      subscription_id = ${state.status === 'booked' ? state.subscriptionId : null}, reason = ${state.status === 'queued' ? state.reason : null}
    where deal_id = ${key.dealId} and investor_user_id = ${key.investorUserId}`.execute(db);
}

export interface JourneyBooking {
  dealId: string;
  investorUserId: string;
  status: 'booked' | 'queued';
  subscriptionId: string | null;
  reason: string | null;
  eventId: string;
  createdAt: string;
}

export async function pageJourneyBookings(
  db: Kysely<DB>,
  filter: { status?: string | undefined; dealId?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ items: JourneyBooking[]; total: number }> {
  const where = sql`(${filter.status ?? null}::text is null or status = ${filter.status ?? null})
    and (${filter.dealId ?? null}::text is null or deal_id = ${filter.dealId ?? null})`;
  const { rows } = await sql<{
    deal_id: string;
    investor_user_id: string;
    status: 'booked' | 'queued';
    subscription_id: string | null;
    reason: string | null;
    event_id: string;
    created_at: Date;
    total: string;
  }>`
    select *, count(*) over ()::text as total from journey_bookings where ${where}
    order by created_at, deal_id, investor_user_id limit ${page.limit} offset ${page.offset}`.execute(db);
  return {
    items: rows.map((r) => ({
      dealId: r.deal_id,
      investorUserId: r.investor_user_id,
      status: r.status,
      subscriptionId: r.subscription_id,
      reason: r.reason,
      eventId: r.event_id,
      createdAt: r.created_at.toISOString(),
    })),
    total: rows[0] ? Number(rows[0].total) : 0,
  };
}
