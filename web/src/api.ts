// The service's API as the console uses it: the public routes of the interface and our
// admin-only /console read models. Every call carries the session's token.

import type { components, operations } from '../../src/client/openapi.ts';

// The server's shapes, generated from openapi.json (npm run client:types): never restated by hand.
type Schemas = components['schemas'];
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer T } } } ? T : never;

export type Link = Schemas['Link'];
export type FieldKind = 'text' | 'amount' | 'currency' | 'date' | 'email' | 'choice';
export type StepField = Schemas['StepField'];
export type Requirement = Schemas['Step']['requirements'][number];
export type Step = Schemas['Step'];
export type Workflow = Schemas['Workflow'];
export type WorkflowEvent = Schemas['WorkflowEvent'];
export type Journey = Schemas['InvestorJourney'];
export type Revision = Ok<'listEventRevisions'>[number];
export type EditRequest = Schemas['EventEditRequest'];
export type DealSummary = Ok<'listConsoleDeals'>[number];
export type Money = DealSummary['committed'][number];
export type Board = Ok<'getDealBoard'>;
export type BoardColumn = Board['columns'][number];
export type CardPage = Ok<'listBoardCards'>;
export type Card = CardPage['output'][number];
export type InvestorSummary = Ok<'getConsoleInvestor'>;
export type Whoami = Ok<'getCaller'>;
export type Deal = Ok<'getDeal'>;

/** An RFC 9457 problem document, or a stand-in for a network failure. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
  /** Field keys a refusal names: `errors[].field` and any array of strings among the extensions. */
  fieldKeys(): string[] {
    const keys = new Set<string>();
    const errors = this.problem.errors;
    if (Array.isArray(errors)) {
      for (const e of errors) {
        const field = (e as { field?: unknown }).field;
        if (typeof field === 'string') keys.add(field.replace(/^\/?data[./]/, '').replace(/^\//, ''));
      }
    }
    for (const [name, value] of Object.entries(this.problem)) {
      if (name === 'errors' || !Array.isArray(value)) continue;
      for (const item of value) {
        if (typeof item === 'string') keys.add(item);
        else if (item && typeof item === 'object' && typeof (item as { fieldKey?: unknown }).fieldKey === 'string') {
          keys.add((item as { fieldKey: string }).fieldKey);
        }
      }
    }
    return [...keys];
  }
}

const TOKEN_KEY = 'dealflow.console.token';
// The key the token had before the app took the name console: read once, then moved.
const OLD_TOKEN_KEY = 'dealflow.backOffice.token';
for (const storage of [sessionStorage, localStorage]) {
  const old = storage.getItem(OLD_TOKEN_KEY);
  if (old !== null && storage.getItem(TOKEN_KEY) === null) storage.setItem(TOKEN_KEY, old);
  storage.removeItem(OLD_TOKEN_KEY);
}

/**
 * The token lives in this tab's sessionStorage, or, when the person chose "keep me signed in on
 * this device", in localStorage (shared by every tab). Sign out clears both.
 */
export const tokenStore = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY),
  set: (token: string, remember = false) => {
    sessionStorage.setItem(TOKEN_KEY, token);
    if (remember) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  },
  remembered: () => localStorage.getItem(TOKEN_KEY) !== null,
  clear: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
  },
};

/** The API lives where the app is served from, minus `/console/…` (so BASE_PATH needs no setting). */
export const apiBase = location.pathname.replace(/\/console(\/.*)?$/, '');

let onUnauthenticated: (() => void) | undefined;
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

/** A body sent as it is, with its media type (a file for an import route), rather than as JSON. */
export class RawBody {
  readonly type: string;
  readonly text: string;
  readonly headers: Record<string, string>;
  constructor(type: string, text: string, headers: Record<string, string> = {}) {
    this.type = type;
    this.text = text;
    this.headers = headers;
  }
}

export async function call<T>(method: string, path: string, body?: unknown, token = tokenStore.get()): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiBase + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': body instanceof RawBody ? body.type : 'application/json' } : {}),
        ...(body instanceof RawBody ? body.headers : {}),
      },
      ...(body !== undefined ? { body: body instanceof RawBody ? body.text : JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, { title: 'Network error', detail: 'The service does not answer. Check that it is running, then retry.' });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const problem = (json && typeof json === 'object' ? json : { detail: text || response.statusText }) as Record<string, unknown>;
    if (response.status === 401 && onUnauthenticated) onUnauthenticated();
    throw new ApiError(response.status, problem);
  }
  return json as T;
}

