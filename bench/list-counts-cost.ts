// What the list counts (migration 0014) add to a move: the journey UPDATE a move makes, timed inside
// the server (no network, so a busy machine blurs it less) with the counting trigger on and off, in
// alternating blocks; and the round trip that a statement sent by the application instead would
// cost. Usage (a migrated database with some journeys, e.g. one `npm run bench` seeds):
//   node bench/list-counts-cost.ts postgres://postgres@127.0.0.1:5432/<database>
import pg from 'pg';

const url = process.argv[2];
if (!url) throw new Error('usage: node bench/list-counts-cost.ts <database url>');
const client = new pg.Client({ connectionString: url });
await client.connect();
// One block: the same 500 journeys (standing at the first step) moved once each, in a transaction
// that is rolled back, so the database is left as it was.
const block = async (trigger: boolean, target: string): Promise<number> => {
  let result = Number.NaN;
  const listener = (n: { message?: string }) => (result = Number(n.message));
  client.on('notice', listener);
  await client
    .query(`
      do $$
      declare started timestamptz;
      begin
        alter table journeys ${trigger ? 'enable' : 'disable'} trigger journeys_lists_update;
        started := clock_timestamp();
        update journeys set current_step_id = deal_id || '.${target}', event_count = event_count + 1
        where (deal_id, investor_user_id) in (
          select deal_id, investor_user_id from journeys where current_step_id like '%.interest' and event_count = 1 order by deal_id, investor_user_id limit 500);
        raise notice '%', extract(epoch from clock_timestamp() - started) * 1e6 / 500;
        raise exception 'rolled back' using errcode = 'P0001';
      end $$`)
    .catch((err) => {
      if (err.code !== 'P0001') throw err;
    });
  client.off('notice', listener);
  return result;
};
const variants = [
  { label: 'trigger off, step type unchanged', trigger: false, target: 'commitment' },
  { label: 'trigger on,  step type unchanged', trigger: true, target: 'commitment' },
  { label: 'trigger off, step type changed  ', trigger: false, target: 'complete' },
  { label: 'trigger on,  step type changed  ', trigger: true, target: 'complete' },
].map((v) => ({ ...v, times: [] as number[] }));
for (let pass = 0; pass < 21; pass++) for (const v of variants) v.times.push(await block(v.trigger, v.target));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const trips: number[] = [];
for (let i = 0; i < 2000; i++) {
  const started = process.hrtime.bigint();
  await client.query({ name: 'trip', text: 'select 1' });
  trips.push(Number(process.hrtime.bigint() - started) / 1000);
}
trips.sort((a, b) => a - b);
const us = (n: number) => `${n.toFixed(1)} µs`;
for (const v of variants) console.log(`journey update, ${v.label}: median ${us(median(v.times))} per journey (21 blocks of 500)`);
console.log(`one more statement from the application instead: a round trip of median ${us(trips[1000]!)} (p10 ${us(trips[200]!)}), plus its execution`);
await client.end();
