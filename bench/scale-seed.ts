// `bench --scale` data, written by the database itself: generate_series in INSERT … SELECT
// statements, no rows through Node. A directory of investors (1,000,000), deals of given sizes
// (100,000, 10,000, 1,000 investors) and filler deals of 50,000 until the events reach their
// target (10,000,000). Deals and workflows are made by the service's own operations (putDeal,
// putWorkflow: the demo workflow); journeys and events (each its own revision 1, as a move leaves it) are generated along the
// demo workflow's KYC path (interest → commitment → KYC → documents → payment → complete, stopping
// anywhere, some withdrawn), with every required field captured, so each is a journey the jump
// rules would accept for these investors (all of KYC level 2 or 3). Unlike `dealflow seed` the
// moves are not replayed through planMove one by one: that is what makes a million fast.
//
// Each journey's audit chain is written as `dealflow seed --investors` writes it (store/bulk.ts), and
// the funnel is taken in from it by the upkeep, as after any move, so a --scale database has both.
// Like that seed, and unlike the demo deal (whose moves go through the move path), it writes no feed
// entries: the feed of a --scale deal starts with the first move the bench makes.
//
// Journeys are inserted normally, so the triggers on them run (the name copy, deal_journey_counts),
// but for the list counts' per-statement trigger: those are computed once at the end from all
// journeys (rebuildListCounts), which is what the trigger would have arrived at. Events, the bulk of the rows, are inserted with
// session_replication_role = replica when the role may (a superuser, as on a bench server): that
// skips their foreign-key checks, one per row and column, which the generation satisfies by
// construction. GIN indexes are dropped for the load and built again after it.
import { type Kysely, sql } from 'kysely';
import { putDeal } from '../src/operations/deals.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { demoWorkflow } from '../src/operations/seed.ts';
import { putWorkflow } from '../src/operations/workflows.ts';
import { rebuildListCounts } from '../src/store/active-investors.ts';
import { auditSeededJourneys } from '../src/store/bulk.ts';
import { catchUpFunnel } from '../src/operations/funnel.ts';
import { recomputeCaptured } from '../src/store/journeys.ts';
import type { DB } from '../src/store/schema.ts';

import { forenames } from '../src/operations/seed-people.ts';

export interface ScalePlan {
  directory: number;
  dealSizes: number[];
  events: number;
  fillerDealSize: number;
}

export const FULL_SCALE: ScalePlan = { directory: 1_000_000, dealSizes: [100_000, 10_000, 1_000], events: 10_000_000, fillerDealSize: 50_000 };
export const QUICK_SCALE: ScalePlan = { directory: 20_000, dealSizes: [2_000, 500, 200], events: 100_000, fillerDealSize: 5_000 };

// Surnames: 2,000 made of two parts, drawn with a skew (the first ones common, most rare), as a real
// directory's are; `dealflow seed`'s 30 surnames would give every surname 3.3% of a million.
const surnameStarts = [
  'Ash',
  'Black',
  'Brad',
  'Brook',
  'Carl',
  'Chad',
  'Clay',
  'Cole',
  'Dal',
  'Dun',
  'Elm',
  'Fair',
  'Fen',
  'Gar',
  'Glad',
  'Hart',
  'Hal',
  'Hay',
  'Kent',
  'Kings',
  'Lang',
  'Lind',
  'Mar',
  'Mid',
  'Nor',
  'Oak',
  'Pem',
  'Red',
  'Rose',
  'Shel',
  'Stan',
  'Stock',
  'Sut',
  'Thorn',
  'Wal',
  'West',
  'Whit',
  'Win',
  'Wood',
  'Yar',
];
const surnameEnds = [
  'by',
  'bury',
  'combe',
  'croft',
  'dale',
  'den',
  'don',
  'er',
  'field',
  'ford',
  'gate',
  'grove',
  'ham',
  'hill',
  'holm',
  'hurst',
  'ing',
  'ington',
  'ley',
  'low',
  'man',
  'mere',
  'more',
  'ney',
  'ridge',
  'sey',
  'shaw',
  'son',
  'stead',
  'stone',
  'ston',
  'thorpe',
  'ton',
  'wall',
  'ward',
  'well',
  'wick',
  'win',
  'wood',
  'worth',
  'en',
  'ell',
  'ett',
  'ick',
  'ins',
  'iss',
  'or',
  'ow',
  'ry',
  'ey',
];
const surnames = surnameStarts.flatMap((start) => surnameEnds.map((end) => start + end));
/** Index of the surname for a uniform u in [0, 1): u^1.5 favours the first (about 0.6% for the first, 0.03% in the middle). */
const SURNAME_SKEW = 1.5;
const PATH = ['interest', 'commitment', 'kyc', 'documents', 'payment', 'complete'];
const textArray = (items: string[]) => sql`array[${sql.join(items.map((s) => sql.lit(s)))}]::text[]`;

