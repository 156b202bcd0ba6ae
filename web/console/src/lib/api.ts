// The service's API as the console uses it: the public routes of the interface and our
// admin-only /console read models. Every call carries the session's key or cookie (lib/http.ts); every
// shape is generated from openapi.json (lib/types.ts).
import { ApiError, call, download, qs, RawBody } from './http.ts';
import type * as T from './types.ts';

export * from './errors.ts';
export * from './http.ts';
export * from './types.ts';

const enc = encodeURIComponent;

/** A write's answer that is a proposal held for a second person (202), not the change itself. */
export const isHeld = (value: object): value is T.Approval => 'neededRole' in value && 'proposedBy' in value;

export const api = {
  whoami: (token?: string) => call<T.Whoami>('GET', '/whoami', undefined, token === undefined ? {} : { token }),
  deals: () => call<T.DealSummary[]>('GET', '/console/deals'),
  deal: (dealId: string) => call<T.Deal>('GET', `/deals/deal/${enc(dealId)}`),
  workflow: (dealId: string) => call<T.Workflow>('GET', `/deals/deal/${enc(dealId)}/workflow-status`),
  board: (dealId: string, query: string) => call<T.Board>('GET', `/console/deals/${enc(dealId)}/board${qs({ query })}`),
  cards: (dealId: string, stepId: string, query: string, page: number, limit: number) =>
    call<T.CardPage>('GET', `/console/deals/${enc(dealId)}/board/cards${qs({ stepId, query, page, limit })}`),
  investor: (dealId: string, investorUserId: string) => call<T.InvestorSummary>('GET', `/console/deals/${enc(dealId)}/investors/${enc(investorUserId)}`),
  journey: (dealId: string, investorUserId: string) => call<T.Journey>('GET', `/deals/deal/${enc(dealId)}/investor-data/${enc(investorUserId)}`),
  jump: (dealId: string, body: T.Body<'jumpToStep'>) => call<T.WorkflowEvent>('POST', `/deals/deal/${enc(dealId)}/jump-to-step`, body),
  editEvent: (eventId: string, data: Record<string, string>, reason?: string) =>
    call<T.WorkflowEvent>('POST', `/deals/event/${enc(eventId)}/edit${qs({ reason })}`, data),
  funnel: (dealId: string, filter: T.Query<'getFunnel'> = {}) => call<T.Funnel>('GET', `/deals/deal/${enc(dealId)}/funnel${qs({ ...filter })}`),
  funnelDays: (dealId: string, filter: T.Query<'getFunnelDaily'> = {}) =>
    call<T.FunnelDays>('GET', `/deals/deal/${enc(dealId)}/funnel/daily${qs({ ...filter })}`),
  revisions: (eventId: string) => call<T.Revision[]>('GET', `/deals/event/${enc(eventId)}/revisions`),
  editRequests: (dealId: string, investorUserId: string) => call<T.EditRequest[]>('GET', `/deals/request-to-edit/filtered${qs({ dealId, investorUserId })}`),
  /** File an edit request about an event (staff for an investor, or the investor): a new amount, or withdrawal. */
  requestEdit: (body: T.Body<'createEditRequest'>) => call<T.EditRequest>('POST', '/deals/request-to-edit', body),
  decide: (requestId: string, decision: 'approve' | 'reject', reason?: string) =>
    call<T.EditRequest>('POST', `/deals/request-to-edit/${enc(requestId)}/${decision}`, reason ? { reason } : {}),
};

/** Import files (investors, moves, statements) larger than this are sent as an import job (Prefer: respond-async). */
export const ASYNC_IMPORT_BYTES = 1024 * 1024;

