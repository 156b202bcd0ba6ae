// Sanctions list versions, their entries and the screening hits (migration 0041). Raw SQL: the
// tables are this file's alone.
import { sql } from 'kysely';
import type { SanctionsEntry, SanctionsSource } from '../domain/sanctions-entry.ts';
import type { Db } from './schema.ts';

export interface ListVersion {
  id: string;
  source: SanctionsSource;
  fileName: string;
  entryCount: number;
  loadedAt: string;
  loadedBy: string;
}

export async function insertListVersion(db: Db, version: ListVersion): Promise<void> {
  await sql`insert into sanctions_list_versions (id, source, file_name, entry_count, loaded_at, loaded_by)
    values (${version.id}, ${version.source}, ${version.fileName}, ${version.entryCount}, ${version.loadedAt}, ${version.loadedBy})`.execute(db);
}

export async function setEntryCount(db: Db, versionId: string, entryCount: number): Promise<void> {
  await sql`update sanctions_list_versions set entry_count = ${entryCount} where id = ${versionId}`.execute(db);
}

export async function insertEntries(db: Db, versionId: string, entries: readonly { entry: SanctionsEntry; fingerprint: string }[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map(
    ({ entry: e, fingerprint }) =>
      sql`(${versionId}, ${e.sourceId}, ${e.subject}, ${[...e.names]}::text[], ${[...e.birthDates]}::text[], ${[...e.nationalities]}::text[], ${[...e.programmes]}::text[], ${fingerprint})`,
  );
  await sql`insert into sanctions_entries (version_id, source_id, subject, names, birth_dates, nationalities, programmes, fingerprint)
    values ${sql.join(rows)} on conflict do nothing`.execute(db);
}

export interface CurrentEntry {
  source: SanctionsSource;
  versionId: string;
  fingerprint: string;
  entry: SanctionsEntry;
}

/** The entries of each source's newest version. */
export async function currentEntries(db: Db): Promise<CurrentEntry[]> {
  const { rows } = await sql<{
    source: SanctionsSource;
    version_id: string;
    source_id: string;
    subject: SanctionsEntry['subject'];
    names: string[];
    birth_dates: string[];
    nationalities: string[];
    programmes: string[];
    fingerprint: string;
  }>`select v.source, e.* from sanctions_entries e
      join (select distinct on (source) id, source from sanctions_list_versions order by source, loaded_at desc, id) v on v.id = e.version_id`.execute(db);
  return rows.map((r) => ({
    source: r.source,
    versionId: r.version_id,
    fingerprint: r.fingerprint,
    entry: { sourceId: r.source_id, subject: r.subject, names: r.names, birthDates: r.birth_dates, nationalities: r.nationalities, programmes: r.programmes },
  }));
}

export interface ScreenedInvestor {
  id: string;
  fullName: string;
  /** YYYY-MM-DD, when the directory holds one in that form. */
  birthDate?: string | undefined;
}

export async function investorsToScreen(db: Db, investorIds?: readonly string[]): Promise<ScreenedInvestor[]> {
  const only = investorIds === undefined ? sql`` : sql`and id = any(${[...investorIds]}::text[])`;
  const { rows } = await sql<{ id: string; full_name: string; birth_date: string | null }>`select id, full_name,
      case when contact -> 'contact' ->> 'dateOfBirth' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then contact -> 'contact' ->> 'dateOfBirth' end as birth_date
    from investors where erased_at is null ${only}`.execute(db);
  return rows.map((r) => ({ id: r.id, fullName: r.full_name, birthDate: r.birth_date ?? undefined }));
}

export interface NewHit {
  id: string;
  investorId: string;
  source: SanctionsSource;
  sourceId: string;
  fingerprint: string;
  versionId: string;
  score: number;
  matchedName: string;
  createdAt: string;
}

/** Records hits; one already known for the same entry content (open, confirmed or dismissed) is kept as it is. Returns how many were new. */
export async function insertHits(db: Db, hits: readonly NewHit[]): Promise<number> {
  if (hits.length === 0) return 0;
  const rows = hits.map(
    (h) =>
      sql`(${h.id}, ${h.investorId}, ${h.source}, ${h.sourceId}, ${h.fingerprint}, ${h.versionId}, ${h.score.toFixed(3)}::numeric, ${h.matchedName}, 'open', ${h.createdAt})`,
  );
  const { rows: inserted } = await sql`insert into sanctions_hits
      (id, investor_id, source, source_id, fingerprint, version_id, score, matched_name, status, created_at)
    values ${sql.join(rows)} on conflict (investor_id, source, source_id, fingerprint) do nothing returning id`.execute(db);
  return inserted.length;
}

/** A hit `h` whose entry is still on the newest version of its list: a hit on a withdrawn entry blocks nothing. */
export const onCurrentList = sql<boolean>`exists (select 1 from sanctions_entries e
  join (select distinct on (source) id, source from sanctions_list_versions order by source, loaded_at desc, id) v on v.id = e.version_id
  where v.source = h.source and e.source_id = h.source_id)`;

export interface Hit {
  id: string;
  investorId: string;
  source: SanctionsSource;
  sourceId: string;
  score: string;
  matchedName: string;
  status: 'open' | 'confirmed' | 'dismissed';
  reason: string | null;
  createdAt: string;
}

/** A hit as the review queue shows it: with the investor's name, who decided it and when, and whether its entry is still listed. */
export interface ReviewedHit extends Hit {
  investorName: string;
  decidedBy: string | null;
  decidedAt: string | null;
  /** False once the entry has left its list's newest version: the hit then blocks nothing. */
  listed: boolean;
}

interface HitRow {
  id: string;
  investor_id: string;
  source: SanctionsSource;
  source_id: string;
  score: string;
  matched_name: string;
  status: Hit['status'];
  reason: string | null;
  created_at: Date | string;
}

const toHit = (r: HitRow): Hit => ({
  id: r.id,
  investorId: r.investor_id,
  source: r.source,
  sourceId: r.source_id,
  score: String(r.score),
  matchedName: r.matched_name,
  status: r.status,
  reason: r.reason,
  createdAt: new Date(r.created_at).toISOString(),
});

/** Hits that block: open or confirmed, on an entry still in its source's newest version. */
export async function blockingHits(db: Db, investorId: string): Promise<Hit[]> {
  const { rows } = await sql<HitRow>`select h.id, h.investor_id, h.source, h.source_id, h.score, h.matched_name, h.status, h.reason, h.created_at
    from sanctions_hits h where h.investor_id = ${investorId} and h.status <> 'dismissed' and ${onCurrentList}
    order by h.created_at, h.id`.execute(db);
  return rows.map(toHit);
}

/** The review queue: hits of a status (all: undefined), oldest first, a page of them and the total. */
export async function listHits(
  db: Db,
  filter: { status?: Hit['status'] | undefined; investorId?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ hits: ReviewedHit[]; total: number }> {
  const where = sql`where (${filter.status ?? null}::text is null or h.status = ${filter.status ?? null})
    and (${filter.investorId ?? null}::text is null or h.investor_id = ${filter.investorId ?? null})`;
  const [{ rows: counted }, { rows }] = await Promise.all([
    sql<{ total: string }>`select count(*) as total from sanctions_hits h ${where}`.execute(db),
    sql<HitRow & { full_name: string; decided_by: string | null; decided_at: Date | string | null; listed: boolean }>`
      select h.id, h.investor_id, h.source, h.source_id, h.score, h.matched_name, h.status, h.reason, h.created_at,
        i.full_name, h.decided_by, h.decided_at, ${onCurrentList} as listed
      from sanctions_hits h join investors i on i.id = h.investor_id ${where}
      order by h.created_at, h.id limit ${page.limit} offset ${page.offset}`.execute(db),
  ]);
  const hits = rows.map((r) => ({
    ...toHit(r),
    investorName: r.full_name,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at === null ? null : new Date(r.decided_at).toISOString(),
    listed: r.listed,
  }));
  return { hits, total: Number(counted[0]!.total) };
}

/** Every loaded version, newest first, each marked when it is its source's newest (the one screened against). */
export async function listVersions(db: Db): Promise<(ListVersion & { current: boolean })[]> {
  const { rows } = await sql<{
    id: string;
    source: SanctionsSource;
    file_name: string;
    entry_count: number;
    loaded_at: Date | string;
    loaded_by: string;
    current: boolean;
  }>`select v.id, v.source, v.file_name, v.entry_count, v.loaded_at, v.loaded_by,
      v.id in (select distinct on (source) id from sanctions_list_versions order by source, loaded_at desc, id) as current
    from sanctions_list_versions v order by v.loaded_at desc, v.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    source: r.source,
    fileName: r.file_name,
    entryCount: r.entry_count,
    loadedAt: new Date(r.loaded_at).toISOString(),
    loadedBy: r.loaded_by,
    current: r.current,
  }));
}

/** The status of a hit; undefined when there is none of that id. */
export async function hitStatus(db: Db, id: string): Promise<Hit['status'] | undefined> {
  const { rows } = await sql<{ status: Hit['status'] }>`select status from sanctions_hits where id = ${id}`.execute(db);
  return rows[0]?.status;
}

/** Decides an open hit; false when there is no open hit of that id. */
export async function decideHit(db: Db, id: string, status: 'confirmed' | 'dismissed', reason: string | null, decidedBy: string, at: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`update sanctions_hits set status = ${status}, reason = ${reason}, decided_by = ${decidedBy}, decided_at = ${at}
    where id = ${id} and status = 'open' returning id`.execute(db);
  return rows.length > 0;
}

/** The newest version id of each source, as one key: the screening index is rebuilt when it changes. */
export async function currentVersionKey(db: Db): Promise<string> {
  const { rows } = await sql<{ id: string }>`select distinct on (source) id from sanctions_list_versions order by source, loaded_at desc, id`.execute(db);
  return rows
    .map((r) => r.id)
    .sort()
    .join(',');
}
