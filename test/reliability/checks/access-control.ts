// Check 6, access control: every route of /openapi.json × {no token, malformed, unknown, revoked,
// expired JWT, investor A on investor B's records, investor on admin routes, each staff role below
// admin on the routes that need more (403 naming the role needed)}. Each must be a 401,
// 403 (a route that is not the investor's) or 404 (records not theirs) problem document, never data: no 2xx, none of B's secrets in the answer, the database
// unchanged. Where an investor asks about records not theirs, the answer must be indistinguishable
// from the answer about unknown ids (same status, type, title, and detail but for the ids). Last, two
// JWTs sharing a `sub` but bound to A and B: A replaying B's Idempotency-Key and body must get A's own
// answer (a 404), never B's stored response. The controls: every staff role gets past authorization
// (no 401, no 403) on every route its role meets, admin on all.
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { createClient, isProblem, type Received } from '../support/http.ts';
import { fillPath, loadOperations, type Operation, sampleValid, hintFor, type Hints } from '../support/openapi.ts';
import { changedTables, fingerprint, freshDatabase, requestWrittenTables } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { buildWorld, hintsOf, type Party } from '../support/world.ts';
import { accessCases } from './hardening-cases.ts';
import { minimumRole } from '../../../src/http/route-roles.ts';
import { roleMeets, type StaffRole } from '../../../src/domain/principal.ts';

const rolesBelowAdmin: StaffRole[] = ['viewer', 'operator', 'approver'];

const JWT_SECRET = 'reliability-suite-secret-that-is-long-enough';

/** What an investor token may call (product brief, "Identity and access"); everything else is 403. */
export const investorRoutes = new Set([
  'GET /whoami',
  'GET /investors/{investorUserId}',
  // The portal's view of the investor's own deals.
  'GET /investors/{investorUserId}/deals',
  'GET /investors/{investorUserId}/deals/{dealId}',
  // Its live stream (server-sent events): the same records, pushed.
  'GET /investors/{investorUserId}/deals/{dealId}/live',
  // An investor's own move, along a link the workflow opens to investors (investorMay).
  'POST /deals/deal/{dealId}/jump-to-step',
  'GET /deals/deal/{dealId}/workflow-status',
  'GET /deals/deal/{dealId}/investor-data/{investorUserId}',
  // The history of an investor's own events is part of their journey.
  'GET /deals/event/{eventId}/revisions',
  'GET /deals/workflow/step/{stepId}/investor-form-implementation',
  'GET /deals/request-to-edit/filtered',
  'GET /deals/request-to-edit/{requestId}',
  'POST /deals/request-to-edit',
  // Their own category statements (what they signed, and whether it still counts).
  'GET /investors/{investorUserId}/category-statements',
  // The documents of a deal they are in that are released to them, and their content.
  'GET /deals/deal/{dealId}/documents',
  'GET /deals/deal/{dealId}/documents/{documentId}/content',
  // Their subscription agreement in a deal, and its PDF (they sign it in the portal: sessionOnly).
  'GET /deals/deal/{dealId}/agreements/{investorUserId}',
  'GET /deals/deal/{dealId}/agreements/{investorUserId}/content',
  // Their KYC in a deal: what it asks for, the files they upload and their content, their category.
  'GET /deals/deal/{dealId}/kyc/{investorUserId}',
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/documents',
  'GET /deals/deal/{dealId}/kyc/{investorUserId}/documents/{documentId}/content',
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/category-confirmations',
  // The checks the KYC provider made of them.
  'GET /investors/{investorUserId}/kyc-checks',
  // The language of their e-mails.
  'GET /investors/{investorUserId}/language',
  'PUT /investors/{investorUserId}/language',
]);

/** Routes only an investor calls: staff, whatever their role, get 403 (a statement is the investor's own to confirm). */
export const investorOnly = new Set(['POST /deals/deal/{dealId}/kyc/{investorUserId}/category-confirmations']);

/**
 * Routes only a person signed in with a passkey calls (its answer is the signature): every API key,
 * staff or investor, gets 403 before anything is read; test/agreements signs through real sessions.
 */
const sessionOnly = new Set([
  'POST /deals/deal/{dealId}/agreements/{investorUserId}/signing-options',
  'POST /deals/deal/{dealId}/agreements/{investorUserId}/signatures',
]);

/** Investor routes that name nobody's records: asking them as A can only answer about A. */
const aboutTheCaller = new Set(['GET /whoami']);

/**
 * The request of `op` with parameters and body filled from these hints; a file upload gets a few
 * bytes of its media type (`headers` says which), so that it reaches the route's access checks.
 */