/** Reads an import job every second until it has finished; returns it as it ended. */
export async function followImportJob(id: string, onProgress: (job: T.ImportJob) => void): Promise<T.ImportJob> {
  for (;;) {
    const job = await call<T.ImportJob>('GET', `/imports/jobs/${encodeURIComponent(id)}`);
    onProgress(job);
    if (job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The options of a CSV read through a column map: how it is written, duplicates, the step its rows are placed in. */
export type MappedImport = Omit<T.Query<'importInvestors'>, 'dryRun' | 'columns'> & { columns: Record<string, string | null> };

/** `Prefer: respond-async` for a file over ASYNC_IMPORT_BYTES. */
const asyncAbove = (text: string): Record<string, string> => (text.length > ASYNC_IMPORT_BYTES ? { prefer: 'respond-async' } : {});

/**
 * An investor or move import's report: the synchronous answer, or the report of the import job it
 * started, followed to its end (onProgress: rows handled so far); a job's report keeps only the
 * refused rows, at most 1,000 (`fromJob`).
 */
async function reportOf(answer: T.ImportReport | T.ImportJob, onProgress?: (rows: number) => void): Promise<T.ImportReport & { fromJob?: boolean }> {
  if (!('kind' in answer)) return answer;
  const job = await followImportJob(answer.id, (j) => onProgress?.(j.progress.done));
  if (job.report) return { ...job.report, fromJob: true };
  throw new ApiError(job.problem?.status ?? 500, (job.problem ?? { detail: 'The import job failed' }) as Record<string, unknown>);
}

/** The console's calls beyond the first screens': set up deals, workflows and investors, run them. */
export const consoleApi = {
  people: (ids: string[]) => call<T.PersonName[]>('GET', `/console/people${qs({ ids: ids.join(',') })}`),
  directory: (query: string, page: number, limit = 20) => call<T.Directory>('GET', `/console/investors${qs({ query, page, limit })}`),
  inbox: (page = 1, limit = 50, dealId?: string) => call<T.Inbox>('GET', `/console/edit-requests${qs({ dealId, page, limit })}`),
  rows: (dealId: string, params: T.RowParams) => call<T.DealRows>('GET', `/console/deals/${enc(dealId)}/rows${qs({ ...params })}`),
  putDeal: (dealId: string, body: T.DealBody) => call<T.Deal>('PUT', `/deals/deal/${enc(dealId)}`, body),
  dealRecord: (dealId: string) => call<T.Deal>('GET', `/deals/deal/${enc(dealId)}`),
  // Replacing a workflow, or migrating its journeys, may be held for a second admin: 202 with the proposal (isHeld).
  putWorkflow: (dealId: string, body: T.WorkflowDocument) => call<T.Workflow | T.Approval>('PUT', `/deals/deal/${enc(dealId)}/workflow`, body),
  migrateWorkflow: (dealId: string, dryRun: boolean) =>
    call<T.Ok<'migrateWorkflow'> | T.Approval>('POST', `/deals/deal/${enc(dealId)}/workflow/migrate${dryRun ? '?dryRun=true' : ''}`, {}),
  checkWorkflow: (dealId: string, body: T.WorkflowDocument) => call<T.WorkflowCheck>('POST', `/console/deals/${enc(dealId)}/workflow/check`, body),
  /**
   * POST /investors/import with one PUT /investors body plus "id" per NDJSON line: the service's
   * per-row report. A file over ASYNC_IMPORT_BYTES is sent with `Prefer: respond-async`: the service
   * answers 202 with an import job, followed here to its end (onProgress: rows handled so far); its
   * report keeps only the refused rows (`fromJob`).
   */
  importInvestors: async (records: T.Investor[], dryRun: boolean, onProgress?: (rows: number) => void) => {
    const text = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    const body = new RawBody('application/x-ndjson', text, asyncAbove(text));
    return reportOf(await call<T.ImportReport | T.ImportJob>('POST', `/investors/import${qs({ dryRun: dryRun || undefined })}`, body), onProgress);
  },
  /**
   * POST /investors/import with a CSV file of any shape and the column map the service reads it
   * through (`columns`); as an import job with progress above ASYNC_IMPORT_BYTES.
   */
  importMappedCsv: async (text: string, options: MappedImport, dryRun: boolean, onProgress?: (rows: number) => void) => {
    const query = qs({ ...options, dryRun: dryRun || undefined, columns: JSON.stringify(options.columns) });
    return reportOf(await call<T.ImportReport | T.ImportJob>('POST', `/investors/import${query}`, new RawBody('text/csv', text, asyncAbove(text))), onProgress);
  },
  /**
   * POST /deals/deal/{dealId}/jump-to-step/import: a move file, its per-row report; as an import
   * job with progress above ASYNC_IMPORT_BYTES, whose report keeps only the refused rows (`fromJob`).
   */
  importMoves: async (dealId: string, text: string, onProgress?: (rows: number) => void) =>
    reportOf(
      await call<T.ImportReport | T.ImportJob>('POST', `/deals/deal/${enc(dealId)}/jump-to-step/import`, new RawBody('text/csv', text, asyncAbove(text))),
      onProgress,
    ),
  /** POST /payments/statements: a camt.053/054 (XML) or CSV bank file, with the CSV column map. */
  importStatement: async (
    text: string,
    type: string,
    csvColumns: T.Query<'importStatement'> = {},
    onProgress?: (job: T.ImportJob) => void,
  ): Promise<T.Ok<'importStatement'>> => {
    const answer = await call<T.Ok<'importStatement'> | T.ImportJob>(
      'POST',
      `/payments/statements${qs({ ...csvColumns })}`,
      new RawBody(type, text, asyncAbove(text)),
    );
    if (!('kind' in answer)) return answer;
    const job = await followImportJob(answer.id, (j) => onProgress?.(j));
    if (job.statementImport) return job.statementImport as T.Ok<'importStatement'>;
    throw new ApiError(job.problem?.status ?? 500, (job.problem ?? { detail: 'The import job failed' }) as Record<string, unknown>);
  },
  importJob: (id: string) => call<T.ImportJob>('GET', `/imports/jobs/${enc(id)}`),
  getInvestor: (id: string) => call<T.Investor>('GET', `/investors/${enc(id)}`),
  putInvestor: (id: string, body: T.InvestorRecord) => call<T.Investor>('PUT', `/investors/${enc(id)}`, body),
  activity: (dealId: string, before?: number, limit = 50) => call<T.Activity>('GET', `/console/deals/${enc(dealId)}/activity${qs({ before, limit })}`),
  /** POST /console/batches/{batchId}/undo: a write's moves put back, as new events (a single move's batch id is its event's id). */
  undoBatch: (batchId: string) => call<T.UndoResult>('POST', `/console/batches/${enc(batchId)}/undo`, {}),
  deliveries: (status: string | undefined, page: number) => call<T.Deliveries>('GET', `/webhooks/deliveries${qs({ status, page, limit: 50 })}`),
  retryDelivery: (id: string) => call<T.Delivery>('POST', `/webhooks/deliveries/${enc(id)}/retry`),
  sanctionsLists: () => call<T.SanctionsList[]>('GET', '/sanctions/lists'),
  sanctionsHits: (status: string, page: number) => call<T.SanctionsHitPage>('GET', `/sanctions/hits${qs({ status, page, limit: 50 })}`),
  decideHit: (hitId: string, decision: 'confirm' | 'dismiss', reason?: string) =>
    call<T.Ok<'setSanctionsHitConfirmed'>>('POST', `/sanctions/hits/${enc(hitId)}/${decision}`, reason ? { reason } : {}),
  /** Investors whose newest category statement expired or expires within `within` days (30 unless said). */
  expiringCategories: (params: { within?: number; dealId?: string; page?: number; limit?: number }) =>
    call<T.ExpiringCategories>('GET', `/investor-categories/expiring${qs({ ...params })}`),
  // Checks by the KYC provider: an investor's, and a new one for a level.
  kycChecks: (investorUserId: string) => call<T.KycChecks>('GET', `/investors/${enc(investorUserId)}/kyc-checks`),
  startKycCheck: (investorUserId: string, level: number) => call<T.KycCheck>('POST', `/investors/${enc(investorUserId)}/kyc-checks`, { level }),
  // KYC evidence: files waiting for a decision, the decisions, levels about to expire.
  kycReviews: (page: number) => call<T.KycReviews>('GET', `/kyc/reviews${qs({ page, limit: 20 })}`),
  decideKycDocument: (doc: Pick<T.KycReview, 'dealId' | 'investorUserId' | 'id'>, decision: 'accept' | 'reject', reason?: string) =>
    call<unknown>(
      'POST',
      `/deals/deal/${enc(doc.dealId)}/kyc/${enc(doc.investorUserId)}/documents/${enc(doc.id)}/${decision}`,
      decision === 'reject' ? { reason } : {},
    ),
  downloadKycDocument: (doc: Pick<T.KycReview, 'dealId' | 'investorUserId' | 'id' | 'fileName'>) =>
    download(`/deals/deal/${enc(doc.dealId)}/kyc/${enc(doc.investorUserId)}/documents/${enc(doc.id)}/content`, doc.fileName),
  expiringKyc: (page: number) => call<T.ExpiringKyc>('GET', `/kyc/expiring${qs({ page, limit: 20 })}`),
  // A deal's documents: the PDFs, their releases, who opened them.
  documents: (dealId: string) => call<T.DealDocument[]>('GET', `/deals/deal/${enc(dealId)}/documents`),
  uploadDocument: (dealId: string, title: string, file: Blob) =>
    call<T.DealDocument>('POST', `/deals/deal/${enc(dealId)}/documents${qs({ title })}`, new RawBody('application/pdf', file)),
  releaseDocument: (dealId: string, documentId: string, to: T.DocumentRelease) =>
    call<unknown>('POST', `/deals/deal/${enc(dealId)}/documents/${enc(documentId)}/releases`, to),
  documentReads: (dealId: string, documentId: string) => call<T.DocumentRead[]>('GET', `/deals/deal/${enc(dealId)}/documents/${enc(documentId)}/reads`),
  downloadDocument: (dealId: string, doc: Pick<T.DealDocument, 'id' | 'fileName'>) =>
    download(`/deals/deal/${enc(dealId)}/documents/${enc(doc.id)}/content`, doc.fileName),
  // Subscription agreements: the template, the agreements signed, the countersignature.
  uploadAgreementTemplate: (dealId: string, file: Blob) =>
    call<T.AgreementTemplate>('POST', `/deals/deal/${enc(dealId)}/agreement-template`, new RawBody('application/pdf', file)),
  agreements: (dealId: string) => call<T.Agreement[]>('GET', `/deals/deal/${enc(dealId)}/agreements`),
  countersigningOptions: (dealId: string, investorUserId: string, contentHash: string) =>
    call<T.SigningOptions>('POST', `/deals/deal/${enc(dealId)}/agreements/${enc(investorUserId)}/signing-options`, { contentHash }),
  countersign: (dealId: string, investorUserId: string, response: unknown) =>
    call<T.Agreement>('POST', `/deals/deal/${enc(dealId)}/agreements/${enc(investorUserId)}/signatures`, { response }),
  downloadAgreement: (dealId: string, a: Pick<T.Agreement, 'investorUserId' | 'state'>) =>
    download(`/deals/deal/${enc(dealId)}/agreements/${enc(a.investorUserId)}/content`, `subscription-agreement-${a.investorUserId}-${a.state}.pdf`),
  subscriptions: (params: Omit<T.Query<'listSubscriptions'>, 'limit'>) =>
    call<T.Subscriptions>('GET', `/portfolio/transactions/subscriptions${qs({ ...params, limit: 50 })}`),
  createSubscription: (body: T.SubscriptionBody) => call<T.Subscription>('POST', '/portfolio/transactions/subscriptions', body),
  putAsset: (assetId: string, body: T.AssetBody) => call<T.Asset>('PUT', `/portfolio/assets/${enc(assetId)}`, body),
  getAsset: (assetId: string) => call<T.Asset>('GET', `/portfolio/assets/${enc(assetId)}`),
  // Reconciliation: the queue of statement lines, staff decisions, and a deal's payment settings.
  paymentLines: (params: Omit<T.Query<'listPaymentLines'>, 'limit'>) => call<T.PaymentLines>('GET', `/payments/lines${qs({ ...params, limit: 50 })}`),
  lineCandidates: (lineId: string, query: string) =>
    call<T.Ok<'listPaymentLineCandidates'>>('GET', `/payments/lines/${enc(lineId)}/candidates${qs({ ...(query ? { query } : {}), limit: 10 })}`),
  // A decision or a payee change may be held for a second person: 202 with the proposal (isHeld).
  assignLine: (lineId: string, body: T.Body<'reconcileLineToInvestor'>) =>
    call<T.PaymentLineWithDecisions | T.Approval>('POST', `/payments/lines/${enc(lineId)}/assign`, body),
  splitLine: (lineId: string, shares: T.Body<'reconcileLineAcrossInvestors'>['shares']) =>
    call<T.PaymentLineWithDecisions | T.Approval>('POST', `/payments/lines/${enc(lineId)}/split`, { shares }),
  dismissLine: (lineId: string, reason: string) => call<T.PaymentLineWithDecisions | T.Approval>('POST', `/payments/lines/${enc(lineId)}/dismiss`, { reason }),
  paymentSettings: (dealId: string) => call<T.PaymentSettings>('GET', `/deals/deal/${enc(dealId)}/payment-settings`),
  putPaymentSettings: (dealId: string, body: T.PaymentSettingsBody) =>
    call<T.PaymentSettings | T.Approval>('PUT', `/deals/deal/${enc(dealId)}/payment-settings`, body),
  // Four-eyes: a deal's rules, the writes held for a second person, and their decision.
  fourEyes: (dealId: string) => call<T.Ok<'getFourEyesRules'>>('GET', `/deals/deal/${enc(dealId)}/four-eyes`),
  putFourEyes: (dealId: string, body: T.Body<'setFourEyesRules'>) => call<T.Ok<'setFourEyesRules'>>('PUT', `/deals/deal/${enc(dealId)}/four-eyes`, body),
  approvals: (page: number) => call<T.ApprovalPage>('GET', `/approvals${qs({ status: 'pending', page, limit: 25 })}`),
  decideApproval: (proposalId: string, decision: 'approve' | 'reject', reason?: string) =>
    call<T.Approval>('POST', `/approvals/${enc(proposalId)}/${decision}`, decision === 'reject' ? { reason } : undefined),
  /** Single-use links to the investor portal (each revokes the investor's earlier unused one), e-mailed when the service can. */
  invitePortal: (investorUserIds: string[]) => call<T.PortalInvitations>('POST', '/investors/portal-invitations', { investorUserIds }),
};
