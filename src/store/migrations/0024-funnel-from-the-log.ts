// The funnel followed from the audit log, and a move's transaction without derived work
// (docs/reference/database.md, "What a move writes"; docs/reference/funnel.md, "How it is kept").
//
// Since 0017 a move noted its journey for the funnel: a statement trigger on workflow_events (a
// PL/pgSQL call, a transition table of the new rows, an insert into funnel_pending and its index).
// Every move and every edit already writes an entry to the audit log, whose (xid, position) order
// is indexed (audit_log_order) and readable below the oldest running transaction (the checkpoints
// read it so, 0018): a reader that follows it misses and repeats nothing. The funnel's upkeep now
// follows that log with a cursor kept in its one row (funnel_upkeep), turns the `journey.moved` and
// `event.edited` entries it passes into pending journeys, and applies them as before (funnel_apply).
// The move writes only what the rules and the proof need. funnel_pending stays for what is not a
// move: a change of an investor's classes (funnel_investors_update, rekey).
//
// The other derived work on a move's tables, measured per move (docs/reference/database.md):
// - journeys_count_update, a statement trigger with transition tables on every update of journeys,
//   counts journeys with an event per deal; only a journey's first event changes it. A row trigger
//   with a WHEN on that change costs a move nothing else (no transition table is built).
// - journeys_deal_version indexed (deal, workflow_version) for the workflow migration, which reads
//   every journey of the deal behind the new version: after a version change that is nearly all of
//   them, the deal's range of the primary key serves as well. Every move paid an entry in it.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop trigger funnel_events_insert on workflow_events`.execute(db);
  await sql`drop trigger funnel_events_update on workflow_events`.execute(db);
  await sql`drop function funnel_events_insert()`.execute(db);
  await sql`drop function funnel_events_update()`.execute(db);

  // The cursor: the last audit entry the funnel has taken in. Entries up to now were noted by the
  // dropped triggers (their journeys are in funnel_pending or applied).
  await sql`alter table funnel_upkeep add column followed_xid xid8 not null default '0', add column followed_position bigint not null default 0`.execute(db);
  await sql`update funnel_upkeep u set followed_xid = a.xid, followed_position = a.position
    from (select xid, position from audit_log order by xid desc, position desc limit 1) a where u.id = 1`.execute(db);

  // Takes in up to max_rows audit entries after the cursor and below the horizon, notes the journeys
  // of moves and edits among them, and moves the cursor past them. Runs in the upkeep's
  // transaction, after it has taken the funnel_upkeep row, so two upkeeps never take in the same
  // entries. The horizon: the oldest transaction of the snapshot still running that may write this
  // database (an entry takes at least its writer's id, and a later writer a larger id), else the
  // snapshot's end. Transaction ids are the cluster's: the oldest running transaction overall
  // (pg_snapshot_xmin, as the checkpoints use) may be another database's, which never writes here,
  // and a long one there (a bulk load, a test run) would hold the funnel back. A transaction is
  // passed over only when pg_stat_activity shows it in another database (a fact that never
  // changes); one it does not show (ended since the snapshot, prepared, hidden from this role)
  // still holds the horizon, so the rule never errs the unsafe way.
  await sql`create function funnel_follow(max_rows integer) returns integer language plpgsql as $$
    declare cur record; taken integer; last_xid xid8; last_position bigint; horizon xid8;
    begin
      select followed_xid, followed_position into cur from funnel_upkeep where id = 1;
      select coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot())) into horizon
      from pg_snapshot_xip(pg_current_snapshot()) x
      where not exists (select 1 from pg_stat_activity s
        where s.backend_xid = x::xid and s.datname is not null and s.datname <> current_database());
      with taken as (
        select a.xid, a.position, a.type, coalesce(a.deal_id, a.change ->> 'dealId') as deal_id, a.change ->> 'investorUserId' as investor_user_id
        from audit_log a
        where (a.xid, a.position) > (cur.followed_xid, cur.followed_position) and a.xid < horizon
        order by a.xid, a.position limit max_rows
      ), noted as (
        insert into funnel_pending (deal_id, investor_user_id)
        select distinct deal_id, investor_user_id from taken
        where type in ('journey.moved', 'event.edited') and deal_id is not null and investor_user_id is not null
      )
      select count(*)::int, (array_agg(xid order by xid desc, position desc))[1], (array_agg(position order by xid desc, position desc))[1]
      into taken, last_xid, last_position from taken;
      if taken > 0 then
        update funnel_upkeep set followed_xid = last_xid, followed_position = last_position where id = 1;
      end if;
      return taken;
    end $$`.execute(db);

  // A journey's first event (or the removal of its only one) is what changes the count of journeys
  // with an event; the same shard choice as 0022 (one row per transaction).
  await sql`drop trigger journeys_count_update on journeys`.execute(db);
  await sql`drop function journeys_count_update()`.execute(db);
  await sql`create function journeys_count_update() returns trigger language plpgsql as $$
    begin
      insert into deal_journey_counts (deal_id, shard, journeys)
      values (new.deal_id, (pg_current_xact_id()::text::bigint % 16)::smallint, case when new.event_count > 0 then 1 else -1 end)
      on conflict (deal_id, shard) do update set journeys = deal_journey_counts.journeys + excluded.journeys;
      return null;
    end $$`.execute(db);
  await sql`create trigger journeys_count_update after update of event_count on journeys for each row
    when ((old.event_count > 0) is distinct from (new.event_count > 0)) execute function journeys_count_update()`.execute(db);

  await sql`drop index journeys_deal_version`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0024-funnel-from-the-log cannot be undone; restore a backup taken before it');
}
