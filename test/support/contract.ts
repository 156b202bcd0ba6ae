// One check of every HTTP response the tests see against the committed openapi.json: the status is
// declared for the operation, the media type is one the status declares, the body validates against
// its schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it, with formats), and required response
// headers are present. test/support/app.ts runs it on every app.inject() of startTestApp apps and of
// client(); the reliability suite runs it on every answer of a real service. A response that drifts
// from the contract fails the test that provoked it.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, any>;

export interface ObservedResponse {
  method: string;
  /** Path and query, without the base path. */
  url: string;
  status: number;
  headers: Record<string, unknown>;
  /** The body as received. */
  text: string;
}

/**
 * Paths the service answers that are not API operations: the docs UI, the document, the console's
 * and the investor portal's files (the console's API is under /console/ too, and checked), the old addresses that redirect, the metrics, and the single sign-on's two browser redirects (a browser's steps, not operations).
 */
const OUTSIDE_THE_API =
  /^\/(docs|app|back-office)(\/|$)|^\/(console|portal)(\/(index\.html|assets\/.*)?)?$|^\/(openapi\.json|metrics)$|^\/console\/api\/oidc\/(start|callback)$/;
/** Where every authenticated operation is served again, behind a door's session cookie (the portal's, the console's). */
const COOKIE_API = /^\/(portal|console)\/api(?=\/)/;
/** Problems the HTTP layer sends before any route runs (connection-level; the socket is closed). */
const CONNECTION_LEVEL = new Set([400, 408, 413, 431]);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The pull feeds, whose entries are webhook bodies. */
const FEEDS = new Set(['GET /deals/deal/{dealId}/events', 'GET /webhooks/events']);

export class ContractChecker {
  readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: { method: string; template: string; pattern: RegExp; params: number }[] = [];

  constructor(document: Json) {
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi');
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const method of Object.keys(item)) {
        this.operations.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), params: (template.match(/\{/g) ?? []).length });
      }
    }
  }

  /** The operation a request reaches: a literal segment wins over a parameter, as in the router. */
  operationOf(method: string, path: string) {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const matches = this.operations.filter((o) => o.method === wanted && o.pattern.test(path));
    matches.sort((a, b) => a.params - b.params);
    return matches[0];
  }

  /** Every way the response differs from the document; empty when it matches. */
  check(response: ObservedResponse): string[] {
    const path = response.url.split('?')[0] || '/';
    const where = `${response.method} ${response.url} → ${response.status}`;
    if (OUTSIDE_THE_API.test(path)) return [];
    // The API behind a door's session cookie is each operation again under /portal/api or /console/api, not documented twice.
    const operation =
      this.operationOf(response.method, path) ?? (COOKIE_API.test(path) ? this.operationOf(response.method, path.replace(COOKIE_API, '')) : undefined);
    if (!operation) {
      // An unknown route (404), or a method the route does not have (404 too), or a URL the router refuses (400).
      if (response.status === 404 || response.status === 400) return this.checkProblem(where, response, '#/components/schemas/Problem');
      return [`${where}: no operation in openapi.json for ${response.method} ${path}`];
    }
    const op = this.document.paths[operation.template][operation.method.toLowerCase()];
    const status = String(response.status);
    const declared = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    if (!declared) {
      if (CONNECTION_LEVEL.has(response.status)) return this.checkProblem(where, response, '#/components/schemas/Problem');
      return [
        `${where}: status ${status} is not declared for ${operation.method} ${operation.template} (declared: ${Object.keys(op.responses ?? {}).join(', ')})`,
      ];
    }
    const responseKey = op.responses[status] ? status : op.responses[`${status[0]}XX`] ? `${status[0]}XX` : 'default';
    const errors: string[] = [];
    for (const [name, header] of Object.entries<Json>(declared.headers ?? {})) {
      const resolved = header.$ref ? this.resolve(header.$ref) : header;
      if (resolved.required && response.headers[name.toLowerCase()] === undefined) errors.push(`${where}: required header ${name} is missing`);
    }
    const content: Json | undefined = declared.content;
    if (!content) {
      if (response.text !== '') errors.push(`${where}: the document declares no body, got ${response.text.slice(0, 200)}`);
      return errors;
    }
    if (response.method === 'HEAD') return errors;
    const mediaType = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (!content[mediaType]) return [...errors, `${where}: media type "${mediaType}" is not declared (declared: ${Object.keys(content).join(', ')})`];
    // A declared body that is not JSON (the text/csv exports) is text: its media type is checked
    // here, its rows by the tests of the route.
    if (!/[/+]json$/.test(mediaType)) return errors;
    const ref = `openapi#/${pointer('paths', operation.template, operation.method.toLowerCase(), 'responses', responseKey, 'content', mediaType, 'schema')}`;
    const bodyErrors = this.checkBody(where, response.text, ref);
    // A feed's entries are the bodies webhooks deliver: each also matches the delivery's union by
    // `type` (WebhookDelivery), which describes each type's `data`.
    if (bodyErrors.length === 0 && FEEDS.has(`${operation.method} ${operation.template}`) && response.status === 200) {
      for (const [i, entry] of (JSON.parse(response.text).output as unknown[]).entries()) {
        bodyErrors.push(...this.checkBody(`${where} output[${i}]`, JSON.stringify(entry), 'openapi#/components/schemas/WebhookDelivery'));
      }
    }
    return [...errors, ...bodyErrors];
  }

  private checkProblem(where: string, response: ObservedResponse, schemaRef: string): string[] {
    const mediaType = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (mediaType !== 'application/problem+json') return [`${where}: expected application/problem+json, got "${mediaType}"`];
    return this.checkBody(where, response.text, `openapi${schemaRef}`);
  }

  private checkBody(where: string, text: string, ref: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: the body is not JSON: ${text.slice(0, 200)}`];
    }
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: body${e.instancePath} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} (${e.schemaPath})`,
    );
  }

  private resolve(ref: string): Json {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
  }
}

let committed: ContractChecker | undefined;

/** The checker of the committed openapi.json (loaded once per process). */
export function contract(): ContractChecker {
  committed ??= new ContractChecker(JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')));
  return committed;
}

/** Throws, listing every difference, when a response does not match the committed document. */
export function assertMatchesContract(response: ObservedResponse): void {
  const errors = contract().check(response);
  if (errors.length > 0) throw new Error(`The response does not match openapi.json:\n  ${errors.join('\n  ')}`);
}

export interface CheckedResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

/**
 * fetch() against a real service on a socket, with the answer checked against the committed
 * document like every app.inject() answer. `base` is the service's URL (with its base path);
 * `path` is what the document names.
 */
export async function checkedFetch(base: string, path: string, init: RequestInit = {}): Promise<CheckedResponse> {
  const response = await fetch(base + path, init);
  const text = await response.text();
  const headers = Object.fromEntries(response.headers.entries());
  assertMatchesContract({ method: (init.method ?? 'GET').toUpperCase(), url: path, status: response.status, headers, text });
  let json: any;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers, text, json };
}
