// Lists that stay flat at a million investors (docs/benchmarks.md, "Lists at a million investors").
//
// 1. all-transactions: per-investor counts of journeys by the type of the step each stands at,
//    kept by triggers in the writing transaction (investor_deal_counts), with a copy of what the
//    list orders and searches on (name, e-mail, active) so that a page is one range of one
//    partial index and a search is one trigram bitmap over listed investors only. The number of
//    listed investors (for totalPages without a search) is kept too, in 16 rows picked at random
//    per change so that first moves of new investors do not queue on one row.
// 2. all-investor-workflows with `query`: deal_investor_search holds one narrow row per journey
//    with an event, with a trigram index that also holds the deal (btree_gin), so a search reads
//    the deal's matches only and never the rest of the directory; counting them needs no sort.
//    It is written when a journey gets its first event and when an investor is renamed, never by
//    later moves, so the write path does not pay for a GIN insertion per move.
//
// Triggers rather than calls from the application: every writer of journeys (moves, approved
// withdrawals, bulk seeds, whatever comes later) keeps the counts right without knowing of them,
// and a move whose step type does not change (most moves) costs two primary-key lookups in the
// trigger and no write. Inserts are handled per statement (a bulk seed adds its rows in one
// grouped statement); updates per row, filtered by a WHEN clause evaluated before any function
// call.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create extension if not exists btree_gin`.execute(db);
  const opclass = async (extension: string, name: string) => {
    const { rows } = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = ${extension}`.execute(db);
    return sql.raw(`${sql.id(rows[0]!.schema).compile(db).sql}.${name}`);
  };
  const trgm = await opclass('pg_trgm', 'gin_trgm_ops');
  const textGin = await opclass('btree_gin', 'text_ops');

  // ---- all-transactions ----
  await sql`create table investor_deal_counts (
    investor_user_id text primary key references investors (id),
    full_name text not null,
    email text,
    active boolean not null,
    completed integer not null,
    in_progress integer not null,
    total integer not null,
    search text generated always as (full_name || E'\n' || coalesce(email, '')) stored
  ) with (fillfactor = 80)`.execute(db);
  await sql`create index investor_deal_counts_page on investor_deal_counts (full_name, investor_user_id) where active`.execute(db);
  await sql`create index investor_deal_counts_search on investor_deal_counts using gin (search ${trgm}) where active`.execute(db);
  await sql`create table listed_investor_counts (shard smallint primary key, investors bigint not null)`.execute(db);

  // ---- all-investor-workflows search ----
  await sql`create table deal_investor_search (
    deal_id text not null,
    investor_user_id text not null,
    full_name text not null,
    email text,
    search text generated always as (full_name || E'\n' || coalesce(email, '')) stored,
    -- No foreign key to journeys: the triggers below are its only writer, and a check per first
    -- move (and per seeded journey) would be paid for nothing.
    primary key (deal_id, investor_user_id)
  )`.execute(db);
  await sql`create index deal_investor_search_trgm on deal_investor_search using gin (deal_id ${textGin}, search ${trgm})`.execute(db);

  // Step type → which count a journey adds to; a journey without an event counts nowhere.
  await sql`create function journey_count_kind(step_id text, event_count integer) returns text
    language sql stable as $$
      select case when event_count > 0 then (select type from workflow_steps where id = step_id) end
    $$`.execute(db);

  // Adds one investor's deltas, creating the row (with the directory's name, e-mail, status).
  await sql`create function investor_deal_counts_add(investor text, d_completed integer, d_in_progress integer, d_total integer) returns void
    language plpgsql as $$
    begin
      if d_completed = 0 and d_in_progress = 0 and d_total = 0 then return; end if;
      insert into investor_deal_counts (investor_user_id, full_name, email, active, completed, in_progress, total)
      select i.id, i.full_name, i.email, i.status = 'active', d_completed, d_in_progress, d_total from investors i where i.id = investor
      on conflict (investor_user_id) do update set
        completed = investor_deal_counts.completed + excluded.completed,
        in_progress = investor_deal_counts.in_progress + excluded.in_progress,
        total = investor_deal_counts.total + excluded.total;
      -- A row exists only while the investor has a journey (the partial indexes need no total > 0,
      -- so a count changing is a HOT update that touches no index).
      if d_total < 0 then
        delete from investor_deal_counts where investor_user_id = investor and total <= 0;
      end if;
    end $$`.execute(db);

  // Moves (and any other update of a journey's position): per row.
  await sql`create function journeys_lists_update() returns trigger language plpgsql as $$
    declare
      was text;
      now_ text;
    begin
      -- One statement (two primary-key lookups): what each position counts as.
      select case when old.event_count > 0 then o.type end, case when new.event_count > 0 then n.type end into was, now_
      from workflow_steps n left join workflow_steps o on o.id = old.current_step_id
      where n.id = new.current_step_id;
      if was is distinct from now_ then
        perform investor_deal_counts_add(new.investor_user_id,
          coalesce((now_ = 'complete')::int, 0) - coalesce((was = 'complete')::int, 0),
          coalesce((now_ = 'default')::int, 0) - coalesce((was = 'default')::int, 0),
          (now_ is not null)::int - (was is not null)::int);
      end if;
      if old.event_count = 0 and new.event_count > 0 then
        insert into deal_investor_search (deal_id, investor_user_id, full_name, email)
        select new.deal_id, i.id, i.full_name, i.email from investors i where i.id = new.investor_user_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_lists_update after update of current_step_id, event_count on journeys
    for each row when (old.current_step_id is distinct from new.current_step_id or old.event_count is distinct from new.event_count)
    execute function journeys_lists_update()`.execute(db);

  // Inserts: per statement, so a bulk insert is one grouped write. A move's first insert has no
  // event yet (event_count 0) and adds nothing here; its update does.
  await sql`create function journeys_lists_insert() returns trigger language plpgsql as $$
    begin
      insert into investor_deal_counts (investor_user_id, full_name, email, active, completed, in_progress, total)
      select i.id, i.full_name, i.email, i.status = 'active', c.completed, c.in_progress, c.total from (
        select n.investor_user_id,
          count(*) filter (where s.type = 'complete')::int as completed,
          count(*) filter (where s.type = 'default')::int as in_progress,
          count(*)::int as total
        from new_rows n join workflow_steps s on s.id = n.current_step_id
        where n.event_count > 0 group by n.investor_user_id) c
      join investors i on i.id = c.investor_user_id
      on conflict (investor_user_id) do update set
        completed = investor_deal_counts.completed + excluded.completed,
        in_progress = investor_deal_counts.in_progress + excluded.in_progress,
        total = investor_deal_counts.total + excluded.total;
      insert into deal_investor_search (deal_id, investor_user_id, full_name, email)
      select n.deal_id, i.id, i.full_name, i.email from new_rows n join investors i on i.id = n.investor_user_id where n.event_count > 0;
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_lists_insert after insert on journeys referencing new table as new_rows
    for each statement execute function journeys_lists_insert()`.execute(db);

  // Deletes (only empty journeys are ever deleted, which count nowhere; kept right regardless).
  await sql`create function journeys_lists_delete() returns trigger language plpgsql as $$
    declare was text := journey_count_kind(old.current_step_id, old.event_count);
    begin
      perform investor_deal_counts_add(old.investor_user_id, -coalesce((was = 'complete')::int, 0), -coalesce((was = 'default')::int, 0), -1);
      delete from deal_investor_search where deal_id = old.deal_id and investor_user_id = old.investor_user_id;
      return old;
    end $$`.execute(db);
  await sql`create trigger journeys_lists_delete before delete on journeys
    for each row when (old.event_count > 0) execute function journeys_lists_delete()`.execute(db);

  // A re-applied workflow may change a step's type: move its journeys between the counts.
  await sql`create function workflow_steps_lists_type() returns trigger language plpgsql as $$
    begin
      perform investor_deal_counts_add(investor_user_id,
        n * ((new.type = 'complete')::int - (old.type = 'complete')::int),
        n * ((new.type = 'default')::int - (old.type = 'default')::int), 0)
      from (select investor_user_id, count(*)::int as n from journeys
            where current_step_id = new.id and event_count > 0 group by investor_user_id) j;
      return null;
    end $$`.execute(db);
  await sql`create trigger workflow_steps_lists_type after update of type on workflow_steps
    for each row when (old.type is distinct from new.type) execute function workflow_steps_lists_type()`.execute(db);

  // The directory's name, e-mail and status, copied where the lists read them.
  await sql`create function investors_lists_copy() returns trigger language plpgsql as $$
    begin
      update investor_deal_counts set full_name = new.full_name, email = new.email, active = new.status = 'active'
      where investor_user_id = new.id;
      if old.full_name is distinct from new.full_name or old.email is distinct from new.email then
        update deal_investor_search set full_name = new.full_name, email = new.email where investor_user_id = new.id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger investors_lists_copy after update of full_name, email, status on investors
    for each row when (old.full_name is distinct from new.full_name or old.email is distinct from new.email or old.status is distinct from new.status)
    execute function investors_lists_copy()`.execute(db);
  await sql`create index deal_investor_search_investor on deal_investor_search (investor_user_id)`.execute(db);

  // The number of listed investors (active, with a journey), kept across its 16 rows.
  const listed = (rows: string) => `
    insert into listed_investor_counts (shard, investors)
    select floor(random() * 16)::smallint, delta from (${rows}) d where delta <> 0
    on conflict (shard) do update set investors = listed_investor_counts.investors + excluded.investors`;
  await sql
    .raw(`create function investor_deal_counts_listed_insert() returns trigger language plpgsql as $$
    begin
      ${listed('select count(*) as delta from new_rows where active')};
      return null;
    end $$`)
    .execute(db);
  await sql`create trigger investor_deal_counts_listed_insert after insert on investor_deal_counts referencing new table as new_rows
    for each statement execute function investor_deal_counts_listed_insert()`.execute(db);
  await sql
    .raw(`create function investor_deal_counts_listed_update() returns trigger language plpgsql as $$
    begin
      ${listed('select new.active::int - old.active::int as delta')};
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create function investor_deal_counts_listed_delete() returns trigger language plpgsql as $$
    begin
      ${listed('select -old.active::int as delta')};
      return null;
    end $$`)
    .execute(db);
  await sql`create trigger investor_deal_counts_listed_delete after delete on investor_deal_counts
    for each row execute function investor_deal_counts_listed_delete()`.execute(db);
  await sql`create trigger investor_deal_counts_listed_update after update on investor_deal_counts
    for each row when (old.active is distinct from new.active)
    execute function investor_deal_counts_listed_update()`.execute(db);

  // Backfill what exists.
  await sql`insert into investor_deal_counts (investor_user_id, full_name, email, active, completed, in_progress, total)
    select i.id, i.full_name, i.email, i.status = 'active', c.completed, c.in_progress, c.total
    from (select j.investor_user_id,
            count(*) filter (where s.type = 'complete')::int as completed,
            count(*) filter (where s.type = 'default')::int as in_progress,
            count(*)::int as total
          from journeys j join workflow_steps s on s.id = j.current_step_id
          where j.event_count > 0 group by j.investor_user_id) c
    join investors i on i.id = c.investor_user_id`.execute(db);
  await sql`insert into deal_investor_search (deal_id, investor_user_id, full_name, email)
    select j.deal_id, i.id, i.full_name, i.email from journeys j join investors i on i.id = j.investor_user_id where j.event_count > 0`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger investors_lists_copy on investors`.execute(db);
  await sql`drop trigger workflow_steps_lists_type on workflow_steps`.execute(db);
  for (const t of ['journeys_lists_update', 'journeys_lists_insert', 'journeys_lists_delete']) await sql.raw(`drop trigger ${t} on journeys`).execute(db);
  await sql`drop table deal_investor_search`.execute(db);
  await sql`drop table listed_investor_counts`.execute(db);
  await sql`drop table investor_deal_counts`.execute(db);
  for (const f of [
    'investors_lists_copy()',
    'workflow_steps_lists_type()',
    'journeys_lists_update()',
    'journeys_lists_insert()',
    'journeys_lists_delete()',
    'investor_deal_counts_listed_insert()',
    'investor_deal_counts_listed_update()',
    'investor_deal_counts_listed_delete()',
    'investor_deal_counts_add(text, integer, integer, integer)',
    'journey_count_kind(text, integer)',
  ]) {
    await sql.raw(`drop function ${f}`).execute(db);
  }
}
