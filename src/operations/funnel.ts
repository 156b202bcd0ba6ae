// GET /deals/deal/{dealId}/funnel and …/funnel/daily (admin): where a deal's investors stand, how
// they got there, how long they stay, and the money committed at each step (store/funnel.ts).
import { CALENDAR_DATE_RULE, isCalendarDate } from '../domain/calendar-date.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { findDeal } from '../store/deals.ts';
import { type FunnelFilter, findStepsByIds, readFunnel, readFunnelDays } from '../store/funnel.ts';
import {
  applyPendingFunnel,
  catchUpFunnelByRebuild,
  FUNNEL_BATCH,
  findFunnelBacklog,
  findFunnelMark,
  hasReachedFunnelMark,
  isUpkeepConflict,
} from '../store/funnel-upkeep.ts';
import type { Deps } from './deps.ts';
import { type Periodic, runEvery } from './periodic.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

export interface FunnelStep {
  stepId: string;
  label: string;
  type: string;
  /** False for a step of an older version that the current one no longer has. */
  current: boolean;
  standing: number;
  entered: number;
  left: number;
  conversions: { toStepId: string; investors: number; rate: number | null }[];
  timeInStep: { medianMs: number | null; p90Ms: number | null };
  committed: { currency: string; total: string; investors: number }[];
  pendingEditRequests: number;
}

export interface Funnel {
  dealId: string;
  workflowVersion: number;
  /** Seconds since the oldest move or edit the figures do not count yet was made (0: they count every one). */
  lag: number;
  filter: { enteredFrom: string | null; enteredTo: string | null; classification: string | null };
  investors: number;
  steps: FunnelStep[];
}

const isDay = isCalendarDate;

/** Checks day parameters (YYYY-MM-DD, a real date) and that each pair is in order. */
function checkDays(values: Record<string, string | undefined>, pairs: [string, string][]): void {
  const errors = [];
  for (const [field, v] of Object.entries(values)) {
    if (v !== undefined && !isDay(v)) errors.push({ in: 'query' as const, field, detail: CALENDAR_DATE_RULE });
  }
  for (const [a, b] of pairs) {
    if (errors.length === 0 && values[a] && values[b] && values[a]! > values[b]!)
      errors.push({ in: 'query' as const, field: b, detail: `must not be before ${a}` });
  }
  if (errors.length > 0) throw invalid(errors, `The query is not valid: ${errors.map((e) => `${e.field} ${e.detail}`).join('; ')}`);
}

const checkFilter = (filter: FunnelFilter) => checkDays({ enteredFrom: filter.enteredFrom, enteredTo: filter.enteredTo }, [['enteredFrom', 'enteredTo']]);

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 10_000) / 10_000);

/**
 * Audit entries waiting from which the upkeep recomputes the deals they name rather than following
 * them 2,000 at a time (docs/benchmarks.md, "The funnel's catch-up").
 */
export const CATCH_UP_BY_REBUILD = 100_000;

/** How long a fresh read waits, at most, for transactions that hold the funnel back to end. */
export const FRESH_WAIT_MS = 5000;

/**
 * Brings the kept funnel up to the audit log (migrations 0017 and 0024): everything there is
 * (`until: 'empty'`, the background upkeep; it stops when a run finds nothing it may take, such as
 * entries of a transaction that is still behind an older one), or everything committed before the
 * call (`until: 'now'`, a fresh read: it stops at the log's end as the call found it, however many
 * moves keep coming; it gives up after FRESH_WAIT_MS without progress, waiting for older transactions to end). When another
 * upkeep (the background one, another instance's) holds the work, waits for it and goes on with
 * what it left. Nothing to do (an idle instance's tick): one index probe, no transaction, no write.
 */
