// The benchmark's targets (docs/benchmarks.md), checked against a run's figures, and the terminal table.
import type { Measurement } from './load.ts';
import type { BaselineKind, Scenario } from './scenarios.ts';

export interface ScenarioResult {
  id: string;
  name: string;
  route?: string;
  connections?: number;
  compareTo?: BaselineKind;
  /** requests/s relative to the matching baseline's. */
  ratio?: number;
  unavailable?: string;
  measurement?: Measurement;
}

export interface TargetResult {
  id: string;
  description: string;
  scenarios: string[];
  /** undefined: could not be checked in this run (scenario unavailable, or not asked for). */
  met: boolean | undefined;
  value: string;
}

const MB = 1024 * 1024;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

export function toResult(scenario: Scenario, measurement: Measurement | undefined, baselines: Partial<Record<BaselineKind, Measurement>>): ScenarioResult {
  if ('unavailable' in scenario.load) return { id: scenario.id, name: scenario.name, unavailable: scenario.load.unavailable };
  const base = scenario.compareTo ? baselines[scenario.compareTo] : undefined;
  return {
    id: scenario.id,
    name: scenario.name,
    ...(scenario.route ? { route: scenario.route } : {}),
    connections: scenario.load.connections,
    ...(scenario.compareTo ? { compareTo: scenario.compareTo } : {}),
    ...(measurement && base && base.requestsPerSecond > 0 ? { ratio: measurement.requestsPerSecond / base.requestsPerSecond } : {}),
    ...(measurement ? { measurement } : {}),
  };
}

export function checkTargets(results: ScenarioResult[], scale: ScenarioResult[], peakRssBytes: number | undefined): TargetResult[] {
  const byId = new Map([...results, ...scale].map((r) => [r.id, r]));
  const m = (id: string) => byId.get(id)?.measurement;
  const targets: TargetResult[] = [];
  const add = (id: string, description: string, scenarios: string[], check: () => { met: boolean; value: string } | undefined) => {
    const outcome = scenarios.every((s) => m(s)) ? check() : undefined;
    targets.push({ id, description, scenarios, met: outcome?.met, value: outcome?.value ?? 'not measured' });
  };

  // Ratios in the same run against the bare baselines (bench/baseline-server.ts).
  const ratioTarget = (id: string, scenario: string, description: string, minimum: number) =>
    add(id, description, [scenario], () => {
      const ratio = byId.get(scenario)!.ratio ?? 0;
      return { met: ratio >= minimum, value: `${fmt(ratio, 2)}×` };
    });
  ratioTarget('reads-1', '1', "scenario 1 (workflow-status): at least 2× the read baseline's requests/s", 2);
  ratioTarget('reads-2', '2', "scenario 2 (investor-data): at least 0.8× the read baseline's requests/s", 0.8);
  ratioTarget('reads-2b', '2b', "scenario 2b (investor-data with If-None-Match): at least 0.8× the read baseline's requests/s", 0.8);
  ratioTarget('jump', '3a', 'scenario 3a (move, low contention): at least 0.7× the write baseline', 0.7);
  ratioTarget('jump-contention', '3b', 'scenario 3b (move, 10 investors): at least 0.5× the write baseline', 0.5);
  ratioTarget('subscription', '7', 'scenario 7 (subscription, new Idempotency-Key): at least 0.7× the write baseline', 0.7);
  for (const [deep, first, label] of [
    ['4b', '4a', 'without query'],
    ['4d', '4c', 'with query'],
  ] as const) {
    add(`deep-page-${deep}`, `scenario 4 ${label}: the deep page no slower than 2× page 1 (mean time, 1 connection)`, [first, deep], () => {
      const ratio = m(deep)!.meanMs / m(first)!.meanMs;
      return { met: ratio <= 2, value: `${fmt(m(deep)!.meanMs, 2)} ms vs ${fmt(m(first)!.meanMs, 2)} ms (${fmt(ratio, 2)}×)` };
    });
  }
  for (const id of ['4a', '4b', '4c', '4d']) {
    add(`list-p99-${id}`, `scenario ${id}: p99 under 50 ms`, [id], () => ({ met: m(id)!.p99Ms < 50, value: `p99 ${fmt(m(id)!.p99Ms)} ms` }));
  }
  const sizes = scale.filter((r) => r.id.endsWith('-p1') && r.measurement);
  if (sizes.length >= 2) {
    const smallest = sizes[0]!;
    const largest = sizes[sizes.length - 1]!;
    const size = (r: ScenarioResult) => `${Number(r.id.split('-')[1]).toLocaleString('en')} investors`;
    // p50 is whole milliseconds (autocannon); the mean time at 1 connection decides, p50 is shown.
    add('growth', `scenario 4 growth from ${size(smallest)} to ${size(largest)}: within 2× (mean time, 1 connection)`, [smallest.id, largest.id], () => {
      const a = smallest.measurement!;
      const b = largest.measurement!;
      const ratio = b.meanMs / a.meanMs;
      return { met: ratio <= 2, value: `${fmt(a.meanMs, 2)} → ${fmt(b.meanMs, 2)} ms (${fmt(ratio, 2)}×; p50 ${fmt(a.p50Ms)} → ${fmt(b.p50Ms)} ms)` };
    });
  } else {
    targets.push({
      id: 'growth',
      description: 'scenario 4 growth from 1,000 to 100,000 investors: p50 within 2×',
      scenarios: [],
      met: undefined,
      value: 'run with --scale',
    });
  }
  // Lists at a million investors (all-transactions) and searches that do not grow with the deal.
  for (const id of ['5a', '5b']) {
    add(`transactions-p99-${id}`, `scenario ${id}: all-transactions page 1 p99 under 20 ms`, [id], () => ({
      met: m(id)!.p99Ms < 20,
      value: `p99 ${fmt(m(id)!.p99Ms)} ms, mean ${fmt(m(id)!.meanMs, 2)} ms`,
    }));
  }
  add('search-p99-4c', 'scenario 4c: all-investor-workflows with query, p99 under 20 ms', ['4c'], () => ({
    met: m('4c')!.p99Ms < 20,
    value: `p99 ${fmt(m('4c')!.p99Ms)} ms`,
  }));
  const searched = scale.filter((r) => r.id.endsWith('-q') && r.measurement);
  if (searched.length >= 2) {
    const a = searched[0]!;
    const b = searched[searched.length - 1]!;
    add('growth-query', `scenario 4 with query, growth from the smallest to the largest deal: within 2× (mean time)`, [a.id, b.id], () => {
      const ratio = b.measurement!.meanMs / a.measurement!.meanMs;
      return { met: ratio <= 2, value: `${fmt(a.measurement!.meanMs, 2)} → ${fmt(b.measurement!.meanMs, 2)} ms (${fmt(ratio, 2)}×)` };
    });
  }
  add('references', 'scenario 6: payment references in under 100 ms (p99)', ['6'], () => ({ met: m('6')!.p99Ms < 100, value: `p99 ${fmt(m('6')!.p99Ms)} ms` }));
  targets.push({
    id: 'memory',
    description: 'resident memory of the service under load below 200 MB',
    scenarios: [],
    met: peakRssBytes === undefined ? undefined : peakRssBytes < 200 * MB,
    value: peakRssBytes === undefined ? 'not measured' : `peak ${fmt(peakRssBytes / MB, 0)} MB`,
  });
  return targets;
}

