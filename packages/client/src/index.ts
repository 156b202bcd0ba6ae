// `@dealflow/client`: a typed client of the dealflow API on openapi-fetch, with the types
// openapi-typescript generates from the service's OpenAPI document (./openapi.ts). Paths, query
// parameters, bodies, answers and problem documents are all typed from the contract:
//
//   const dealflow = createDealflowClient({ baseUrl: 'http://127.0.0.1:3000', token });
//   const { data, error } = await dealflow.GET('/deals/deal/{dealId}/workflow-status', { params: { path: { dealId } } });
//   if (error) console.log(error.status, error.type, error.detail, error.requestId);
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components } from './openapi.js';

export type { components, operations, paths, webhooks } from './openapi.js';
export { isProblem, type Problem, type ProblemKind, type ProblemOf, type ProblemType, problemType } from './problems.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
import type { paths } from './openapi.js';

/** The named schemas of the document: `Schemas['WorkflowEvent']`, `Schemas['UnprocessableProblem']`, ... */
export type Schemas = components['schemas'];

/**
 * The media types the client reads: JSON answers (`application/json`) and problem documents
 * (`application/problem+json`). Lists that can also answer text/csv are typed as their JSON.
 */
export type JsonMediaType = `application/${string}json`;

export type DealflowClient = Client<paths, JsonMediaType>;

export interface DealflowClientOptions {
  /** The service's address including its base path, e.g. `http://127.0.0.1:3000` or `https://host/kong/core/api/gateway`. */
  baseUrl: string;
  /** An API key (`dfk_...`) or a JWT; sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Another fetch (tests, proxies, retries). */
  fetch?: ClientOptions['fetch'];
  headers?: Record<string, string>;
}

/** Bytes go as they are (an upload: a string, a Blob, a stream); anything else as JSON. */
function serializeBody(body: unknown): BodyInit {
  if (
    typeof body === 'string' ||
    body instanceof Blob ||
    body instanceof ReadableStream ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof FormData ||
    body instanceof URLSearchParams
  ) {
    return body as BodyInit;
  }
  return JSON.stringify(body);
}

/**
 * A client of one service. Every method (`GET`, `PUT`, `POST`, ...) answers `{ data, error, response }`:
 * `data` the typed answer of a success, `error` the typed problem document of a failure.
 * An upload (`POST /investors/import`, `/payments/statements`, ...) takes its file as a string, a
 * Blob, a ReadableStream or a Uint8Array, with its media type in `headers: { 'content-type': ... }`.
 */
export function createDealflowClient(options: DealflowClientOptions): DealflowClient {
  return createClient<paths, JsonMediaType>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    bodySerializer: serializeBody,
    // A stream body needs it (fetch refuses a ReadableStream body without); harmless otherwise.
    ...({ duplex: 'half' } as object),
  });
}
