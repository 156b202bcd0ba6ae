// Every change of a journey's version (journeys.audit_seq: a move, an event edit, an audit entry
// appended to its chain, a seed) NOTIFYs the deal's id on the feed channel, so that every instance
// drops the versions it keeps for a journey read's 304 (operations/caches.ts, JourneyVersions). In
// the database, so that no path that changes the version can forget it. PostgreSQL folds identical
// notifications of one transaction into one: a move, which already notifies its deal for the live
// stream, sends nothing more.
//
// Updates: a row trigger whose WHEN is true only when the version changed (an update of another
// column, an investor's rename, costs nothing; a statement trigger would keep transition tables of
// every update of a journey). Inserts and deletes: statement triggers over the transition tables the
// list counts keep already, for a journey that starts with a version (a seed) or goes with one.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function journeys_version_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dealflow_feed', new.deal_id);
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_version_notify after update of audit_seq on journeys
    for each row when (old.audit_seq is distinct from new.audit_seq) execute function journeys_version_notify()`.execute(db);

  await sql`create function journeys_version_notify_insert() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dealflow_feed', d.deal_id) from (select distinct deal_id from new_rows where audit_seq > 0) d;
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_version_notify_insert after insert on journeys
    referencing new table as new_rows for each statement execute function journeys_version_notify_insert()`.execute(db);

  await sql`create function journeys_version_notify_delete() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dealflow_feed', d.deal_id) from (select distinct deal_id from old_rows where audit_seq > 0) d;
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_version_notify_delete after delete on journeys
    referencing old table as old_rows for each statement execute function journeys_version_notify_delete()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger journeys_version_notify_delete on journeys`.execute(db);
  await sql`drop function journeys_version_notify_delete()`.execute(db);
  await sql`drop trigger journeys_version_notify_insert on journeys`.execute(db);
  await sql`drop function journeys_version_notify_insert()`.execute(db);
  await sql`drop trigger journeys_version_notify on journeys`.execute(db);
  await sql`drop function journeys_version_notify()`.execute(db);
}
