// Investor journeys: the move (moveToStep), one investor's journey (getInvestorJourney) and the journeys of
// every investor of a deal (listAllInvestorWorkflows).
import { notFound } from '../domain/errors.ts';
import type { WorkflowEvent } from '../domain/event.ts';
import { canActFor, isStaff, type Principal } from '../domain/principal.ts';
import { findDeal } from '../store/deals.ts';
import { findJourneyJson, findJourneyVersion, listJourneysEvents } from '../store/events.ts';
import { findInvestor } from '../store/investors.ts';
import { pageJourneyInvestors } from '../store/journeys.ts';
import { type Deps, inTransaction } from './deps.ts';
import { forReading } from './reads.ts';
import { applyMoves, type MoveHooks, type MoveInput, type MoveRecord } from './apply-moves.ts';

/** The data an investor's events hold, later events winning (what "captured earlier" means). */
export function capturedData(events: readonly Pick<WorkflowEvent, 'data'>[]): Map<string, string> {
  const captured = new Map<string, string>();
  for (const event of events) for (const [key, value] of Object.entries(event.data)) captured.set(key, value);
  return captured;
}

/**
 * moveToStep: moves an investor to a step under the jump rules (domain/move-rules.ts) and records the
 * Workflow Event: applyMoves with one move, its refusal thrown. Joins the caller's transaction when
 * there is one (edit-request approvals, idempotent requests).
 */
export async function moveToStep(
  deps: Deps,
  principal: Principal,
  dealId: string,
  input: MoveInput,
  hooks: MoveHooks = {},
  record: MoveRecord = {},
): Promise<WorkflowEvent> {
  return inTransaction(deps, async (tx) => {
    const [outcome] = await applyMoves(tx, principal, dealId, [{ input, hooks, record }]);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.event;
  });
}

/** A read's answer as JSON text with the version it is of; no text when the caller already holds that version. */
export interface VersionedText {
  version: string;
  json?: string;
}

/**
 * getInvestorJourney: an investor's events in a deal, oldest first (empty before their first move), as the
 * response's JSON text (`{ investor: { id }, journey }`) built by the database (store/events.ts), for
 * the HTTP layer to send unchanged, with the journey's version (its audit chain's length: every move
 * and edit lengthens it). After the access check, a caller holding (`known`) the version this
 * instance keeps for the journey (caches.ts JourneyVersions: read here before, dropped when a
 * transaction of any instance changes a version of the deal) is answered with no database read at
 * all. Otherwise one primary-key read gives the version: when the caller holds it nothing else is
 * read, and the text of a version this instance has built before comes from its kept bodies (a
 * version's text never changes).
 */
export async function getInvestorJourney(
  deps: Deps,
  principal: Principal,
  dealId: string,
  investorUserId: string,
  known?: readonly string[],
): Promise<VersionedText> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const versions = deps.caches?.journeyVersions;
  if (known !== undefined && versions) {
    // Kept only from a read of a journey with events, which answers anyone canActFor lets ask.
    const kept = versions.get(dealId, investorUserId);
    if (kept !== undefined && known.includes(kept)) return { version: kept };
  }
  // Taken before the read: a version read before a drop that lands meanwhile is not kept.
  const generation = versions?.generation ?? 0;
  const key = (version: string) => `journey ${dealId} ${investorUserId} ${version}`;
  const current = await findJourneyVersion(deps.db, dealId, investorUserId);
  // Version 0 is a journey without events: the full read below tells who may know of it.
  if (current !== undefined && current !== '0') {
    versions?.set(dealId, investorUserId, current, generation);
    if (known?.includes(current)) return { version: current };
    const kept = deps.caches?.bodies.get(key(current));
    if (kept !== undefined) return { version: current, json: kept };
  }
  // Events exist only for a known deal and investor (foreign keys through journeys), so the usual
  // case is one simple query; only an empty journey needs to tell a 404 from "no move yet".
  const { events, json, version } = await findJourneyJson(deps.db, dealId, investorUserId);
  if (events === 0) {
    // An investor with no journey in the deal cannot tell it from an unknown deal.
    if (!isStaff(principal) || !(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
    if (!(await findInvestor(deps.db, investorUserId))) throw notFound('investor', investorUserId);
  } else {
    deps.caches?.bodies.set(key(version), json);
    versions?.set(dealId, investorUserId, version, generation);
  }
  return known?.includes(version) ? { version } : { version, json };
}

export interface JourneyPageQuery {
  limit: number;
  page: number;
  query?: string | undefined;
}

export type AbbreviatedEvent = Pick<WorkflowEvent, 'id' | 'toStepId' | 'data' | 'createdAt'>;

export interface JourneyPage {
  output: { investor: { id: string }; journey: AbbreviatedEvent[] }[];
  page: number;
  totalPages: number;
}

/**
 * listAllInvestorWorkflows: the investors with a journey in the deal, by full name then id, filtered on name or
 * e-mail. Two queries whatever the page size: the page of investors, then all of their events.
 */
export async function listInvestorJourneys(deps: Deps, dealId: string, query: JourneyPageQuery): Promise<JourneyPage> {
  const search = query.query?.trim();
  const { db } = forReading(deps);
  const { dealExists, total, investorUserIds } = await pageJourneyInvestors(db, dealId, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    ...(search ? { query: search } : {}),
  });
  if (!dealExists) throw notFound('deal', dealId);
  const events = await listJourneysEvents(db, dealId, investorUserIds);
  return {
    output: investorUserIds.map((id) => ({
      investor: { id },
      journey: (events.get(id) ?? []).map(({ id: eventId, toStepId, data, createdAt }) => ({ id: eventId, toStepId, data, createdAt })),
    })),
    page: query.page,
    totalPages: Math.ceil(total / query.limit),
  };
}
