// What the lists need at 100,000 investors (measured with `npm run bench`; docs/benchmarks.md).
//
// 1. Search: `query` / `nameOrEmail` match anywhere in the full name or e-mail, any case: ILIKE
//    '%text%', which only a trigram index serves (pg_trgm, bundled with PostgreSQL and with PGlite).
// 2. All-investor-workflows is ordered by the investor's full name. Joining every journey of a deal to
//    the directory and sorting made page 500 of a 100,000-investor deal walk 10,000 investors; a copy
//    of the name on the journey (journeys.investor_full_name, kept by triggers: set when the journey
//    is created, rewritten when the investor's name changes) puts a page on one index range.
// 3. Page wrappers need the number of journeys of a deal: counting 100,000 index entries per request
//    grows with the deal. deal_journey_counts keeps it, maintained by triggers on journeys, in 16
//    rows per deal (a random one per change) so that first moves of one deal do not queue on one row.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Installed once per database, in the current schema unless it is there already (then its
  // operator class is named with the schema it lives in).
  await sql`create extension if not exists pg_trgm`.execute(db);
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const trgm = sql.raw(`${sql.id(rows[0]!.schema).compile(db).sql}.gin_trgm_ops`);
  await sql`create index investors_full_name_trgm on investors using gin (full_name ${trgm})`.execute(db);
  await sql`create index investors_email_trgm on investors using gin (email ${trgm})`.execute(db);

  await sql`alter table journeys add column investor_full_name text`.execute(db);
  await sql`update journeys j set investor_full_name = i.full_name from investors i where i.id = j.investor_user_id`.execute(db);
  await sql`alter table journeys alter column investor_full_name set not null`.execute(db);
  await sql`create function journeys_copy_investor_name() returns trigger language plpgsql as $$
    begin
      new.investor_full_name := (select full_name from investors where id = new.investor_user_id);
      return new;
    end $$`.execute(db);
  await sql`create trigger journeys_copy_investor_name before insert or update of investor_user_id on journeys
    for each row execute function journeys_copy_investor_name()`.execute(db);
  await sql`create function investors_rename_journeys() returns trigger language plpgsql as $$
    begin
      update journeys set investor_full_name = new.full_name where investor_user_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger investors_rename_journeys after update of full_name on investors
    for each row when (old.full_name is distinct from new.full_name) execute function investors_rename_journeys()`.execute(db);
  // Journeys listed are those with an event (a row with none exists only inside a first move).
  await sql`create index journeys_deal_name on journeys (deal_id, investor_full_name, investor_user_id) where event_count > 0`.execute(db);

  await sql`create table deal_journey_counts (
    deal_id text not null references deals (id),
    shard smallint not null,
    journeys bigint not null,
    primary key (deal_id, shard))`.execute(db);
  await sql`insert into deal_journey_counts (deal_id, shard, journeys)
    select deal_id, 0, count(*) from journeys where event_count > 0 group by deal_id`.execute(db);
  // Statement-level, over the transition tables: a bulk insert (a seed) adds to one row per deal once,
  // instead of updating the same rows once per journey.
  const add = (rows: string) => `
    insert into deal_journey_counts (deal_id, shard, journeys)
    select deal_id, floor(random() * 16)::smallint, delta from (${rows}) changes where delta <> 0
    on conflict (deal_id, shard) do update set journeys = deal_journey_counts.journeys + excluded.journeys`;
  const counters = {
    insert: add('select deal_id, count(*) filter (where event_count > 0) as delta from new_rows group by deal_id'),
    delete: add('select deal_id, -count(*) filter (where event_count > 0) as delta from old_rows group by deal_id'),
    update: add(`select n.deal_id, sum((n.event_count > 0)::int - (o.event_count > 0)::int) as delta
      from new_rows n join old_rows o on o.deal_id = n.deal_id and o.investor_user_id = n.investor_user_id group by n.deal_id`),
  };
  for (const [op, statement] of Object.entries(counters)) {
    await sql
      .raw(`create function journeys_count_${op}() returns trigger language plpgsql as $$
      begin
        ${statement};
        return null;
      end $$`)
      .execute(db);
    const transition = op === 'insert' ? 'new table as new_rows' : op === 'delete' ? 'old table as old_rows' : 'old table as old_rows new table as new_rows';
    await sql
      .raw(`create trigger journeys_count_${op} after ${op} on journeys referencing ${transition}
      for each statement execute function journeys_count_${op}()`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const op of ['insert', 'delete', 'update']) {
    await sql.raw(`drop trigger journeys_count_${op} on journeys`).execute(db);
    await sql.raw(`drop function journeys_count_${op}()`).execute(db);
  }
  await sql`drop table deal_journey_counts`.execute(db);
  await sql`drop index journeys_deal_name`.execute(db);
  await sql`drop trigger investors_rename_journeys on investors`.execute(db);
  await sql`drop function investors_rename_journeys()`.execute(db);
  await sql`drop trigger journeys_copy_investor_name on journeys`.execute(db);
  await sql`drop function journeys_copy_investor_name()`.execute(db);
  await sql`alter table journeys drop column investor_full_name`.execute(db);
  await sql`drop index investors_email_trgm`.execute(db);
  await sql`drop index investors_full_name_trgm`.execute(db);
}
