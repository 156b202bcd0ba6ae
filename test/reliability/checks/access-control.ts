// Check 6, access control: every route of /openapi.json × {no token, malformed, unknown, revoked,
// expired JWT, investor A on investor B's records, investor on admin routes}. Each must be a 401 or
// 403 problem document, never data: no 2xx, none of B's secrets in the answer, the database unchanged.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { createClient, isProblem, type Received } from '../support/http.ts';
import { fillPath, loadOperations, type Operation, sampleValid, hintFor, type Hints } from '../support/openapi.ts';
import { changedTables, fingerprint, freshDatabase, serviceTables } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { buildWorld, hintsOf } from '../support/world.ts';

const JWT_SECRET = 'reliability-suite-secret-that-is-long-enough';

/** What an investor token may call (product brief, "Identity and access"); everything else is 403. */
export const investorRoutes = new Set([
  'GET /whoami',
  'GET /investors/{investorUserId}',
  'GET /deals/deal/{dealId}/workflow-status',
  'GET /deals/deal/{dealId}/investor-data/{investorUserId}',
  // The history of an investor's own events is part of their journey.
  'GET /deals/event/{eventId}/revisions',
  'GET /deals/workflow/step/{stepId}/investor-form-implementation',
  'GET /deals/request-to-edit/filtered',
  'GET /deals/request-to-edit/{requestId}',
  'POST /deals/request-to-edit',
]);

/** Investor routes that name nobody's records: asking them as A can only answer about A. */
const aboutTheCaller = new Set(['GET /whoami']);

/** The request of `op` with parameters and body filled from these hints. */
export function requestOf(op: Operation, hints: Hints) {
  const params: Record<string, string> = {};
  for (const p of op.pathParams) params[p.name] = encodeURIComponent(String(sampleValid(p.schema, hints, p.name)));
  const query = op.queryParams
    .filter((q) => q.required || hintFor(hints, q.name))
    .map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(String(sampleValid(q.schema, hints, q.name)))}`);
  const path = fillPath(op.path, params) + (query.length ? `?${query.join('&')}` : '');
  const body = op.body ? sampleValid(op.body, hints) : undefined;
  return { method: op.method, path, body };
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
    const malformed = ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two tokens', 'Token dfk_abc', `Bearer ${'%'.repeat(20)}`];

    const tables = await serviceTables(db.pool);
    const before = await fingerprint(db.pool, tables);

    const investorIds = (id: string) => ({ investorUserId: [id], investor_id: [id], investorId: [id] });
    // A's own records, but B named as the investor: an authorization that looks at one id only
    // (the deal's, the event's) and not at whose data it returns would answer.
    const hintsAasB = { ...hintsA, ...investorIds(world.b.investorUserId) };
    const namesInvestor = (op: Operation) =>
      [...op.pathParams.map((p) => p.name), ...op.queryParams.map((q) => q.name), ...Object.keys(op.body?.properties ?? {})].some((n) => /^investor(_?id|UserId)$/i.test(n));
    const secretsB = [...world.b.secrets, ...world.b.eventIds, ...world.b.requestIds, ...world.b.formImplementationIds, ...world.b.subscriptionIds];
    const cases: { name: string; expect: number[]; token?: string; authorization?: string; hints: Hints; applies: (op: Operation) => boolean }[] = [
      { name: 'no token', expect: [401], hints: hintsB, applies: () => true },
      { name: 'malformed', expect: [401], hints: hintsB, applies: () => true },
      { name: 'unknown', expect: [401], authorization: `Bearer dfk_${randomBytes(32).toString('base64url')}`, hints: hintsB, applies: () => true },
      { name: 'revoked', expect: [401], token: revoked.token, hints: hintsB, applies: () => true },
      { name: 'expired JWT', expect: [401], token: expired, hints: hintsB, applies: () => true },
      { name: "investor A on B's records", expect: [403], token: tokenA, hints: hintsB, applies: (op) => investorRoutes.has(op.key) && !aboutTheCaller.has(op.key) },
      { name: "investor A naming B on A's records", expect: [403], token: tokenA, hints: hintsAasB, applies: (op) => investorRoutes.has(op.key) && namesInvestor(op) },
      { name: 'investor on admin route', expect: [403], token: tokenA, hints: hintsA, applies: (op) => !investorRoutes.has(op.key) },
    ];
    const counts: Record<string, number> = {};
    let checked = 0;
    let malformedIndex = 0;
    for (const op of operations) {
      for (const c of cases) {
        if (!c.applies(op)) continue;
        const { method, path, body } = requestOf(op, c.hints);
        const authorization = c.name === 'malformed' ? malformed[malformedIndex++ % malformed.length]! : c.authorization ?? (c.token ? `Bearer ${c.token}` : undefined);
        const response: Received = await client.request({
          method,
          path,
          headers: authorization ? { authorization } : {},
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
        if (response.status === 401 && response.headers['www-authenticate'] !== 'Bearer') result.failures.push(`${where}: 401 without WWW-Authenticate: Bearer`);
        const leaked = secretsB.filter((s) => s && response.text.includes(s) && !path.includes(encodeURIComponent(s)));
        if (leaked.length) result.failures.push(`${where}: the answer holds B's data (${leaked.join(', ')})`);
      }
    }
    const changed = changedTables(before, await fingerprint(db.pool, tables));
    if (changed.length) result.failures.push(`refused requests changed ${changed.join(', ')}`);
    // The control: an admin gets past authentication on every route (no 401/403), so the 401s and
    // 403s above are the tokens' doing, not a broken route.
    let controlPassed = 0;
    for (const op of operations) {
      const { method, path, body } = requestOf(op, hintsB);
      const response = await client.request({ method, path, headers: { authorization: `Bearer ${db.adminToken}` }, ...(body !== undefined ? { body: body as object } : {}) });
      if (response.status === 401 || response.status === 403) result.failures.push(`control: admin got ${response.status} on ${op.key}`);
      else controlPassed++;
    }

    result.figures = {
      routes: operations.length,
      cases: cases.length,
      'routes × cases checked': checked,
      ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v])),
      'admin control passed': controlPassed,
    };
    if (world.notes.length) result.skipped.push(`fixtures incomplete: ${world.notes.join('; ')}`);
    if (world.b.eventIds.length === 0) result.skipped.push("B's events, edit requests, references: workflow routes not served yet (issues 3, 4)");
    client.close();
    await service.stop();
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}