export function requestOf(op: Operation, hints: Hints): { method: string; path: string; body: unknown; headers: Record<string, string> } {
  const params: Record<string, string> = {};
  for (const p of op.pathParams) params[p.name] = encodeURIComponent(String(sampleValid(p.schema, hints, p.name)));
  const query = op.queryParams
    .filter((q) => q.required || hintFor(hints, q.name))
    .map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(String(sampleValid(q.schema, hints, q.name)))}`);
  const path = fillPath(op.path, params) + (query.length ? `?${query.join('&')}` : '');
  if (op.rawType) return { method: op.method, path, body: Buffer.from('%PDF-1.7\n%%EOF\n'), headers: { 'content-type': op.rawType } };
  const body = op.body ? sampleValid(op.body, hints) : undefined;
  return { method: op.method, path, body, headers: {} };
}

export async function accessControl(): Promise<CheckResult> {
  const result = newResult('6 access control');
  const started = performance.now();
  const db = await freshDatabase('access');
  try {
    const service = await startInstance({ databaseUrl: db.url, env: { JWT_SECRET } });
    const client = createClient(service.url);
    const operations = await loadOperations(client);
    const world = await buildWorld(client, db.adminToken);
    const hintsA = hintsOf(world.a);
    const hintsB = hintsOf(world.b);
    const tokenA = (await db.newToken('investor', world.a.investorUserId)).token;
    const revoked = await db.newToken('admin');
    await db.pool.query('update api_tokens set revoked_at = now() where id = $1', [revoked.id]);
    const key = new TextEncoder().encode(JWT_SECRET);
    const expired = await new SignJWT({ sub: 'staff-1', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key);
    const staffTokens = Object.fromEntries(await Promise.all(rolesBelowAdmin.map(async (role) => [role, (await db.newToken(role)).token] as const)));
    const needs = (op: Operation) => minimumRole(op.method, op.path);
    const malformed = ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two tokens', 'Token dfk_abc', `Bearer ${'%'.repeat(20)}`];

    const tables = await requestWrittenTables(db.pool);
    const before = await fingerprint(db.pool, tables);

    const investorIds = (id: string) => ({ investorUserId: [id], investor_id: [id], investorId: [id] });
    // A's own records, but B named as the investor: an authorization that looks at one id only
    // (the deal's, the event's) and not at whose data it returns would answer.
    const hintsAasB = { ...hintsA, ...investorIds(world.b.investorUserId) };
    const namesInvestor = (op: Operation) =>
      [...op.pathParams.map((p) => p.name), ...op.queryParams.map((q) => q.name), ...Object.keys(op.body?.properties ?? {})].some((n) =>
        /^investor(_?id|UserId)$/i.test(n),
      );
    const secretsB = [...world.b.secrets, ...world.b.eventIds, ...world.b.requestIds, ...world.b.formImplementationIds, ...world.b.subscriptionIds];
    // Ids of the same shapes that exist nowhere: what an investor asking about B's records must not
    // be able to tell B's from.
    const nobody: Party = {
      dealId: `no-deal-${randomUUID().slice(0, 8)}`,
      investorUserId: `no-investor-${randomUUID().slice(0, 8)}`,
      stepIds: world.b.stepIds.map((_, i) => `no-step-${i}-${randomUUID().slice(0, 8)}`),
      eventIds: world.b.eventIds.map(() => randomUUID()),
      requestIds: world.b.requestIds.map(() => randomUUID()),
      formImplementationIds: world.b.formImplementationIds.map(() => randomUUID()),
      references: world.b.references,
      assetIds: world.b.assetIds,
      subscriptionIds: world.b.subscriptionIds.map(() => randomUUID()),
      secrets: [],
    };
    const hintsNobody = hintsOf(nobody);
    const idsOf = (p: Party) => [p.dealId, p.investorUserId, ...p.stepIds, ...p.eventIds, ...p.requestIds, ...p.formImplementationIds, ...p.subscriptionIds];
    /** What a caller can tell apart: status, type, title, and detail with every id masked. */
    const visible = (response: Received, ids: string[]) => {
      const problem = response.json ?? {};
      let detail = String(problem.detail ?? '');
      for (const id of ids.filter(Boolean).sort((x, y) => y.length - x.length)) detail = detail.split(id).join('<id>');
      return JSON.stringify({ status: response.status, type: problem.type, title: problem.title, detail });
    };
    const namesDealOrStep = (op: Operation) =>
      [...op.pathParams.map((p) => p.name), ...op.queryParams.map((q) => q.name)].some((n) => n === 'dealId' || n === 'stepId');
    const cases: {
      name: string;
      expect: number[];
      token?: string;
      authorization?: string;
      hints: Hints;
      applies: (op: Operation) => boolean;
      /** The same request about ids that exist nowhere, and the ids to mask in each answer. */
      twin?: { hints: Hints; ids: string[]; twinIds: string[] };
    }[] = [
      { name: 'no token', expect: [401], hints: hintsB, applies: () => true },
      { name: 'malformed', expect: [401], hints: hintsB, applies: () => true },
      { name: 'unknown', expect: [401], authorization: `Bearer dfk_${randomBytes(32).toString('base64url')}`, hints: hintsB, applies: () => true },
      { name: 'revoked', expect: [401], token: revoked.token, hints: hintsB, applies: () => true },
      { name: 'expired JWT', expect: [401], token: expired, hints: hintsB, applies: () => true },
      {
        name: "investor A on B's records",
        expect: [404],
        token: tokenA,
        hints: hintsB,
        applies: (op) => investorRoutes.has(op.key) && !aboutTheCaller.has(op.key),
        twin: { hints: hintsNobody, ids: idsOf(world.b), twinIds: idsOf(nobody) },
      },
      {
        // 404: another investor reads as an unknown one on every route; the twin proves the answer
        // says nothing about whether B exists.
        name: "investor A naming B on A's records",
        expect: [404],
        token: tokenA,
        hints: hintsAasB,
        applies: (op) => investorRoutes.has(op.key) && namesInvestor(op),
        twin: { hints: { ...hintsA, ...investorIds(nobody.investorUserId) }, ids: idsOf(world.b), twinIds: idsOf(nobody) },
      },
      {
        // Their own id, in B's deal (or a step of it): e.g. investor-data, request-to-edit/filtered.
        name: "investor A's own id in B's deal",
        expect: [404],
        token: tokenA,
        hints: { ...hintsB, ...investorIds(world.a.investorUserId) },
        applies: (op) => investorRoutes.has(op.key) && namesInvestor(op) && namesDealOrStep(op),
        twin: { hints: { ...hintsNobody, ...investorIds(world.a.investorUserId) }, ids: idsOf(world.b), twinIds: idsOf(nobody) },
      },
      { name: 'investor on admin route', expect: [403], token: tokenA, hints: hintsA, applies: (op) => !investorRoutes.has(op.key) },
      ...rolesBelowAdmin.map((role) => ({
        name: `${role} on a route that needs more`,
        expect: [403],
        token: staffTokens[role]!,
        hints: hintsB,
        applies: (op: Operation) => !roleMeets(role, needs(op)) && !investorOnly.has(op.key),
      })),
    ];
    const counts: Record<string, number> = {};
    let checked = 0;
    let indistinguishable = 0;
    let malformedIndex = 0;
    for (const op of operations) {
      for (const c of cases) {
        if (!c.applies(op)) continue;
        const { method, path, body, headers } = requestOf(op, c.hints);
        const authorization =
          c.name === 'malformed' ? malformed[malformedIndex++ % malformed.length]! : (c.authorization ?? (c.token ? `Bearer ${c.token}` : undefined));
        const response: Received = await client.request({
          method,
          path,
          headers: { ...headers, ...(authorization ? { authorization } : {}) },
          ...(body !== undefined ? { body: body as object } : {}),
        });
        checked++;
        counts[c.name] = (counts[c.name] ?? 0) + 1;
        const where = `${op.key} × ${c.name} (${method} ${path})`;
        if (!c.expect.includes(response.status)) {
          result.failures.push(`${where}: ${response.status}, expected ${c.expect.join('/')}: ${response.text.slice(0, 200)}`);
          continue;
        }
        if (!isProblem(response)) result.failures.push(`${where}: not a problem document`);
        if (c.name.endsWith('needs more') && !String(response.json?.detail ?? '').includes(`needs the ${needs(op)} role`))
          result.failures.push(`${where}: the 403 does not name the ${needs(op)} role: ${response.text.slice(0, 200)}`);
        if (response.status === 401 && response.headers['www-authenticate'] !== 'Bearer')
          result.failures.push(`${where}: 401 without WWW-Authenticate: Bearer`);
        // An id the request itself carried (in its path or body) may be echoed: "no event <id>" tells
        // A nothing it did not send, and the twin comparison below proves it reads as for an unknown id.
        const sent = path + (body !== undefined ? JSON.stringify(body) : '');
        const leaked = secretsB.filter((s) => s && response.text.includes(s) && !sent.includes(encodeURIComponent(s)) && !sent.includes(s));
        if (leaked.length) result.failures.push(`${where}: the answer holds B's data (${leaked.join(', ')})`);
        if (c.twin) {
          const twin = requestOf(op, c.twin.hints);
          const unknown = await client.request({
            method: twin.method,
            path: twin.path,
            headers: { ...twin.headers, authorization: authorization! },
            ...(twin.body !== undefined ? { body: twin.body as object } : {}),
          });
          const seen = visible(response, c.twin.ids);
          const seenUnknown = visible(unknown, c.twin.twinIds);
          if (seen !== seenUnknown) result.failures.push(`${where}: distinguishable from unknown ids (${twin.path}): ${seen} vs ${seenUnknown}`);
          else indistinguishable++;
        }
      }
    }
    const changed = changedTables(before, await fingerprint(db.pool, tables));
    if (changed.length) result.failures.push(`refused requests changed ${changed.join(', ')}`);
    const replay = await sharedSubReplay(client, key, world.a, world.b);
    result.failures.push(...replay.failures);
    // An erased investor's credentials, and a JWT whose sub is not its investor (hardening-cases.ts).
    const targeted = await accessCases(client, db, tables, key, world.a.eventIds[0], world.a.investorUserId);
    result.failures.push(...targeted.failures);
    // The controls: each staff role gets past authentication and authorization on every route its
    // role meets, and admin on every route (no 401/403), so the 401s and 403s above are the tokens'
    // doing, not a broken route. The lesser roles go first: admin's writes may end what they use.
    let controlPassed = 0;
    const controls: [string, string][] = [...rolesBelowAdmin.map((role) => [role, staffTokens[role]!] as [string, string]), ['admin', db.adminToken]];
    for (const [role, token] of controls) {
      for (const op of operations) {
        if (investorOnly.has(op.key) || sessionOnly.has(op.key)) continue;
        if (role !== 'admin' && !roleMeets(role as StaffRole, needs(op))) continue;
        const { method, path, body, headers } = requestOf(op, hintsB);
        const response = await client.request({
          method,
          path,
          headers: { ...headers, authorization: `Bearer ${token}` },
          ...(body !== undefined ? { body: body as object } : {}),
        });
        if (response.status === 401 || response.status === 403) result.failures.push(`control: ${role} got ${response.status} on ${op.key}`);
        else controlPassed++;
      }
    }

    result.figures = {
      routes: operations.length,
      cases: cases.length,
      'routes × cases checked': checked,
      'indistinguishable from unknown': indistinguishable,
      'shared-sub replays refused': replay.refused,
      ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v])),
      'role controls passed (viewer, operator, approver, admin)': controlPassed,
      ...targeted.figures,
    };
    if (world.notes.length) result.skipped.push(`fixtures incomplete: ${world.notes.join('; ')}`);
    if (world.b.eventIds.length === 0) result.skipped.push("B's events, edit requests, references: workflow routes not served by this build");
    client.close();
    await service.stop();
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}

