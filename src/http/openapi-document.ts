// Makes the generated OpenAPI document what client generators, validating proxies and linters
// need (`@redocly/cli lint`, recommended rules, is clean: `npm run lint:openapi`):
// - at route registration (`documentRoute`, an onRoute hook): the operationId and description of
//   openapi-operations.ts, bearer security, and the problem responses of every status the route can
//   answer, each `application/problem+json` with a named Problem schema of schemas/problems.ts;
// - on the finished document (`finishDocument`): every schema with a `title` becomes a named
//   component (`#/components/schemas/<title>`), with the field descriptions of
//   openapi-components.ts; optional bodies are `required: false`; the response headers the service
//   sends are declared where it sends them; tags are declared with descriptions.
import type { RouteOptions } from 'fastify';
import { componentDescriptions } from './openapi-components.ts';
import { operationDocs, tagDescriptions } from './openapi-operations.ts';
import { Problem, problemSchemas, ProblemType, WriteUnavailableProblem } from './schemas/problems.ts';
import { vocabularies } from './schemas/vocabularies.ts';
import { webhookEventUnion } from './schemas/webhook-event.ts';

const PROBLEM = 'application/problem+json';
/** Problem components closed to undeclared members in the document (the service may still add some). */
const problemNames = [
  'Problem',
  'RefusalProblem',
  'ImportJobProblem',
  'WriteUnavailableProblem',
  ...Object.values(problemSchemas).map((s) => (s as { title?: string }).title ?? ''),
];

const problemResponse = (schema: object, description: string) => ({ description, content: { [PROBLEM]: { schema } } });

/** The statuses an authenticated route can answer with a problem, by method. */
function problemResponses(method: string): Record<string, object> {
  const writes = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
  return {
    400: problemResponse(problemSchemas.validation, 'Malformed input: a bad parameter, header or body; `errors` names each field'),
    401: problemResponse(problemSchemas.unauthenticated, 'Missing, malformed, unknown, revoked or expired token'),
    403: problemResponse(problemSchemas.forbidden, 'The role or the investor may not do this'),
    404: problemResponse(problemSchemas['not-found'], 'Unknown resource, or one the investor may not see'),
    ...connectionProblems,
    ...(writes ? { 409: problemResponse(problemSchemas.conflict, 'Conflict: concurrent change, duplicate, or not allowed from the current state') } : {}),
    ...(writes
      ? { 413: problemResponse(problemSchemas['payload-too-large'], "Body over BODY_LIMIT (or the route's own limit), or a line of an import file over 1 MiB") }
      : {}),
    ...(writes
      ? { 415: problemResponse(problemSchemas['unsupported-media-type'], 'A body of a media type the route does not take, or a charset other than UTF-8') }
      : {}),
    ...(writes ? { 422: problemResponse(problemSchemas.unprocessable, 'Well-formed, but breaks a business rule') } : {}),
    429: problemResponse(problemSchemas['rate-limited'], 'Over RATE_LIMIT_PER_MINUTE for this token'),
    500: problemResponse(problemSchemas.internal, 'A bug: quote the requestId'),
    503: writes
      ? problemResponse(
          WriteUnavailableProblem,
          'The database does not answer; retry later. `outcome-unknown`: it stopped answering while the write committed, which may have landed; retry with the same Idempotency-Key',
        )
      : problemResponse(problemSchemas['database-unavailable'], 'The database does not answer; retry later'),
  };
}

/**
 * Refusals of Node's HTTP parser, before any route runs, so any operation can get them: a request
 * not whole within REQUEST_TIMEOUT_MS (408) and headers over 16 KiB (431). A method a path does not
 * have is a 404 like an unknown path (the router knows no 405), so no operation declares 405.
 */
const connectionProblems = {
  408: problemResponse(problemSchemas['request-timeout'], 'The request did not arrive whole within REQUEST_TIMEOUT_MS; the connection is closed'),
  431: problemResponse(problemSchemas['headers-too-large'], 'Request headers over 16 KiB; the connection is closed'),
};

/** `/deals/deal/:dealId` under the base path → `/deals/deal/{dealId}`. */
export const documentPath = (url: string, basePath: string) =>
  (url.startsWith(basePath) ? url.slice(basePath.length) || '/' : url).replace(/:([A-Za-z0-9_]+)/g, '{$1}');

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown> };

