// What an investor token may know exists. For an investor, a deal they have no journey in, and a
// step, event, edit request or form implementation that is not theirs, is answered exactly as an
// unknown one: the same 404 with the same wording, so probing ids teaches them nothing. Naming
// another investor's id is the 404 of an unknown investor, whether or not that investor exists;
// staff (admin) see everything.
import { notFound } from '../domain/errors.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import type { Db } from '../store/schema.ts';
import { findJourney } from '../store/journeys.ts';

/** True when the caller may know that this deal exists: staff, or an investor with a journey in it. */
export async function dealVisibleTo(db: Db, principal: Principal, dealId: string): Promise<boolean> {
  if (isStaff(principal)) return true;
  return principal.investorUserId !== undefined && (await findJourney(db, dealId, principal.investorUserId)) !== undefined;
}

/** Throws the unknown deal's 404 unless the caller may know the deal exists. */
export async function requireVisibleDeal(db: Db, principal: Principal, dealId: string): Promise<void> {
  if (!(await dealVisibleTo(db, principal, dealId))) throw notFound('deal', dealId);
}

/**
 * A record owned by an investor (`owner`), or undefined when unknown: returns it when the caller
 * may see it, else throws exactly the 404 an unknown id gets.
 */
export function visibleRecord<T>(principal: Principal, record: T | undefined, ownerOf: (record: T) => string, unknown: () => Error): T {
  if (record === undefined) throw unknown();
  if (!isStaff(principal) && principal.investorUserId !== ownerOf(record)) throw unknown();
  return record;
}
