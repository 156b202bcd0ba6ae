// The service's API as the back office uses it: the public endpoints of the interface (issues 3
// and 4) and our admin-only /back-office read models. Every call carries the session's token.

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
export type DealSummary = Ok<'listBackOfficeDeals'>[number];
export type Money = DealSummary['committed'][number];
export type Board = Ok<'getDealBoard'>;
export type BoardColumn = Board['columns'][number];
export type CardPage = Ok<'listBoardCards'>;
export type Card = CardPage['output'][number];
export type InvestorSummary = Ok<'getBackOfficeInvestor'>;
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

const TOKEN_KEY = 'dealflow.backOffice.token';

export const tokenStore = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** The API lives where the app is served from, minus `/app/…` (so BASE_PATH needs no setting). */
export const apiBase = location.pathname.replace(/\/app(\/.*)?$/, '');

let onUnauthenticated: (() => void) | undefined;
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

export async function call<T>(method: string, path: string, body?: unknown, token = tokenStore.get()): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiBase + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
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
const qs = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number][];
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}` : '';
};

export const api = {
  whoami: (token: string) => call<Whoami>('GET', '/whoami', undefined, token),
  deals: () => call<DealSummary[]>('GET', '/back-office/deals'),
  deal: (dealId: string) => call<Deal>('GET', `/deals/deal/${enc(dealId)}`),
  workflow: (dealId: string) => call<Workflow>('GET', `/deals/deal/${enc(dealId)}/workflow-status`),
  board: (dealId: string, query: string) => call<Board>('GET', `/back-office/deals/${enc(dealId)}/board${qs({ query })}`),
  cards: (dealId: string, stepId: string, query: string, page: number, limit: number) =>
    call<CardPage>('GET', `/back-office/deals/${enc(dealId)}/board/cards${qs({ stepId, query, page, limit })}`),
  investor: (dealId: string, investorUserId: string) =>
    call<InvestorSummary>('GET', `/back-office/deals/${enc(dealId)}/investors/${enc(investorUserId)}`),
  journey: (dealId: string, investorUserId: string) => call<Journey>('GET', `/deals/deal/${enc(dealId)}/investor-data/${enc(investorUserId)}`),
  jump: (dealId: string, body: { investorUserId: string; targetStepId: string; data: Record<string, string>; expectedCurrentStepId?: string | null }) =>
    call<WorkflowEvent>('POST', `/deals/deal/${enc(dealId)}/jump-to-step`, body),
  editEvent: (eventId: string, data: Record<string, string>) => call<WorkflowEvent>('POST', `/deals/event/${enc(eventId)}/edit`, data),
  revisions: (eventId: string) => call<Revision[]>('GET', `/deals/event/${enc(eventId)}/revisions`),
  editRequests: (dealId: string, investorUserId: string) =>
    call<EditRequest[]>('GET', `/deals/request-to-edit/filtered${qs({ dealId, investorUserId })}`),
  decide: (requestId: string, decision: 'approve' | 'reject', reason?: string) =>
    call<EditRequest>('POST', `/deals/request-to-edit/${enc(requestId)}/${decision}`, reason ? { reason } : {}),
};

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
    case 422:
      return `Refused: ${detail}`;
    case 429:
      return 'Too many requests with this token. Wait a minute, then retry.';
    case 503:
      return 'The database does not answer. Retry in a few seconds.';
    default:
      return error.status >= 500 ? `The service failed (${detail}). Retry; if it persists, quote request ${String(error.problem.requestId ?? '?')}.` : detail;
  }
}