/** onRoute: fills in what openapi-operations.ts knows, and the problem responses. */
export function documentRoute(route: RouteOptions, basePath: string) {
  const schema = route.schema as RouteSchema | undefined;
  if (!schema || schema.hide) return;
  const methods = [route.method].flat().filter((m) => m !== 'HEAD');
  for (const method of methods) {
    const doc = operationDocs[`${method} ${documentPath(route.url, basePath)}`];
    if (doc) {
      schema.operationId ??= doc.operationId;
      if (doc.description !== undefined) schema.description ??= doc.description;
    }
    if ((route.config as { public?: boolean } | undefined)?.public) {
      schema.security ??= [];
      schema.response ??= {};
      for (const [status, response] of Object.entries(connectionProblems)) schema.response[status] ??= response;
      continue;
    }
    schema.security ??= [{ bearer: [] }];
    schema.response ??= {};
    for (const [status, response] of Object.entries(problemResponses(method))) schema.response[status] ??= response;
  }
}

const headers = {
  XRequestId: {
    description:
      "The request's id: the caller's X-Request-Id when it is 1–64 of A–Z, a–z, 0–9, '.', '_', ':', '-', else a new UUID. Quote it when reporting a problem.",
    required: true,
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'true: this is the stored response of an earlier request with the same Idempotency-Key; nothing changed',
    schema: { type: 'string', enum: ['true'] },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer', minimum: 0 } },
  RetryAfterWhenRetryable: {
    description: 'Seconds to wait before trying again, when the conflict is a request with the same Idempotency-Key still running (retryable: true)',
    schema: { type: 'integer', minimum: 0 },
  },
  WWWAuthenticate: { description: 'Bearer: send `Authorization: Bearer <token>`', required: true, schema: { type: 'string', enum: ['Bearer'] } },
  ETag: {
    description: "The resource's version as an entity tag (RFC 9110): send it back in If-None-Match to get 304 while it is current",
    required: true,
    schema: { type: 'string' },
  },
  CacheControl: {
    description: 'private, no-cache: a client may keep the body, and asks again (with If-None-Match) before using it; shared caches keep nothing',
    required: true,
    schema: { type: 'string', enum: ['private, no-cache'] },
  },
  ConsistencyToken: {
    description:
      "With read replicas configured: the primary's WAL position after this write committed. Send it back on a read to never read anything older than this write.",
    schema: { type: 'string' },
  },
};
/** The read side of read-your-writes (http/consistency.ts): a token a write answered with. */
const consistencyTokenParameter = {
  in: 'header',
  name: 'Consistency-Token',
  required: false,
  description: 'A Consistency-Token a write answered with: the read is served by a replica only once it has replayed that write, else by the primary.',
  schema: { type: 'string' },
};
const headerRef = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });

type Json = Record<string, any>;

/** transformObject: the finishing touches listed at the top of this file. */
export function finishDocument(input: Json): Json {
  const doc: Json = JSON.parse(JSON.stringify(input));
  doc.info.license = { name: 'MIT', identifier: 'MIT' };
  doc.tags = Object.entries(tagDescriptions).map(([name, description]) => ({ name, description }));
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.headers = headers;
  hoistNamedSchemas(doc);
  for (const [name, schema] of Object.entries(vocabularies)) doc.components.schemas[name] ??= JSON.parse(JSON.stringify(schema));
  doc.paths = documented(doc.paths);
  doc.components.schemas = documented(doc.components.schemas);
  // Named even where no operation answers it directly: the document of any refusal (an unknown route).
  doc.components.schemas.Problem ??= JSON.parse(JSON.stringify(Problem));
  doc.components.schemas.ProblemType ??= JSON.parse(JSON.stringify(ProblemType));
  if (doc.components.schemas.WebhookEvent) {
    doc.webhooks = webhooks;
    // The body of a delivery as a union by `type`; the feeds keep answering WebhookEvent, whose
    // `data` stays open there (a response restructured into a union reads as breaking to a diff).
    const { variants, union } = webhookEventUnion(doc.components.schemas.WebhookEvent);
    Object.assign(doc.components.schemas, variants, { WebhookDelivery: union });
  }
  for (const name of problemNames) if (doc.components.schemas[name]) doc.components.schemas[name].additionalProperties = false;
  describeComponents(doc.components.schemas);

  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const known = operationDocs[`${method.toUpperCase()} ${path}`];
      if (known?.optionalBody && operation.requestBody) operation.requestBody.required = false;
      if (known?.uploads) operation.requestBody = uploadBody(known.uploads);
      const idempotent = (operation.parameters ?? []).some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      const secured = operation.security === undefined || operation.security.length > 0;
      const conditional = (operation.parameters ?? []).some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'if-none-match');
      if (secured && method === 'get') operation.parameters = [...(operation.parameters ?? []), consistencyTokenParameter];
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        if (secured && method !== 'get' && status.startsWith('2'))
          response.headers = { ...response.headers, 'Consistency-Token': headerRef('ConsistencyToken') };
        response.headers = { 'X-Request-Id': headerRef('XRequestId'), ...response.headers };
        if (idempotent && status.startsWith('2')) response.headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
        if (conditional && (status === '200' || status === '304')) {
          response.headers.ETag = headerRef('ETag');
          response.headers['Cache-Control'] = headerRef('CacheControl');
        }
        if (status === '401') response.headers['WWW-Authenticate'] = headerRef('WWWAuthenticate');
        if (status === '429' || status === '503') response.headers['Retry-After'] = headerRef('RetryAfter');
        if (status === '409' && idempotent) response.headers['Retry-After'] = headerRef('RetryAfterWhenRetryable');
      }
    }
  }
  return doc;
}

