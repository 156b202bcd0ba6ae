// The funnel's catch-up after a long absence (a bulk load, a restore, a migration, an outage):
// docs/reference/funnel.md, "How it is kept".
//
// The upkeep follows the audit log in transactions of 2,000 entries (0024): each notes the journeys
// it passes and applies them (funnel_apply), which reads every such journey's position and events
// again by index and adds its stays to the sums with nested loops, sized for the few moves of a
// tick. Ten million entries behind, that is 5,000 transactions and more than a quarter of an hour.
// funnel_catch_up does the same work for a deal at once: when at least `min_entries` entries wait
// below the horizon, it recomputes the kept funnel of every deal they name from its events
// (funnel_rebuild, one pass over the deal's events) and moves the cursor to the last entry below the
// horizon, in the upkeep's transaction (REPEATABLE READ, the funnel_upkeep row taken first), as
// funnel_follow would. Every entry below the horizon is of a transaction that has ended, so its
// events are in the rebuild's snapshot or were never written; an entry at or above the horizon
// is followed later as ever, and applying a journey again is idempotent (funnel_apply takes only
// events after the position's last_seq). Entries that name no deal's journey are passed over as
// funnel_follow passes them. Returns the entries passed (0: fewer than `min_entries` wait).
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function funnel_catch_up(min_entries integer) returns integer language plpgsql as $$
    declare cur record; horizon xid8; waiting integer; last_xid xid8; last_position bigint; deal_ids text[]; d text;
    begin
      select followed_xid, followed_position into cur from funnel_upkeep where id = 1;
      select coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot())) into horizon
      from pg_snapshot_xip(pg_current_snapshot()) x
      where not exists (select 1 from pg_stat_activity s
        where s.backend_xid = x::xid and s.datname is not null and s.datname <> current_database());
      select count(*)::int into waiting from (select 1 from audit_log a
        where (a.xid, a.position) > (cur.followed_xid, cur.followed_position) and a.xid < horizon limit min_entries) w;
      if waiting < min_entries then return 0; end if;
      select count(*)::int, array_agg(distinct deal_id) filter (where deal_id is not null)
      into waiting, deal_ids
      from (select case when a.type in ('journey.moved', 'event.edited') and a.change ->> 'investorUserId' is not null
          then coalesce(a.deal_id, a.change ->> 'dealId') end as deal_id
        from audit_log a where (a.xid, a.position) > (cur.followed_xid, cur.followed_position) and a.xid < horizon) t;
      select a.xid, a.position into last_xid, last_position from audit_log a
      where (a.xid, a.position) > (cur.followed_xid, cur.followed_position) and a.xid < horizon
      order by a.xid desc, a.position desc limit 1;
      foreach d in array coalesce(deal_ids, '{}') loop
        perform funnel_rebuild(d);
      end loop;
      update funnel_upkeep set followed_xid = last_xid, followed_position = last_position where id = 1;
      return waiting;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function funnel_catch_up(integer)`.execute(db);
}
