// Sanctions screening: loading a list version, screening investors against the newest version of
// each list, deciding a hit, and the check that keeps a blocked investor out of payment steps.
// The rules (normalisation, similarity, blocking index) are domain/screening.ts; the lists'
// formats are sanctions-readers/.
import { SANCTIONS_CHAIN } from '../domain/audit.ts';
import { conflict, forbidden, invalid, notFound, unprocessable } from '../domain/errors.ts';
import { actorOf, isStaff, type Principal } from '../domain/principal.ts';
import { entryFingerprintText, type SanctionsEntry, type SanctionsSource } from '../domain/sanctions-entry.ts';
import { buildScreeningIndex, DEFAULT_SCREENING_THRESHOLD, type ScreeningIndex, screenPerson } from '../domain/screening.ts';
import { createHash } from 'node:crypto';
import { appendToChain } from '../store/audit.ts';
import * as store from '../store/sanctions.ts';
import type { Deps } from './deps.ts';
import { inOneTransaction } from './pipeline.ts';
import { readSanctionsList } from './sanctions-readers/index.ts';
import { forReading } from './reads.ts';

const BATCH = 500;

const fingerprint = (entry: SanctionsEntry) => createHash('sha256').update(entryFingerprintText(entry)).digest('hex');

/** Lists and hits are staff work; which staff role may do what is the routes' table (http/route-roles.ts). */
function assertStaff(principal: Principal): void {
  if (!isStaff(principal)) throw forbidden('Only staff may load sanctions lists and decide hits');
}

export interface ListLoad {
  versionId: string;
  source: SanctionsSource;
  entryCount: number;
  newHits: number;
}

/** One load of a list file, in one transaction: a new version, its entries, an audit entry, and a screen of every investor. */
export async function loadSanctionsList(deps: Deps, principal: Principal, fileName: string, chunks: AsyncIterable<string | Uint8Array>): Promise<ListLoad> {
  assertStaff(principal);
  return inOneTransaction(async (tx) => {
    const reading = await readSanctionsList(chunks);
    if (reading === undefined) {
      throw unprocessable('The file is not one of the known sanctions lists (EU FSF XML, OFSI CSV, OFAC SDN XML, UN consolidated XML)');
    }
    const versionId = tx.newId();
    const at = tx.clock();
    await store.insertListVersion(tx.db, {
      id: versionId,
      source: reading.source,
      fileName,
      entryCount: 0,
      loadedAt: at.toISOString(),
      loadedBy: actorOf(principal),
    });
    let entryCount = 0;
    let batch: { entry: SanctionsEntry; fingerprint: string }[] = [];
    for await (const entry of reading.entries) {
      if (entry.sourceId === '' || entry.names.length === 0) continue;
      batch.push({ entry, fingerprint: fingerprint(entry) });
      entryCount++;
      if (batch.length >= BATCH) {
        await store.insertEntries(tx.db, versionId, batch);
        batch = [];
      }
    }
    await store.insertEntries(tx.db, versionId, batch);
    await store.setEntryCount(tx.db, versionId, entryCount);
    await appendToChain(tx.db, {
      chain: SANCTIONS_CHAIN,
      type: 'sanctions.list-loaded',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { versionId, source: reading.source, fileName, entryCount },
    });
    const newHits = await screenInvestors(tx);
    return { versionId, source: reading.source, entryCount, newHits };
  })(deps);
}

/** Screens investors (all, or these) against the newest version of each list; returns how many hits are new. */
export async function screenInvestors(deps: Deps, investorIds?: readonly string[], threshold = DEFAULT_SCREENING_THRESHOLD): Promise<number> {
  return inOneTransaction(async (tx) => {
    const screening = await currentScreening(tx.db);
    if (screening === undefined) return 0;
    const { byEntry, index } = screening;
    const at = tx.clock().toISOString();
    const hits: store.NewHit[] = [];
    for (const investor of await store.investorsToScreen(tx.db, investorIds)) {
      for (const hit of screenPerson({ names: [investor.fullName], birthDate: investor.birthDate }, index, threshold)) {
        const known = byEntry.get(hit.entry)!;
        hits.push({
          id: tx.newId(),
          investorId: investor.id,
          source: known.source,
          sourceId: hit.entry.sourceId,
          fingerprint: known.fingerprint,
          versionId: known.versionId,
          score: hit.score,
          matchedName: hit.matchedName,
          createdAt: at,
        });
      }
    }
    let inserted = 0;
    for (let i = 0; i < hits.length; i += BATCH) inserted += await store.insertHits(tx.db, hits.slice(i, i + BATCH));
    return inserted;
  })(deps);
}