/** What the service POSTs to a step trigger's URL (OpenAPI 3.1 `webhooks`): one outbox entry, signed. */
const webhooks = {
  webhookEvent: {
    post: {
      operationId: 'receiveWebhookEvent',
      summary: 'A domain event, delivered to a webhook trigger of a step',
      description:
        'Signed by the Standard Webhooks scheme: Webhook-Id (the entry id), Webhook-Timestamp (Unix seconds) and, when the trigger has a secret, ' +
        'Webhook-Signature (`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`). Any 2xx is a delivery; anything else is retried.',
      tags: ['webhooks'],
      // The receiver authenticates a delivery by its signature (verifyWebhook), not by a token.
      security: [],
      parameters: ['Webhook-Id', 'Webhook-Timestamp', 'Webhook-Signature'].map((name) => ({
        in: 'header',
        name,
        required: name !== 'Webhook-Signature',
        schema: { type: 'string' },
      })),
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookDelivery' } } } },
      responses: { '2XX': { description: 'Delivered' }, default: { description: 'Not delivered: retried on the schedule, then dead' } },
    },
  },
};

/** A raw file upload: its bytes as sent, under each media type the route takes. */
const uploadBody = ({ mediaTypes, description }: { mediaTypes: string[]; description: string }) => ({
  required: true,
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
});

/**
 * A schema with `x-document` is validated as it is and shown as that value: a step type checked by
 * the domain with the graph rules, shown as the enum; an asset id in a path, checked as strict text,
 * shown as the integer it is.
 */
function documented(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(documented);
  if (node === null || typeof node !== 'object') return node;
  const shown = (node as Json)['x-document'];
  if (shown !== undefined) return shown;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, documented(value)]));
}

const isSchemaName = (title: unknown): title is string => typeof title === 'string' && /^[A-Z][A-Za-z0-9_]*$/.test(title);

/** Every schema titled `Name` becomes `#/components/schemas/Name`; two different ones of one name are a bug. */
function hoistNamedSchemas(doc: Json) {
  const schemas: Json = doc.components.schemas;
  const seen = new Map<string, string>();
  const visit = (node: unknown, isComponentRoot = false): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = visit(value);
    if (isComponentRoot || !isSchemaName(out.title) || !('type' in out || 'anyOf' in out || 'oneOf' in out || 'allOf' in out)) return out;
    const name = out.title;
    const text = JSON.stringify(out);
    const earlier = seen.get(name);
    if (earlier !== undefined && earlier !== text) throw new Error(`OpenAPI: two different schemas are titled ${name}; give one another title`);
    seen.set(name, text);
    schemas[name] = out;
    return { $ref: `#/components/schemas/${name}` };
  };
  for (const name of Object.keys(schemas)) schemas[name] = visit(schemas[name], true);
  doc.paths = visit(doc.paths);
}

function describeComponents(schemas: Json) {
  for (const [name, { description, properties }] of Object.entries(componentDescriptions)) {
    const schema = schemas[name];
    if (!schema) continue; // a component of a route another build may leave out
    if (description) schema.description = description;
    for (const [property, text] of Object.entries(properties ?? {})) {
      const target = schema.properties?.[property];
      if (!target) throw new Error(`OpenAPI: component ${name} has no property ${property} to describe`);
      target.description = text;
    }
  }
}