export async function catchUpFunnel(deps: Pick<Deps, 'db'>, until: 'empty' | 'now' = 'empty'): Promise<number> {
  const run = async () => {
    try {
      return await applyPendingFunnel(deps.db);
    } catch (err) {
      if (!isUpkeepConflict(err)) throw err;
      return 1; // another upkeep did the work: look again
    }
  };
  // A long backlog (a bulk load, a restore, an outage) is taken in by recomputing the deals it
  // names, one pass over their events, instead of thousands of batches (migration 0031). Looked
  // for once per call, and only behind a full batch: a tick that keeps up pays nothing for it.
  let looked = false;
  const rebuild = async (n: number) => {
    if (looked || n < FUNNEL_BATCH) return 0;
    looked = true;
    try {
      return await catchUpFunnelByRebuild(deps.db, CATCH_UP_BY_REBUILD);
    } catch (err) {
      if (!isUpkeepConflict(err)) throw err;
      return 1; // another upkeep did the work: look again
    }
  };
  let done = 0;
  if (until === 'empty') {
    if (!(await findFunnelBacklog(deps.db)).waiting) return 0;
    // One transaction a tick while it keeps up: a run that took less than a full batch reached the
    // horizon, and what arrives meanwhile waits for the next tick, in one batch, rather than a
    // transaction per move or two.
    for (let n = await run(); n > 0; n = n >= FUNNEL_BATCH ? await run() : 0) done += n + (await rebuild(n));
    return done;
  }
  const mark = await findFunnelMark(deps.db);
  let waited = 0;
  while (waited < FRESH_WAIT_MS && !(await hasReachedFunnelMark(deps.db, mark))) {
    const n = await run();
    done += n + (await rebuild(n));
    if (n > 0) continue;
    await new Promise((resolve) => setTimeout(resolve, 5));
    waited += 5;
  }
  return done;
}

/** Seconds (millisecond precision) since the oldest change the funnel has yet to take in was made; 0 when it has taken in everything. */
export async function funnelLag(deps: Pick<Deps, 'db' | 'clock'>): Promise<number> {
  const backlog = await findFunnelBacklog(deps.db);
  if (backlog.oldestAt === undefined) return 0;
  return Math.max(0, deps.clock().getTime() - backlog.oldestAt.getTime()) / 1000;
}

/**
 * Runs `catchUpFunnel` every `intervalMs` until stopped (in `serve` and in `dealflow worker`), so
 * the funnel trails the moves by about one interval and a read has little left to apply. Safe
 * with many instances: their upkeeps take turns on the funnel_upkeep row.
 */
export function startFunnelUpkeep(
  deps: Pick<Deps, 'db'>,
  intervalMs: number,
  log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void },
): Periodic {
  const upkeep = async () => {
    const applied = await catchUpFunnel(deps);
    if (applied > 0) log.debug({ applied }, 'took moves and edits into the funnel');
  };
  return runEvery(intervalMs, upkeep, (err) => log.warn({ err }, 'keeping the funnel failed'));
}

/** How a funnel read treats the upkeep's lag: as it is (the default), or caught up first (`fresh`). */
export interface FunnelReading {
  fresh?: boolean | undefined;
}