interface Screening {
  key: string;
  byEntry: Map<SanctionsEntry, store.CurrentEntry>;
  index: ScreeningIndex;
}

// The index of the lists' newest versions, kept while they stay the newest: screening one investor
// at creation then costs one small query, not a read of every entry.
let cached: Screening | undefined;

async function currentScreening(db: Deps['db']): Promise<Screening | undefined> {
  const key = await store.currentVersionKey(db);
  if (key === '') return undefined;
  if (cached?.key === key) return cached;
  const current = await store.currentEntries(db);
  const screening = { key, byEntry: new Map(current.map((c) => [c.entry, c])), index: buildScreeningIndex(current.map((c) => c.entry)) };
  // Versions never change once written and their ids are never reused, so a key seen again means
  // the same entries (one from a transaction that rolled back is never seen again).
  cached = screening;
  return screening;
}

export type HitDecision = 'confirm' | 'dismiss';

export interface HitDecided {
  id: string;
  status: 'confirmed' | 'dismissed';
  reason: string | null;
  decidedBy: string;
  decidedAt: string;
}

/** Confirms an open hit (the investor stays blocked) or dismisses it with a reason (it does not hit again until its entry changes). */
export async function decideSanctionsHit(deps: Deps, principal: Principal, hitId: string, decision: HitDecision, reason?: string): Promise<HitDecided> {
  assertStaff(principal);
  const why = reason?.trim() ? reason.trim() : null;
  if (decision === 'dismiss' && why === null) {
    throw invalid([{ in: 'body', field: 'reason', detail: 'required to dismiss a hit' }], 'A dismissal needs a reason');
  }
  return inOneTransaction(async (tx) => {
    const at = tx.clock().toISOString();
    const status = decision === 'confirm' ? 'confirmed' : 'dismissed';
    if (!(await store.decideHit(tx.db, hitId, status, why, actorOf(principal), at))) {
      const was = await store.hitStatus(tx.db, hitId);
      throw was === undefined ? notFound('sanctions hit', hitId) : conflict(`The hit is already ${was}; a decision is final`, { status: was });
    }
    await appendToChain(tx.db, {
      chain: SANCTIONS_CHAIN,
      type: 'sanctions.hit-decided',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at,
      change: { hitId, decision: status, ...(why === null ? {} : { reason: why }) },
    });
    return { id: hitId, status, reason: why, decidedBy: actorOf(principal), decidedAt: at } satisfies HitDecided;
  })(deps);
}

export async function listBlockingHits(deps: Pick<Deps, 'db'>, investorId: string): Promise<store.Hit[]> {
  return store.blockingHits(deps.db, investorId);
}

/** Throws a 422 when the investor has an open or confirmed hit: called before a move into a step that takes money. */
export async function assertNotSanctionsBlocked(deps: Pick<Deps, 'db'>, investorId: string): Promise<void> {
  const hits = await store.blockingHits(deps.db, investorId);
  if (hits.length > 0) {
    throw unprocessable('The investor matches a sanctions list entry under review or confirmed; steps that take money are blocked');
  }
}

/** GET /sanctions/lists: every load, newest first, each marked when it is its source's newest. */
export async function listSanctionsLists(deps: Deps, principal: Principal) {
  assertStaff(principal);
  return store.listVersions(forReading(deps).db);
}

/** GET /sanctions/hits: the review queue, oldest first (open ones by default). */
export async function listSanctionsHits(
  deps: Deps,
  principal: Principal,
  query: { status?: store.Hit['status'] | 'all'; investorId?: string; limit?: number; page?: number },
) {
  assertStaff(principal);
  const limit = query.limit ?? 20;
  const page = query.page ?? 1;
  const status = query.status === 'all' ? undefined : (query.status ?? 'open');
  const { hits, total } = await store.listHits(forReading(deps).db, { status, investorId: query.investorId }, { limit, offset: (page - 1) * limit });
  return { output: hits, page, totalPages: Math.ceil(total / limit) };
}

/** POST /sanctions/screen: screens these investors (every one when none are named) now; returns how many hits are new. */
export async function screenOnDemand(deps: Deps, principal: Principal, investorIds?: readonly string[]): Promise<{ newHits: number }> {
  assertStaff(principal);
  return { newHits: await screenInvestors(deps, investorIds) };
}
