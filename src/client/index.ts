// `dealflow/client`: a typed client of the dealflow API for integrators, on openapi-fetch, with the
// types openapi-typescript generates from the committed openapi.json (./openapi.ts). Paths, query
// parameters, bodies, responses and problem documents are all typed from the contract:
//
//   const dealflow = createDealflowClient({ baseUrl: 'http://127.0.0.1:3000', token });
//   const { data, error } = await dealflow.GET('/deals/deal/{dealId}/workflow-status', { params: { path: { dealId } } });
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './openapi.ts';

export type { components, operations, paths } from './openapi.ts';
/** The named schemas of the document: `Schemas['WorkflowEvent']`, `Schemas['UnprocessableProblem']`, … */
export type Schemas = components['schemas'];
export type DealflowClient = Client<paths>;

export interface DealflowClientOptions {
  /** The service's address including BASE_PATH, e.g. `http://127.0.0.1:3000` or `https://host/kong/core/api/gateway`. */
  baseUrl: string;
  /** An API key (`dfk_…`) or a JWT; sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Another fetch (tests, proxies, retries). */
  fetch?: ClientOptions['fetch'];
  headers?: Record<string, string>;
}

export function createDealflowClient(options: DealflowClientOptions): DealflowClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
  });
}
