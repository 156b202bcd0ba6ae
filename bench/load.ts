// One measurement: a warm-up, then a fixed-duration autocannon run, with the service's resident
// memory sampled throughout. Statuses other than the expected ones are errors, except those listed
// as `tolerated` (the 409s of a contended jump), which are counted on their own.
import autocannon from 'autocannon';
import { sampleCpu, sampleResidentMemory } from './processes.ts';

/** Rows of the baseline table (bench/baseline-server.ts). */
export const BASELINE_ROWS = 1000;

/** Unexpected responses kept per measurement. */
const UNEXPECTED_KEPT = 20;

export interface LoadSpec {
  method: 'GET' | 'POST' | 'PUT';
  /** A fixed path, or one made per request (spreading load over investors, rows, keys). */
  path: string | (() => string);
  body?: unknown | (() => unknown);
  headers?: Record<string, string> | (() => Record<string, string>);
  /** Statuses that count as success. */
  expect: readonly number[];
  /** Statuses counted separately, neither success nor error. */
  tolerated?: readonly number[];
  connections: number;
}

export interface Timing {
  warmupSeconds: number;
  seconds: number;
}

export interface Measurement {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * Mean time per request: elapsed time × connections / answers. At 1 connection this is the mean
   * service time as the client sees it, in fractions of a millisecond (autocannon's percentiles are
   * whole milliseconds, too coarse to compare 1 ms with 2 ms).
   */
  meanMs: number;
  /** Connection errors, timeouts and unexpected statuses. */
  errors: number;
  /** Responses with a tolerated status (e.g. 409 under contention). */
  tolerated: number;
  statuses: Record<string, number>;
  peakRssBytes: number | undefined;
  /** The first unexpected response, to say what went wrong. */
  firstError?: string;
  /** Every unexpected response (status and the start of its body), up to UNEXPECTED_KEPT, to say which and why. */
  unexpected?: string[];
  /**
   * CPU time per answered request, in ms, during the measured run: the server under test (for
   * PGlite, the database's work too), the PostgreSQL backends of the bench's database, and the
   * load generator (this process). Unlike requests/s these barely depend on what else the machine
   * runs, so they say where a request's cost goes even on a busy machine.
   */
  cpuPerRequestMs?: { service?: number; database?: number; load: number };
}

const evaluate = <T>(value: T | (() => T)): T => (typeof value === 'function' ? (value as () => T)() : value);

function run(url: string, spec: LoadSpec, seconds: number, token: string, onUnexpected: (status: number, body: string) => void) {
  const ok = new Set([...spec.expect, ...(spec.tolerated ?? [])]);
  return autocannon({
    url,
    connections: spec.connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: spec.method,
        setupRequest: (request) => {
          const body = spec.body === undefined ? undefined : evaluate(spec.body);
          return {
            ...request,
            method: spec.method,
            path: evaluate(spec.path),
            headers: {
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
              ...(spec.headers ? evaluate(spec.headers) : {}),
            },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          };
        },
        onResponse: (status, body) => {
          if (!ok.has(status)) onUnexpected(status, body);
        },
      },
    ],
  });
}

/** Warms up, then measures; `pid` is the server whose memory is sampled. */
export async function measure(
  url: string,
  spec: LoadSpec,
  timing: Timing,
  token: string,
  pid: number,
  /** The PostgreSQL database the server uses, to count its backends' CPU (omitted for PGlite). */
  databaseName?: string,
): Promise<Measurement> {
  let firstError: string | undefined;
  const unexpected: string[] = [];
  const onUnexpected = (status: number, body: string) => {
    firstError ??= `${status} ${body.slice(0, 300)}`;
    if (unexpected.length < UNEXPECTED_KEPT) unexpected.push(`${status} ${body.slice(0, 500)}`);
  };
  if (timing.warmupSeconds > 0) await run(url, spec, timing.warmupSeconds, token, () => {});
  const memory = sampleResidentMemory(pid);
  const cpu = sampleCpu(pid, databaseName);
  const result = await run(url, spec, timing.seconds, token, onUnexpected);
  const { peakBytes } = memory.stop();
  const used = cpu.stop();

  const statuses: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = Number(count ?? 0);
  const count = (list: readonly number[] | undefined) => (list ?? []).reduce((sum, s) => sum + (statuses[String(s)] ?? 0), 0);
  const expected = count(spec.expect);
  const tolerated = count(spec.tolerated);
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    requests: result.requests.total,
    requestsPerSecond: expected / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: answered > 0 ? (result.duration * 1000 * spec.connections) / answered : 0,
    errors: result.errors + (answered - expected - tolerated), // autocannon counts timeouts among errors
    tolerated,
    statuses,
    peakRssBytes: peakBytes || undefined,
    ...(firstError ? { firstError, unexpected } : {}),
    ...(answered > 0
      ? {
          cpuPerRequestMs: {
            ...(used.serviceMs !== undefined ? { service: used.serviceMs / answered } : {}),
            ...(used.databaseMs !== undefined ? { database: used.databaseMs / answered } : {}),
            load: used.loadMs / answered,
          },
        }
      : {}),
  };
}
