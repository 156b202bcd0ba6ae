// Check 5, database outage, on a PostgreSQL cluster of our own (never the shared server): under a
// steady load of reads and writes, the database is (a) shut down and later started again, and (b)
// frozen (SIGSTOP: it accepts nothing and answers nothing, as behind a dead network link) and
// thawed. While it is away every answer is a 503 problem with Retry-After, none takes longer than
// the configured timeouts allow, the process survives, and it recovers by itself.
import { type Cluster, clusterUnavailable, createCluster } from '../support/cluster.ts';
import { createClient, isProblem, type Received, sleep } from '../support/http.ts';
import { freshDatabase, type FreshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { type Instance, startInstance } from '../support/service.ts';

const DATABASE_TIMEOUT_MS = 1000;
/** pg's connect timeout and statement timeout are DATABASE_TIMEOUT_MS; its read timeout 1 s more. */
const LONGEST_ALLOWED_MS = 2 * DATABASE_TIMEOUT_MS + 1000;
const DOWN_MS = 4000;

interface Sample extends Received {
  at: number;
  end: number;
  what: string;
}

export async function outage(): Promise<CheckResult> {
  const result = newResult('5 database outage');
  const started = performance.now();
  const why = clusterUnavailable();
  if (why) {
    result.skipped.push(`no throwaway cluster: ${why}`);
    return result;
  }
  let cluster: Cluster | undefined;
  let db: FreshDatabase | undefined;
  let service: Instance | undefined;
  try {
    cluster = await createCluster();
    db = await freshDatabase('outage', cluster.url);
    service = await startInstance({ databaseUrl: db.url, env: { DATABASE_TIMEOUT_MS: String(DATABASE_TIMEOUT_MS), DATABASE_POOL_SIZE: '5' } });
    const client = createClient(service.url);
    const admin = db.adminToken;
    const pid = service.pid;

    const samples: Sample[] = [];
    let running = true;
    let n = 0;
    const t0 = performance.now();
    const lane = async (kind: number) => {
      while (running) {
        const at = performance.now() - t0;
        const i = n++;
        const [what, response] =
          kind === 0
            ? ['PUT deal', await client.put(`/deals/deal/outage-${i}`, { name: `Outage ${i}` }, admin, {})]
            : kind === 1
              ? ['GET whoami', await client.get('/whoami', admin)]
              : ['GET readyz', await client.get('/readyz')];
        samples.push({ ...response, at, end: performance.now() - t0, what } as Sample);
        if (response.status !== 200 && response.status !== 201) await sleep(20);
      }
    };
    const lanes = [0, 0, 1, 1, 2].map(lane);

    const windows: { name: string; from: number; to: number; recoveredAt?: number }[] = [];
    const outageOf = async (name: string, down: () => void, up: () => void) => {
      await sleep(1500);
      down();
      const from = performance.now() - t0;
      await sleep(DOWN_MS);
      const to = performance.now() - t0;
      up();
      const w = { name, from, to, recoveredAt: undefined as number | undefined };
      windows.push(w);
      // Recovery by itself: the first request that succeeds after the database is back.
      const deadline = performance.now() + 20_000;
      while (performance.now() < deadline) {
        const ok = samples.find((s) => s.at > to && (s.status === 200 || s.status === 201) && s.what !== 'GET readyz');
        if (ok) {
          w.recoveredAt = ok.end;
          break;
        }
        await sleep(100);
      }
      await sleep(1500);
    };
    await outageOf(
      'shutdown',
      () => cluster!.stop(),
      () => cluster!.start(),
    );
    await outageOf(
      'freeze',
      () => cluster!.freeze(),
      () => cluster!.thaw(),
    );
    running = false;
    await Promise.all(lanes);

    let longest = 0;
    let unavailable = 0;
    for (const w of windows) {
      // Requests that began while the database was away.
      const during = samples.filter((s) => s.at >= w.from && s.at < w.to);
      const wLongest = Math.max(0, ...during.map((s) => s.ms));
      longest = Math.max(longest, wLongest);
      for (const s of during) {
        if (s.status === 503) {
          unavailable++;
          if (!isProblem(s)) result.failures.push(`${w.name}: a 503 that is not a problem document`);
          if (!s.headers['retry-after']) result.failures.push(`${w.name}: a 503 without Retry-After`);
        } else if (s.status !== 200 && s.status !== 201) {
          result.failures.push(`${w.name}: ${s.what} got ${s.status} ${s.error ?? ''} ${s.text.slice(0, 200)}`);
        }
      }
      if (wLongest > LONGEST_ALLOWED_MS) result.failures.push(`${w.name}: a request took ${Math.round(wLongest)} ms (allowed ${LONGEST_ALLOWED_MS})`);
      if (!during.some((s) => s.status === 503)) result.failures.push(`${w.name}: no 503 while the database was away`);
      if (w.recoveredAt === undefined) result.failures.push(`${w.name}: did not recover within 20 s of the database coming back`);
      result.figures[`${w.name}: requests while down`] = during.length;
      result.figures[`${w.name}: longest ms`] = Math.round(wLongest);
      result.figures[`${w.name}: recovered after ms`] = w.recoveredAt === undefined ? 'never' : Math.round(w.recoveredAt - w.to);
    }
    const serverErrors = samples.filter((s) => s.status >= 500 && s.status !== 503);
    const noAnswer = samples.filter((s) => s.status === 0);
    if (serverErrors.length)
      result.failures.push(`${serverErrors.length} answers ≥ 500 other than 503, e.g. ${serverErrors[0]!.status} ${serverErrors[0]!.text.slice(0, 200)}`);
    if (noAnswer.length) result.failures.push(`${noAnswer.length} requests got no answer, e.g. ${noAnswer[0]!.error}`);
    if (!service.alive() || service.pid !== pid) result.failures.push(`the service died:\n${service.output()}`);
    const tail = samples.filter((s) => s.at > windows.at(-1)!.to + 1000);
    if (!tail.length || tail.some((s) => s.status !== 200 && s.status !== 201)) result.failures.push('not every request succeeded after recovery');
    result.figures = {
      requests: samples.length,
      '503 while down': unavailable,
      'longest request while down ms': Math.round(longest),
      DATABASE_TIMEOUT_MS: DATABASE_TIMEOUT_MS,
      ...result.figures,
    };
    client.close();
    return result;
  } finally {
    result.ms = performance.now() - started;
    await service?.stop().catch(() => {});
    cluster?.thaw();
    await db?.drop();
    cluster?.destroy();
  }
}
