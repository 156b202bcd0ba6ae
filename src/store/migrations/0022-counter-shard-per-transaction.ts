// The kept counters spread over 16 rows (journeys with an event per deal, 0008; listed investors,
// 0011) took a random row per statement. A transaction that moves many investors (a chunk of a bulk
// request: one write statement whose row triggers add to the listed count once per investor) then
// locked several of those rows in a random order, and two such transactions deadlocked. Each
// transaction now adds to one row, chosen by its transaction id: transactions still spread over the
// 16 rows, and one holds at most one row of each counter, so none can wait for another in a cycle.
import { type Kysely, sql } from 'kysely';

const journeyCounts = {
  insert: 'select deal_id, count(*) filter (where event_count > 0) as delta from new_rows group by deal_id',
  delete: 'select deal_id, -count(*) filter (where event_count > 0) as delta from old_rows group by deal_id',
  update: `select n.deal_id, sum((n.event_count > 0)::int - (o.event_count > 0)::int) as delta
      from new_rows n join old_rows o on o.deal_id = n.deal_id and o.investor_user_id = n.investor_user_id group by n.deal_id`,
};

const listed = {
  insert: 'select count(*) as delta from new_rows where active',
  update: 'select new.active::int - old.active::int as delta',
  delete: 'select -old.active::int as delta',
};

async function define(db: Kysely<any>, shard: string) {
  for (const [op, rows] of Object.entries(journeyCounts)) {
    await sql
      .raw(`create or replace function journeys_count_${op}() returns trigger language plpgsql as $$
      begin
        insert into deal_journey_counts (deal_id, shard, journeys)
        select deal_id, ${shard}, delta from (${rows}) changes where delta <> 0
        on conflict (deal_id, shard) do update set journeys = deal_journey_counts.journeys + excluded.journeys;
        return null;
      end $$`)
      .execute(db);
  }
  for (const [op, rows] of Object.entries(listed)) {
    await sql
      .raw(`create or replace function investor_deal_counts_listed_${op}() returns trigger language plpgsql as $$
      begin
        insert into listed_investor_counts (shard, investors)
        select ${shard}, delta from (${rows}) d where delta <> 0
        on conflict (shard) do update set investors = listed_investor_counts.investors + excluded.investors;
        return null;
      end $$`)
      .execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  // The transaction's id (assigned already: it is writing), so every statement of it picks the same row.
  await define(db, '(pg_current_xact_id()::text::bigint % 16)::smallint');
}

export async function down(db: Kysely<any>): Promise<void> {
  await define(db, 'floor(random() * 16)::smallint');
}
