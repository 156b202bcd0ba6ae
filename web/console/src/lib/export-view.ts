// Export of a deal's current view (filters and sort applied) as CSV: every matching investor, read
// page by page from the rows endpoint, then written by csv.ts (formula cells neutralised).
import { consoleApi, type RowParams, type Workflow } from './api.ts';
import { download, toCsv } from './csv.ts';
import { plainAmount } from './format.ts';

export async function exportRows(dealId: string, dealName: string, workflow: Workflow, params: RowParams, onProgress: (rows: number) => void) {
  const rows = [];
  for (let page = 1; ; page++) {
    const result = await consoleApi.rows(dealId, { ...params, page, limit: 100 });
    rows.push(...result.output);
    onProgress(rows.length);
    if (page >= result.totalPages) break;
  }
  const step = (id: string) => workflow.steps.find((s) => s.id === id)?.label ?? id;
  const csv = toCsv(
    [
      'investor_id',
      'full_name',
      'email',
      'step',
      'entered_step_at',
      'committed_amount',
      'currency',
      'received_amount',
      'remaining_amount',
      'payment_reference',
      'kyc_level',
      'classifications',
      'pending_edit_requests',
    ],
    // Amounts in one form, the currency's minor units (80000 and 60000.00 EUR as 80000.00 and 60000.00).
    rows.map((r) => [
      r.investorUserId,
      r.fullName,
      r.email,
      step(r.stepId),
      r.enteredStepAt,
      plainAmount(r.committedAmount, r.currency),
      r.currency,
      plainAmount(r.receivedAmount, r.currency),
      plainAmount(r.remainingAmount, r.currency),
      r.paymentReference,
      r.kycCheckLevel,
      r.classifications.join('; '),
      r.pendingEditRequests,
    ]),
  );
  const slug =
    dealName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || dealId;
  download(`${slug}-${new Date().toISOString().slice(0, 10)}.csv`, csv);
  return rows.length;
}
