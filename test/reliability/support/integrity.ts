// Invariants of the stored journeys, checked in SQL after each storm: nothing half written.
import type pg from 'pg';

export interface JourneyEvent {
  id: string;
  seq: number;
  from_step_id: string | null;
  to_step_id: string;
}

/** Events of every journey, oldest first, keyed `dealId/investorUserId`. */
export async function journeys(pool: pg.Pool, dealIds?: string[]): Promise<Map<string, JourneyEvent[]>> {
  const { rows } = await pool.query<JourneyEvent & { deal_id: string; investor_user_id: string }>(
    `select id::text, deal_id, investor_user_id, seq, from_step_id, to_step_id from workflow_events
      ${dealIds ? 'where deal_id = any($1)' : ''} order by deal_id, investor_user_id, seq`,
    dealIds ? [dealIds] : [],
  );
  const out = new Map<string, JourneyEvent[]>();
  for (const row of rows) {
    const key = `${row.deal_id}/${row.investor_user_id}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push(row);
  }
  return out;
}

/**
 * Every journey linear (each event's fromStepId is the previous toStepId, the first one null),
 * sequence numbers 1..n, the journey row's position and count agreeing with its events, a payment
 * reference on every journey, the captured data and visited steps on its row agreeing with its
 * events, and revision 1 of every event's data kept (stored, or the event itself when never edited).
 */
export async function journeyFailures(pool: pg.Pool, dealIds?: string[]): Promise<string[]> {
  const failures: string[] = [];
  const all = await journeys(pool, dealIds);
  for (const [key, events] of all) {
    events.forEach((event, i) => {
      if (event.seq !== i + 1) failures.push(`${key}: event ${event.id} has seq ${event.seq}, expected ${i + 1}`);
      const expected = i === 0 ? null : events[i - 1]!.to_step_id;
      if (event.from_step_id !== expected) {
        failures.push(`${key}: event ${event.seq} comes from ${event.from_step_id}, but the journey stood at ${expected}`);
      }
    });
  }
  const params = dealIds ? [dealIds] : [];
  const filter = (alias: string) => (dealIds ? `and ${alias}.deal_id = any($1)` : '');
  const { rows: positions } = await pool.query(
    `select j.deal_id, j.investor_user_id, j.current_step_id, j.event_count, j.payment_reference,
            (select count(*)::int from workflow_events e where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id) as events,
            (select e.to_step_id from workflow_events e where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id order by seq desc limit 1) as last_step
       from journeys j where true ${filter('j')}`,
    params,
  );
  for (const j of positions) {
    const key = `${j.deal_id}/${j.investor_user_id}`;
    if (j.events === 0) failures.push(`${key}: a journey row without events`);
    if (j.event_count !== j.events) failures.push(`${key}: journey says ${j.event_count} events, ${j.events} stored`);
    if (j.events > 0 && j.current_step_id !== j.last_step) failures.push(`${key}: journey at ${j.current_step_id}, last event went to ${j.last_step}`);
    if (!j.payment_reference) failures.push(`${key}: investor with events has no payment reference`);
  }
  // What the journey row keeps of its events for the rules (migration 0021) agrees with them.
  const { rows: kept } = await pool.query(
    `select j.deal_id, j.investor_user_id from journeys j
      where j.event_count > 0 ${filter('j')} and (j.captured is distinct from
        (select coalesce(jsonb_object_agg(d.key, d.value order by e.seq), '{}') from workflow_events e cross join lateral jsonb_each(e.data) d
          where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id)
        or j.visited is distinct from (select array_agg(to_step_id order by first_seq) from (select to_step_id, min(seq) as first_seq from workflow_events e
          where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id group by 1) v))`,
    params,
  );
  for (const j of kept) failures.push(`${j.deal_id}/${j.investor_user_id}: the captured data or visited steps on the journey row disagree with its events`);
  const { rows: orphans } = await pool.query(
    `select e.id::text from workflow_events e
      where not exists (select 1 from journeys j where j.deal_id = e.deal_id and j.investor_user_id = e.investor_user_id) ${filter('e')}`,
    params,
  );
  for (const o of orphans) failures.push(`event ${o.id} has no journey position`);
  // An event never edited is its own revision 1 (migration 0042); one with revision rows has its
  // revision 1 row, and its data is its newest revision's.
  const { rows: unrevised } = await pool.query(
    `select e.id::text from workflow_events e
      where (exists (select 1 from event_revisions r where r.event_id = e.id)
          and not exists (select 1 from event_revisions r where r.event_id = e.id and r.revision = 1)
        or e.data is distinct from (select r.data from all_event_revisions r where r.event_id = e.id order by r.revision desc limit 1)) ${filter('e')}`,
    params,
  );
  if (unrevised.length > 0) failures.push(`${unrevised.length} event(s) without their first revision or off their newest, e.g. ${unrevised[0].id}`);
  return failures;
}