export async function getFunnel(deps: Deps, dealId: string, filter: FunnelFilter, reading: FunnelReading = {}): Promise<Funnel> {
  checkFilter(filter);
  const loaded = await loadWorkflow(deps, dealId);
  if (!loaded) throw (await findDeal(deps.db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
  // The kept funnel trails the moves by the upkeep's lag (it follows the audit log after their
  // commit). A fresh read brings it up to what committed before the request, on the primary; the
  // lag is taken before the figures are read, so they are at least as current as it says. A
  // replica shows them as of its replay, as every list it serves.
  if (reading.fresh) await catchUpFunnel(deps, 'now');
  const lag = await funnelLag(deps);
  const { db } = forReading(deps);
  const rows = await readFunnel(db, dealId, filter);
  const byStep = new Map(rows.steps.map((s) => [s.stepId, s]));
  // The current version's steps in getWorkflowStatus's order, then older steps that still have figures.
  const views = loaded.view.steps.map((s) => ({
    id: s.id,
    label: s.label,
    type: s.type as string,
    current: true,
    next: s.nextStepLinks.map((l) => l.toStepId),
  }));
  const known = new Set(views.map((v) => v.id));
  const older = await findStepsByIds(
    db,
    [...new Set([...byStep.keys(), ...rows.transitions.map((t) => t.fromStepId)])].filter((id) => !known.has(id)),
  );
  const all = [...views, ...older.map((s) => ({ id: s.id, label: s.label, type: s.type, current: false, next: [] as string[] }))];
  const steps = all.map((view): FunnelStep => {
    const figures = byStep.get(view.id);
    const entered = figures?.entered ?? 0;
    const taken = rows.transitions.filter((t) => t.fromStepId === view.id);
    // Each next step of the graph (0 when nobody took it yet), then any other step investors went to.
    const targets = [...view.next, ...taken.map((t) => t.toStepId).filter((id) => !view.next.includes(id))];
    return {
      stepId: view.id,
      label: view.label,
      type: view.type,
      current: view.current,
      standing: figures?.standing ?? 0,
      entered,
      left: figures?.left ?? 0,
      conversions: targets.map((toStepId) => {
        const investors = taken.find((t) => t.toStepId === toStepId)?.investors ?? 0;
        return { toStepId, investors, rate: rate(investors, entered) };
      }),
      timeInStep: { medianMs: figures?.medianMs ?? null, p90Ms: figures?.p90Ms ?? null },
      committed: rows.money
        .filter((m) => m.stepId === view.id)
        .map(({ currency, total, investors }) => ({ currency, total, investors }))
        .sort((a, b) => (a.currency < b.currency ? -1 : 1)),
      pendingEditRequests: rows.pending.find((p) => p.stepId === view.id)?.requests ?? 0,
    };
  });
  return {
    dealId,
    workflowVersion: loaded.workflow.version,
    lag,
    filter: { enteredFrom: filter.enteredFrom ?? null, enteredTo: filter.enteredTo ?? null, classification: filter.classification ?? null },
    investors: steps.reduce((sum, s) => sum + s.standing, 0),
    steps: steps.filter((s) => s.current || s.standing > 0 || s.entered > 0),
  };
}

export interface FunnelDays {
  dealId: string;
  from: string;
  to: string;
  lag: number;
  steps: { stepId: string; label: string }[];
  days: { date: string; steps: { stepId: string; standing: number; entered: number; left: number }[] }[];
}

const MAX_DAYS = 366;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000));

/** Per day (UTC) and step: investors standing there at the end of the day, stays entered and left that day. */
export async function getFunnelDays(
  deps: Deps,
  dealId: string,
  range: { from?: string | undefined; to?: string | undefined },
  filter: FunnelFilter,
  reading: FunnelReading = {},
): Promise<FunnelDays> {
  checkDays({ from: range.from, to: range.to, enteredFrom: filter.enteredFrom, enteredTo: filter.enteredTo }, [
    ['from', 'to'],
    ['enteredFrom', 'enteredTo'],
  ]);
  const to = range.to ?? dayOf(deps.clock());
  const from = range.from ?? addDays(to, -29);
  if (from > to) throw invalid([{ in: 'query', field: 'from', detail: 'must not be after to' }], 'from must not be after to');
  if (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`) >= MAX_DAYS * 86_400_000) {
    throw invalid([{ in: 'query', field: 'from', detail: `the range is at most ${MAX_DAYS} days` }], `The range is at most ${MAX_DAYS} days`);
  }
  const funnel = await getFunnel(deps, dealId, filter, reading);
  // Standing at the end of the day before `from`: standing now, less what every day since added.
  const rows = await readFunnelDays(forReading(deps).db, dealId, from, filter);
  const stepIds = funnel.steps.map((s) => s.stepId);
  const standing = new Map(funnel.steps.map((s) => [s.stepId, s.standing]));
  const byDay = new Map<string, Map<string, { entered: number; left: number }>>();
  for (const r of rows) {
    standing.set(r.stepId, (standing.get(r.stepId) ?? 0) - r.entered + r.left);
    const day = byDay.get(r.day) ?? new Map();
    day.set(r.stepId, { entered: r.entered, left: r.left });
    byDay.set(r.day, day);
  }
  const days: FunnelDays['days'] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const today = byDay.get(date);
    days.push({
      date,
      steps: stepIds.map((stepId) => {
        const moves = today?.get(stepId) ?? { entered: 0, left: 0 };
        const now = (standing.get(stepId) ?? 0) + moves.entered - moves.left;
        standing.set(stepId, now);
        return { stepId, standing: now, ...moves };
      }),
    });
  }
  return { dealId, from, to, lag: funnel.lag, steps: funnel.steps.map((s) => ({ stepId: s.stepId, label: s.label })), days };
}