/**
 * Two investor JWTs with one `sub` (a shared login) bound to A and B. B makes an edit request with
 * an Idempotency-Key; A sends the same key and body. Keys are scoped to the whole principal and the
 * route authorizes before replaying, so A must get a 404 for B's event, not B's stored 201.
 */
async function sharedSubReplay(client: ReturnType<typeof createClient>, key: Uint8Array, a: Party, b: Party) {
  const failures: string[] = [];
  let refused = 0;
  const eventId = b.eventIds[0];
  if (!eventId) return { failures: ['shared-sub replay: B has no event (fixtures incomplete)'], refused };
  const sign = (investor: string) =>
    new SignJWT({ sub: 'shared-login', role: 'investor', investor_user_id: investor })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);
  const [tokenA, tokenB] = [await sign(a.investorUserId), await sign(b.investorUserId)];
  for (let i = 0; i < 3; i++) {
    const headers = { 'idempotency-key': `shared-${randomUUID()}` };
    const body = { workflowEventId: eventId, type: 'Withdraw Investment', reason: `replay probe ${i}` };
    const created = await client.post('/deals/request-to-edit', body, tokenB, headers);
    // The first makes the request; later ones are refused as a second pending request (409), and
    // their keys are released: the probe then checks that A cannot see B's refusal either.
    if (i === 0 && created.status !== 201) {
      failures.push(`shared-sub replay: B's own request got ${created.status}: ${created.text.slice(0, 200)}`);
      continue;
    }
    const replayed = await client.post('/deals/request-to-edit', body, tokenA, headers);
    if (replayed.status !== 404 || replayed.headers['idempotent-replayed'] !== undefined || (created.json?.id && replayed.text.includes(created.json.id))) {
      failures.push(
        `shared-sub replay: A replaying B's key got ${replayed.status} ${replayed.headers['idempotent-replayed'] ?? ''}: ${replayed.text.slice(0, 200)}`,
      );
    } else refused++;
  }
  return { failures, refused };
}
