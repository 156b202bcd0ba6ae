// Figures of each check, printed as it finishes, and the one summary table at the end of the run.

export interface CheckResult {
  check: string;
  /** What was measured, in order: `requests: 500`, `applied: 312`… */
  figures: Record<string, number | string>;
  /** Losses, leaks, 5xx, hangs: any entry fails the run. */
  failures: string[];
  /** Parts that could not run here (a route not built yet), with the reason. */
  skipped: string[];
  ms: number;
}

const results: CheckResult[] = [];

export function newResult(check: string): CheckResult {
  return { check, figures: {}, failures: [], skipped: [], ms: 0 };
}

export function record(result: CheckResult) {
  results.push(result);
  const figures = Object.entries(result.figures)
    .map(([k, v]) => `${k}=${v}`)
    .join('  ');
  process.stdout.write(`\n[${result.check}] ${(result.ms / 1000).toFixed(1)} s  ${figures}\n`);
  for (const s of result.skipped) process.stdout.write(`[${result.check}] not checked: ${s}\n`);
  for (const f of result.failures.slice(0, 30)) process.stdout.write(`[${result.check}] FAILURE: ${f}\n`);
  if (result.failures.length > 30) process.stdout.write(`[${result.check}] … ${result.failures.length - 30} more failures\n`);
}

/** One row per check: verdict, time, figures. */
export function summaryTable(): string {
  const rows = results.map((r) => [
    r.check,
    r.failures.length > 0 ? `FAIL (${r.failures.length})` : r.skipped.length > 0 ? 'pass (partial)' : 'pass',
    `${(r.ms / 1000).toFixed(1)} s`,
    Object.entries(r.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  ]);
  const header = ['check', 'verdict', 'time', 'figures'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => Math.min(r[i]!.length, i === 3 ? 200 : 40))));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export const allResults = () => results;
