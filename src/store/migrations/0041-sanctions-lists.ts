// Sanctions lists and screening hits.
// - sanctions_list_versions: one row per load of a list file (source eu, uk, ofac or un); a newer
//   version of a source replaces the older one for screening, the older rows stay as history.
// - sanctions_entries: the entries of a version, with a fingerprint of what identifies the entry's
//   content, so a dismissal lapses when the list changes the entry.
// - sanctions_hits: an investor resembling an entry at or above the threshold. Open hits block the
//   investor's payment steps; a review confirms (the block stays) or dismisses with a reason.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table sanctions_list_versions (
    id uuid primary key,
    source text not null check (source in ('eu', 'uk', 'ofac', 'un')),
    file_name text not null,
    entry_count integer not null,
    loaded_at timestamptz(3) not null,
    loaded_by text not null
  )`.execute(db);
  await sql`create index sanctions_list_versions_source on sanctions_list_versions (source, loaded_at desc)`.execute(db);
  await sql`create table sanctions_entries (
    version_id uuid not null references sanctions_list_versions (id),
    source_id text not null,
    subject text not null check (subject in ('person', 'entity', 'other')),
    names text[] not null,
    birth_dates text[] not null,
    nationalities text[] not null,
    programmes text[] not null,
    fingerprint text not null,
    primary key (version_id, source_id)
  )`.execute(db);
  await sql`create table sanctions_hits (
    id uuid primary key,
    investor_id text not null references investors (id),
    source text not null,
    source_id text not null,
    fingerprint text not null,
    version_id uuid not null references sanctions_list_versions (id),
    score numeric(4, 3) not null,
    matched_name text not null,
    status text not null check (status in ('open', 'confirmed', 'dismissed')),
    reason text,
    decided_by text,
    decided_at timestamptz(3),
    created_at timestamptz(3) not null,
    unique (investor_id, source, source_id, fingerprint)
  )`.execute(db);
  await sql`create index sanctions_hits_blocking on sanctions_hits (investor_id) where status <> 'dismissed'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table sanctions_hits`.execute(db);
  await sql`drop table sanctions_entries`.execute(db);
  await sql`drop table sanctions_list_versions`.execute(db);
}
