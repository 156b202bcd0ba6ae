import { newResult, type CheckResult } from '../support/report.ts';
export async function limits(): Promise<CheckResult> {
  const result = newResult('7 limits');
  result.skipped.push('not written yet');
  return result;
}
