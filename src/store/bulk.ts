// Bulk writes for seeding: investors, journeys, events and their first revisions, many rows per
// statement. Used by `dealflow seed`; the service itself writes one move at a time.
import { type Kysely, sql } from 'kysely';
import type { Investor } from '../domain/investor.ts';
import type { StoredEvent } from './events.ts';
import { investorColumns } from './investors.ts';
import type { DB } from './schema.ts';

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters at 9 columns. */
const BATCH = 1000;

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

export async function insertInvestors(db: Kysely<DB>, investors: Investor[], now: Date): Promise<void> {
  await inBatches(investors, (batch) =>
    db
      .insertInto('investors')
      .values(
        batch.map((investor) => ({ id: investor.id, ...investorColumns(investor, now), created_at: now })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute(),
  );
}

export interface SeededJourney {
  dealId: string;
  investorUserId: string;
  paymentReference: string;
  /** Oldest first, seq 1…n, each starting where the previous ended. */
  events: StoredEvent[];
}

/** Writes journeys (current step, event count, reference), their events, and revision 1 of each. */
export async function insertJourneys(db: Kysely<DB>, journeys: SeededJourney[]): Promise<void> {
  const withEvents = journeys.filter((j) => j.events.length > 0);
  await inBatches(withEvents, (batch) =>
    db
      .insertInto('journeys')
      .values(
        batch.map((j) => ({
          deal_id: j.dealId,
          investor_user_id: j.investorUserId,
          current_step_id: j.events.at(-1)!.toStepId,
          event_count: j.events.length,
          payment_reference: j.paymentReference,
          started_at: new Date(j.events[0]!.createdAt),
          moved_at: new Date(j.events.at(-1)!.createdAt),
          // Seeded journeys are on the version in force (as a move would record).
          workflow_version: sql<number>`(select version from workflows where deal_id = ${j.dealId})`,
        })),
      )
      .execute(),
  );
  const events = withEvents.flatMap((j) => j.events);
  await inBatches(events, (batch) =>
    db
      .insertInto('workflow_events')
      .values(
        batch.map((e) => ({
          id: e.id,
          deal_id: e.dealId,
          investor_user_id: e.investorUserId,
          seq: e.seq,
          from_step_id: e.fromStepId,
          to_step_id: e.toStepId,
          data: JSON.stringify(e.data),
          created_by_user_id: e.createdByUserId,
          created_at: new Date(e.createdAt),
          workflow_version: sql<number>`(select version from workflows where deal_id = ${e.dealId})`,
        })),
      )
      .execute(),
  );
  await inBatches(events, (batch) =>
    db
      .insertInto('event_revisions')
      .values(
        batch.map((e) => ({
          event_id: e.id,
          revision: 1,
          data: JSON.stringify(e.data),
          set_by_user_id: e.createdByUserId,
          set_at: new Date(e.createdAt),
          reason: null,
        })),
      )
      .execute(),
  );
}
