import { newResult, type CheckResult } from '../support/report.ts';
export async function outage(): Promise<CheckResult> {
  const result = newResult('5 outage');
  result.skipped.push('not written yet');
  return result;
}