export interface ScaleSeedResult {
  dealIds: string[];
  journeys: number;
  events: number;
  seconds: { investors: number; deals: number; indexes: number; total: number };
}

export async function seedScale(db: Kysely<DB>, plan: ScalePlan, log: (line: string) => void): Promise<ScaleSeedResult> {
  const started = Date.now();
  const run = newUuid().replace(/-/g, '').slice(0, 12);
  const { rows: roles } = await sql<{ superuser: boolean }>`select rolsuper as superuser from pg_roles where rolname = current_user`.execute(db);
  const bypassChecks = roles[0]?.superuser === true;

  // GIN indexes (the trigram searches) are dropped for the load and built again after it: one build
  // is several times faster than a million insertions. Their definitions come from the catalog, so
  // whatever the migrations made is made again as it was.
  const { rows: ginIndexes } = await sql<{ name: string; definition: string }>`
    select c.relname as name, pg_get_indexdef(c.oid) as definition
    from pg_index x join pg_class c on c.oid = x.indexrelid join pg_am a on a.oid = c.relam
    where a.amname = 'gin' and c.relnamespace = current_schema()::regnamespace`.execute(db);
  for (const index of ginIndexes) await sql`drop index ${sql.id(index.name)}`.execute(db);
  // The list counts are computed once at the end, from all the journeys, instead of per statement.
  await sql`alter table journeys disable trigger journeys_lists_insert`.execute(db);

  const CHUNK = 100_000;
  for (let from = 1; from <= plan.directory; from += CHUNK) {
    const to = Math.min(plan.directory, from + CHUNK - 1);
    await db.transaction().execute(async (trx) => {
      await sql`
        insert into investors (id, remote_id, data_source, team_user_id, kyc_check_level, contact, full_name, email, status, created_at, updated_at)
        select id, 'crm-' || id, 'crm', null, 2 + n % 2,
          jsonb_build_object('guid', 'guid-' || id, 'externalId', null, 'userType', 1, 'status', status,
            'contact', jsonb_build_object('forename', f, 'middleNames', null, 'surname', s, 'title', null, 'nickname', null,
              'dateOfBirth', '1970-01-0' || (1 + n % 9), 'email', email),
            'username', email, 'profilePhotoFileKey', null, 'name', f || ' ' || s,
            'classifications', jsonb_build_array(jsonb_build_object('investorClassId', 'class-sophisticated', 'organisation', null,
              'investorClass', 'sophisticated', 'name', 'Sophisticated')),
            'fullName', f || ' ' || s, 'tfaEnabled', n % 3 > 0, 'compliance', 'approved'),
          f || ' ' || s, email, status, now(), now()
        from (
          select n, ${`sc${run}-`} || n as id, f, s, case when n % 10 = 0 then 'inactive' else 'active' end as status,
            regexp_replace(translate(lower(f || '.' || s), 'éáüí', 'eaui'), '[^a-z.]', '', 'g') || '.' || n || '@example.com' as email
          from generate_series(${from}::bigint, ${to}::bigint) n,
            lateral (select (${textArray(forenames)})[1 + abs(hashint8(n)::bigint) % ${forenames.length}] as f,
                            (${textArray(surnames)})[1 + floor(${surnames.length} * power((abs(hashint8(n + 7777777)::bigint) % 1000000) / 1000000.0, ${SURNAME_SKEW}))::int] as s) names
        ) x`.execute(trx);
    });
    log(`investors ${to.toLocaleString('en')} / ${plan.directory.toLocaleString('en')} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  const investorsSeconds = (Date.now() - started) / 1000;

  const deps = { db, clock: systemClock, newId: newUuid };
  const dealIds: string[] = [];
  let journeys = 0;
  let events = 0;
  const sizes = [...plan.dealSizes];
  const timings = { journeys: 0, events: 0 };
  for (let d = 0; d < sizes.length || events < plan.events; d++) {
    const size = sizes[d] ?? plan.fillerDealSize;
    const dealId = `scale-${run}-${d + 1}`;
    await putDeal(deps, dealId, { name: `Scale deal ${d + 1} (${size.toLocaleString('en')} investors)`, currency: 'EUR' });
    await putWorkflow(deps, dealId, demoWorkflow(dealId));
    const offset = (d * 104_729) % plan.directory;
    let mark = Date.now();
    const made = await db.transaction().execute(async (trx) => {
      // Investor k of the deal: (offset + 7k) mod directory, distinct for k < directory (7 is prime to 10^n).
      await sql`
        insert into journeys (deal_id, investor_user_id, current_step_id, event_count, payment_reference, started_at, moved_at)
        select ${dealId}, ${`sc${run}-`} || (1 + (${offset} + 7 * k) % ${plan.directory}),
          ${dealId} || '.' || case when withdrawn then 'withdrawn' else (${textArray(PATH)})[len] end,
          len + withdrawn::int,
          'RF' || lpad((98 - ((body || '271500')::numeric % 97))::text, 2, '0') || body,
          start, start + (len + withdrawn::int - 1) * interval '1 day'
        from generate_series(0, ${size - 1}) k,
          lateral (select 1 + abs(hashint8(k * 1000 + ${d})::bigint) % 6 as len) l,
          lateral (select len between 2 and 5 and abs(hashint8(k * 31 + ${d} + 99)::bigint) % 7 = 0 as withdrawn,
                          '9' || lpad((${d} * 10000000 + k)::text, 14, '0') as body,
                          now() - (20 + abs(hashint8(k + ${d})::bigint) % 100) * interval '1 day' - interval '10 days' as start) w`.execute(trx);
      timings.journeys += Date.now() - mark;
      mark = Date.now();
      if (bypassChecks) await sql`set local session_replication_role = replica`.execute(trx);
      const { rows } = await sql<{ n: string }>`
        with steps as (
          select j.deal_id, j.investor_user_id, e, j.started_at + (e - 1) * interval '1 day' as at,
            case when e <= len then (${textArray(PATH)})[e] else 'withdrawn' end as name,
            case when e = 1 then null else (${textArray(PATH)})[e - 1] end as previous
          from journeys j,
            lateral (select j.event_count - (j.current_step_id like '%.withdrawn')::int as len) l,
            generate_series(1, j.event_count) e
          where j.deal_id = ${dealId}
        ), inserted as (
          insert into workflow_events (id, deal_id, investor_user_id, seq, from_step_id, to_step_id, data, created_by_user_id, created_at)
          select (${run} || lpad(to_hex(nextval('scale_seed_event_ids')), 20, '0'))::uuid, deal_id, investor_user_id, e,
            deal_id || '.' || previous, deal_id || '.' || name,
            case name
              when 'interest' then '{"source": "website"}'::jsonb
              when 'commitment' then '{"committed_amount": "25000.00", "currency": "EUR"}'::jsonb
              when 'kyc' then jsonb_build_object('kyc_reference', 'KYC-' || investor_user_id)
              when 'documents' then jsonb_build_object('agreement_signed_on', to_char(at, 'YYYY-MM-DD'))
              when 'payment' then jsonb_build_object('amount_received', '25000.00', 'received_on', to_char(at, 'YYYY-MM-DD'))
              when 'withdrawn' then '{"reason": "timing"}'::jsonb
              else '{}'::jsonb end,
            'seed', at
          from steps
          returning 1
        )
        -- No revision rows: an event never edited is its own revision 1 (migration 0034).
        select count(*)::text as n from inserted`.execute(trx);
      // What a move's write keeps on the journey row (migration 0021), from the events just written.
      await recomputeCaptured(trx, dealId);
      // Their audit chains, as `dealflow seed` writes them (store/bulk.ts); the funnel follows from them.
      await auditSeededJourneys(trx, dealId);
      timings.events += Date.now() - mark;
      return Number(rows[0]!.n);
    });
    dealIds.push(dealId);
    journeys += size;
    events += made;
    log(
      `deal ${d + 1}: ${size.toLocaleString('en')} journeys, ${made.toLocaleString('en')} events; ${events.toLocaleString('en')} events in all (${((Date.now() - started) / 1000).toFixed(0)} s; journeys ${timings.journeys} ms, events ${timings.events} ms)`,
    );
  }
  // The funnel, taken in from the audit log by the upkeep every move goes through (operations/funnel.ts).
  const funnel = Date.now();
  await catchUpFunnel({ db }, 'now');
  log(`funnel taken in from the audit log in ${((Date.now() - funnel) / 1000).toFixed(0)} s`);
  const counting = Date.now();
  await db.transaction().execute(async (trx) => {
    await sql`alter table journeys enable trigger journeys_lists_insert`.execute(trx);
    await rebuildListCounts(trx);
  });
  log(`list counts computed in ${((Date.now() - counting) / 1000).toFixed(0)} s`);
  const indexing = Date.now();
  await db.connection().execute(async (connection) => {
    await sql`set maintenance_work_mem = '512MB'`.execute(connection);
    for (const index of ginIndexes) await sql.raw(index.definition).execute(connection);
    await sql`reset maintenance_work_mem`.execute(connection);
  });
  const indexSeconds = (Date.now() - indexing) / 1000;
  log(`${ginIndexes.length} GIN indexes built again in ${indexSeconds.toFixed(0)} s`);
  const total = (Date.now() - started) / 1000;
  return { dealIds, journeys, events, seconds: { investors: investorsSeconds, deals: total - investorsSeconds - indexSeconds, indexes: indexSeconds, total } };
}

/** The sequence behind the seeded events' ids; made before and dropped after a seed. */
export async function withEventIds<T>(db: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  await sql`create sequence if not exists scale_seed_event_ids`.execute(db);
  try {
    return await work();
  } finally {
    await sql`drop sequence if exists scale_seed_event_ids`.execute(db);
  }
}