/** CPU ms per request: service + database + load generator ("?" where it could not be read). */
function cpuCell(cpu: Measurement['cpuPerRequestMs']): string {
  if (!cpu) return '';
  const part = (ms: number | undefined) => (ms === undefined ? '?' : ms.toFixed(2));
  return `${part(cpu.service)}+${part(cpu.database)}+${part(cpu.load)}`;
}

const mark = (met: boolean | undefined) => (met === undefined ? '–' : met ? 'met' : 'MISSED');

export function renderTable(results: ScenarioResult[], targets: TargetResult[]): string {
  const header = ['#', 'scenario', 'conns', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'errors', '409s', 'vs base', 'CPU ms/req svc+db+load', 'target'];
  const rows = results.map((r) => {
    const own = targets.filter((t) => t.scenarios.includes(r.id));
    const target = own.length === 0 ? '' : own.every((t) => t.met === true) ? 'met' : own.some((t) => t.met === false) ? 'MISSED' : '–';
    const me = r.measurement;
    if (!me) return [r.id, r.name, '', '', '', '', '', '', '', '', '', r.unavailable ? 'not available' : 'not run'];
    return [
      r.id,
      r.name,
      String(r.connections ?? ''),
      fmt(me.requestsPerSecond, 0),
      fmt(me.meanMs, 2),
      fmt(me.p50Ms),
      fmt(me.p99Ms),
      String(me.errors),
      me.tolerated ? String(me.tolerated) : '',
      r.ratio !== undefined ? `${fmt(r.ratio, 2)}× ${r.compareTo}` : '',
      cpuCell(me.cpuPerRequestMs),
      target,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 10 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), '', 'Targets:'];
  for (const t of targets) out.push(`  ${mark(t.met).padEnd(6)}  ${t.description}: ${t.value}`);
  return out.join('\n');
}

/** How p50 grows with the size of the deal, for --scale. */
export function renderScale(scale: ScenarioResult[]): string {
  const measured = scale.filter((r) => r.measurement);
  if (measured.length === 0) return `Scale: ${scale[0]?.unavailable ?? 'not measured'}`;
  const out = ['Scale (scenario 4, 1 connection):'];
  const firsts = new Map<string, number>();
  for (const r of measured) {
    const kind = r.id.split('-').pop()!;
    const p50 = r.measurement!.p50Ms;
    if (!firsts.has(kind)) firsts.set(kind, r.measurement!.meanMs);
    const growth = r.measurement!.meanMs / firsts.get(kind)!;
    out.push(
      `  ${r.name.padEnd(80)} mean ${fmt(r.measurement!.meanMs, 2).padStart(7)} ms  p50 ${fmt(p50).padStart(5)} ms  p99 ${fmt(r.measurement!.p99Ms).padStart(5)} ms  ×${fmt(growth, 2)} (mean)`,
    );
  }
  return out.join('\n');
}