const enc = encodeURIComponent;
export const qs = (params: Record<string, string | number | boolean | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number | boolean][];
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}` : '';
};

export const api = {
  whoami: (token: string) => call<Whoami>('GET', '/whoami', undefined, token),
  deals: () => call<DealSummary[]>('GET', '/console/deals'),
  deal: (dealId: string) => call<Deal>('GET', `/deals/deal/${enc(dealId)}`),
  workflow: (dealId: string) => call<Workflow>('GET', `/deals/deal/${enc(dealId)}/workflow-status`),
  board: (dealId: string, query: string) => call<Board>('GET', `/console/deals/${enc(dealId)}/board${qs({ query })}`),
  cards: (dealId: string, stepId: string, query: string, page: number, limit: number) =>
    call<CardPage>('GET', `/console/deals/${enc(dealId)}/board/cards${qs({ stepId, query, page, limit })}`),
  investor: (dealId: string, investorUserId: string) =>
    call<InvestorSummary>('GET', `/console/deals/${enc(dealId)}/investors/${enc(investorUserId)}`),
  journey: (dealId: string, investorUserId: string) => call<Journey>('GET', `/deals/deal/${enc(dealId)}/investor-data/${enc(investorUserId)}`),
  jump: (dealId: string, body: { investorUserId: string; targetStepId: string; data: Record<string, string>; expectedCurrentStepId?: string | null }) =>
    call<WorkflowEvent>('POST', `/deals/deal/${enc(dealId)}/jump-to-step`, body),
  editEvent: (eventId: string, data: Record<string, string>, reason?: string) =>
    call<WorkflowEvent>('POST', `/deals/event/${enc(eventId)}/edit${qs({ reason })}`, data),
  revisions: (eventId: string) => call<Revision[]>('GET', `/deals/event/${enc(eventId)}/revisions`),
  editRequests: (dealId: string, investorUserId: string) =>
    call<EditRequest[]>('GET', `/deals/request-to-edit/filtered${qs({ dealId, investorUserId })}`),
  decide: (requestId: string, decision: 'approve' | 'reject', reason?: string) =>
    call<EditRequest>('POST', `/deals/request-to-edit/${enc(requestId)}/${decision}`, reason ? { reason } : {}),
};

export interface Page<T> {
  output: T[];
  page: number;
  totalPages: number;
  total?: number;
}

export type DirectoryEntry = Ok<'listDirectoryInvestors'>['output'][number];

export type PendingRequest = Ok<'listPendingEditRequests'>['output'][number];

export type DealRow = Ok<'listDealRows'>['output'][number];

export interface RowParams {
  stepId?: string | undefined;
  query?: string | undefined;
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  currency?: string | undefined;
  minDays?: number | undefined;
  maxDays?: number | undefined;
  minKycLevel?: number | undefined;
  classification?: string | undefined;
  pending?: boolean | undefined;
  sort?: 'name' | 'amount' | 'days' | undefined;
  order?: 'asc' | 'desc' | undefined;
  page?: number | undefined;
  limit?: number | undefined;
}

export interface WorkflowDocument {
  label: string;
  description: string;
  investorEngagementEnabled: boolean;
  steps: {
    id: string;
    label: string;
    type: string;
    stepFields: { fieldKey: string; required: boolean; kind?: string; label?: string | null; options?: string[] | null }[];
    requirements?: { kind: string; minimumLevel?: number; classes?: string[] }[];
    formId?: string | null;
    triggers?: { kind: 'webhook'; url: string; events?: string[] }[];
  }[];
  links: Link[];
}

export type WorkflowCheck = Ok<'previewWorkflow'>;

export type FeedEntry = Ok<'listDealEvents'>['output'][number];

export type Delivery = Ok<'listWebhookDeliveries'>['output'][number];

export type Subscription = Ok<'listSubscriptions'>['output'][number];

export type PaymentLine = Ok<'listPaymentLines'>['output'][number];
export type PaymentLineWithDecisions = Ok<'getPaymentLine'>;
export type PaymentSettings = Ok<'getPaymentSettings'>;
export type PaymentSettingsBody = operations['setPaymentSettings']['requestBody']['content']['application/json'];

/** The investor directory entry as PUT /investors/{id} takes it (the document's Investor without its id). */
export type InvestorRecord = Omit<components['schemas']['Investor'], 'id'>;
export type ImportReport = Ok<'importInvestors'>;
export type ImportJob = Ok<'getImportJob'>;

/** Investor files larger than this are imported as an import job (Prefer: respond-async). */
export const ASYNC_IMPORT_BYTES = 1024 * 1024;

/** Reads an import job every second until it has finished; returns it as it ended. */
export async function followImportJob(id: string, onProgress: (job: ImportJob) => void): Promise<ImportJob> {
  for (;;) {
    const job = await call<ImportJob>('GET', `/imports/jobs/${encodeURIComponent(id)}`);
    onProgress(job);
    if (job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The console's calls beyond the first screens': set up deals, workflows and investors, run them. */
export const consoleApi = {
  people: (ids: string[]) => call<{ id: string; name: string }[]>('GET', `/console/people${qs({ ids: ids.join(',') })}`),
  directory: (query: string, page: number, limit = 20) =>
    call<Page<DirectoryEntry> & { total: number }>('GET', `/console/investors${qs({ query, page, limit })}`),
  inbox: (page = 1, limit = 50, dealId?: string) =>
    call<Page<PendingRequest> & { total: number }>('GET', `/console/edit-requests${qs({ dealId, page, limit })}`),
  rows: (dealId: string, params: RowParams) =>
    call<Page<DealRow> & { total: number; committed: Money[] }>('GET', `/console/deals/${enc(dealId)}/rows${qs({ ...params })}`),
  putDeal: (dealId: string, body: { name: string; description?: string | null; currency?: string | null }) =>
    call<{ id: string; name: string; description: string | null; currency: string | null }>('PUT', `/deals/deal/${enc(dealId)}`, body),
  dealRecord: (dealId: string) => call<{ id: string; name: string; description: string | null; currency: string | null }>('GET', `/deals/deal/${enc(dealId)}`),
  putWorkflow: (dealId: string, body: WorkflowDocument) => call<Workflow>('PUT', `/deals/deal/${enc(dealId)}/workflow`, body),
  checkWorkflow: (dealId: string, body: WorkflowDocument) => call<WorkflowCheck>('POST', `/console/deals/${enc(dealId)}/workflow/check`, body),
  /**
   * POST /investors/import with one PUT /investors body plus "id" per NDJSON line: the service's
   * per-row report. A file over ASYNC_IMPORT_BYTES is sent with `Prefer: respond-async`: the service
   * answers 202 with an import job, followed here to its end (onProgress: rows handled so far); its
   * report keeps only the refused rows (`fromJob`).
   */
  importInvestors: async (records: (InvestorRecord & { id: string })[], dryRun: boolean, onProgress?: (rows: number) => void): Promise<ImportReport & { fromJob?: boolean }> => {
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const prefer: Record<string, string> = text.length > ASYNC_IMPORT_BYTES ? { prefer: 'respond-async' } : {};
    const answer = await call<ImportReport | ImportJob>('POST', `/investors/import${qs({ dryRun: dryRun || undefined })}`, new RawBody('application/x-ndjson', text, prefer));
    if (!('kind' in answer)) return answer;
    const job = await followImportJob(answer.id, (j) => onProgress?.(j.progress.done));
    if (job.report) return { ...job.report, fromJob: true };
    throw new ApiError(job.problem?.status ?? 500, (job.problem ?? { detail: 'The import job failed' }) as Record<string, unknown>);
  },
  importJob: (id: string) => call<ImportJob>('GET', `/imports/jobs/${enc(id)}`),
  getInvestor: (id: string) => call<InvestorRecord & { id: string }>('GET', `/investors/${enc(id)}`),
  putInvestor: (id: string, body: InvestorRecord) => call<InvestorRecord & { id: string }>('PUT', `/investors/${enc(id)}`, body),
  activity: (dealId: string, before?: number, limit = 50) =>
    call<{ output: (FeedEntry & { investorName: string | null })[]; hasMore: boolean }>('GET', `/console/deals/${enc(dealId)}/activity${qs({ before, limit })}`),
  deliveries: (status: string | undefined, page: number) => call<Page<Delivery>>('GET', `/webhooks/deliveries${qs({ status, page, limit: 50 })}`),
  retryDelivery: (id: string) => call<Delivery>('POST', `/webhooks/deliveries/${enc(id)}/retry`),
  subscriptions: (params: { investor_id?: string; asset_id?: string; page: number }) =>
    call<Page<Subscription>>('GET', `/portfolio/transactions/subscriptions${qs({ ...params, limit: 50 })}`),
  createSubscription: (body: Record<string, unknown>) => call<Subscription>('POST', '/portfolio/transactions/subscriptions', body),
  putAsset: (assetId: string, body: { name: string; currency: string }) => call<unknown>('PUT', `/portfolio/assets/${enc(assetId)}`, body),
  getAsset: (assetId: string) => call<{ id: number; name: string; currency: string }>('GET', `/portfolio/assets/${enc(assetId)}`),
  // Reconciliation: the queue of statement lines, staff decisions, and a deal's payment settings.
  paymentLines: (params: { status?: string; dealId?: string; page: number }) =>
    call<Page<PaymentLine>>('GET', `/payments/lines${qs({ ...params, limit: 50 })}`),
  assignLine: (lineId: string, body: { dealId: string; investorUserId: string }) =>
    call<PaymentLineWithDecisions>('POST', `/payments/lines/${enc(lineId)}/assign`, body),
  splitLine: (lineId: string, shares: { dealId: string; investorUserId: string; amount: string }[]) =>
    call<PaymentLineWithDecisions>('POST', `/payments/lines/${enc(lineId)}/split`, { shares }),
  dismissLine: (lineId: string, reason: string) => call<PaymentLineWithDecisions>('POST', `/payments/lines/${enc(lineId)}/dismiss`, { reason }),
  paymentSettings: (dealId: string) => call<PaymentSettings>('GET', `/deals/deal/${enc(dealId)}/payment-settings`),
  putPaymentSettings: (dealId: string, body: PaymentSettingsBody) => call<PaymentSettings>('PUT', `/deals/deal/${enc(dealId)}/payment-settings`, body),
};

/** One field a refusal names: `errors[]` of the service's problem document (a 400). */
export type FieldProblem = Pick<Schemas['FieldError'], 'field' | 'detail'>;

/** What a form says when it is refused: a headline in plain words, the service's detail, and each field it names. */
export interface Refusal {
  message: string;
  detail?: string | undefined;
  fields: FieldProblem[];
}

/**
 * Anything a form can be refused with, as a Refusal: the form's own words (a string), a Refusal
 * already worded, or what a call threw (an ApiError's problem document, any other Error).
 */
export function refusalOf(error: unknown): Refusal {
  if (typeof error === 'string') return { message: error, fields: [] };
  if (error instanceof ApiError) {
    const errors = Array.isArray(error.problem.errors) ? (error.problem.errors as Partial<FieldProblem>[]) : [];
    const fields = errors.filter((e): e is FieldProblem => typeof e?.field === 'string' && typeof e.detail === 'string');
    return { message: describeError(error), fields: fields.map(({ field, detail }) => ({ field, detail })) };
  }
  if (error instanceof Error) return { message: describeError(error), fields: [] };
  if (error && typeof error === 'object' && typeof (error as Refusal).message === 'string') {
    const refusal = error as Partial<Refusal> & { message: string };
    return { message: refusal.message, detail: refusal.detail, fields: refusal.fields ?? [] };
  }
  return { message: String(error), fields: [] };
}

/** A refusal in plain words, for people rather than programs. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const detail = error.message;
  switch (error.status) {
    case 0:
      return detail;
    case 401:
      return 'Your token was not accepted. Sign in again.';
    case 403:
      return `Not allowed: ${detail}`;
    case 404:
      return `Not found: ${detail}`;
    case 409:
      return `This move is not possible from where the investor stands now: ${detail}`;
    case 422: {
      // Unmet requirements carry the investor's facts ("KYC check level is 1; at least 2 is required").
      const failed = Array.isArray(error.problem.failedRequirements) ? (error.problem.failedRequirements as { detail?: unknown }[]) : [];
      const facts = failed.map((f) => f.detail).filter((d): d is string => typeof d === 'string');
      return `Refused: ${detail}${facts.length ? `: ${facts.join('; ')}` : ''}`;
    }
    case 429:
      return 'Too many requests with this token. Wait a minute, then retry.';
    case 503:
      return 'The database does not answer. Retry in a few seconds.';
    default:
      return error.status >= 500 ? `The service failed (${detail}). Retry; if it persists, quote request ${String(error.problem.requestId ?? '?')}.` : detail;
  }
}
