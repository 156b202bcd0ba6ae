// The committed OpenAPI document is one that generators, proxies and linters take as it is, and the
// response check of test/support/contract.ts catches a response that drifts from it. A route added
// without an operationId, summary, description or declared tag fails here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { generateClientTypes, typesPath } from '../../scripts/generate-client-types.ts';
import { operationDocs } from '../../src/http/openapi-operations.ts';
import { client, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { ContractChecker, contract } from '../support/contract.ts';

const root = new URL('../../', import.meta.url);
const document = JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8'));
const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
);
const VERBS =
  /^(get|list|create|upsert|set|jump|edit|resolve|approve|reject|retry|delete|update|import|export|move|search|reconcile|book|verify|erase|preview|migrate|undo|screen)[A-Z]/;

describe('the OpenAPI document', () => {
  test('every operation has a unique verb-first operationId, a one-line summary, a description and a declared tag', () => {
    const declaredTags = new Map<string, string>(document.tags.map((t: { name: string; description: string }) => [t.name, t.description]));
    const ids = new Set<string>();
    for (const { key, operation } of operations) {
      assert.match(operation.operationId ?? '', VERBS, `${key}: operationId "${operation.operationId}" (add it to src/http/openapi-operations.ts)`);
      assert.ok(!ids.has(operation.operationId), `${key}: operationId ${operation.operationId} is used twice`);
      ids.add(operation.operationId);
      assert.ok(operation.summary && !operation.summary.includes('\n'), `${key}: a one-line summary`);
      assert.ok(operation.description, `${key}: a description (in the route schema or src/http/openapi-operations.ts)`);
      assert.ok(operation.tags?.length, `${key}: a tag`);
      for (const tag of operation.tags) assert.ok(declaredTags.get(tag), `${key}: tag "${tag}" is declared with a description (openapi-operations.ts)`);
    }
  });

  test('the table of operations names only operations that exist', () => {
    const keys = new Set(operations.map((o) => o.key));
    for (const key of Object.keys(operationDocs)) assert.ok(keys.has(key), `openapi-operations.ts names ${key}, which is not a route`);
  });

  test('every error response is application/problem+json with the named Problem schema of its status', () => {
    // One schema per kind, its status a constant: the status that came back names the document.
    const problems = new Set(['Problem', ...Object.keys(document.components.schemas).filter((name) => name.endsWith('Problem'))]);
    for (const { key, operation } of operations) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (!/^[45]/.test(status)) continue;
        assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${key} ${status}`);
        const ref: string = response.content['application/problem+json'].schema.$ref ?? '';
        const name = ref.replace('#/components/schemas/', '');
        assert.ok(problems.has(name), `${key} ${status}: ${ref}`);
        if (/^\d+$/.test(status)) {
          assert.deepEqual(document.components.schemas[name].properties.status.enum, [Number(status)], `${key} ${status}: ${name}.status`);
          assert.ok(document.components.schemas[name].required.includes('requestId'), `${key} ${status}: ${name}.requestId is required`);
        }
        assert.ok(response.headers['X-Request-Id'], `${key} ${status}: X-Request-Id`);
      }
      if (operation.responses['401']) assert.ok(operation.responses['401'].headers['WWW-Authenticate'], `${key}: WWW-Authenticate`);
      if (operation.responses['429']) assert.ok(operation.responses['429'].headers['Retry-After'], `${key}: Retry-After`);
    }
    assert.ok(!Object.keys(document.components.schemas).some((name) => name.startsWith('def-')), 'no anonymous def-N components');
    for (const member of ['missingFields', 'failedRequirements', 'expectedTotal', 'exactProduct', 'errors', 'idempotencyKey']) {
      assert.ok(document.components.schemas.UnprocessableProblem.properties[member], member);
    }
    assert.ok(document.components.schemas.ConflictProblem.properties.currentStepId);
  });

  test('the shared shapes are named components, and the optional bodies are optional', () => {
    for (const name of [
      'Workflow',
      'Step',
      'WorkflowEvent',
      'InvestorJourneyPage',
      'ActiveInvestorPage',
      'Investor',
      'PaymentReference',
      'EventEditRequest',
      'Portfolio_CreateSubscriptionRequest',
      'SubscriptionTransaction',
    ]) {
      assert.ok(document.components.schemas[name]?.description, `${name} is a described component`);
    }
    assert.equal(document.paths['/deals/deal/all-transactions'].post.requestBody.required, false);
    assert.equal(document.paths['/deals/request-to-edit/{requestId}/approve'].post.requestBody.required, false);
    assert.ok(document.paths['/healthz'].get && document.paths['/readyz'].get);
    const jump = document.paths['/deals/deal/{dealId}/jump-to-step'].post;
    assert.ok(jump.responses['201'].headers['Idempotent-Replayed']);
  });

  test('@redocly/cli lint (recommended rules) finds nothing', async () => {
    const cli = new URL('node_modules/@redocly/cli/bin/cli.js', root).pathname;
    const result = await promisify(execFile)(process.execPath, [cli, 'lint', 'openapi.json', '--format=json'], {
      cwd: root.pathname,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stdout: string }) => err);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(
      report.problems.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`),
      [],
    );
  });

  test('the generated client types equal the committed ones (run `npm run client:types`)', async () => {
    assert.equal(await generateClientTypes(document), readFileSync(typesPath, 'utf8'));
  });
});

describe('the response check', () => {
  const t = startApp();

  test('passes real responses and fails each kind of drift', async () => {
    const admin = client(t.app, t.adminToken);
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const url = `/deals/deal/${deal.dealId}/jump-to-step`;
    const body = { investorUserId: investor, targetStepId: deal.step('interest'), data: {} };
    const moved = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}` }, payload: body });
    const observed = { method: 'POST', url, status: moved.statusCode, headers: moved.headers, text: moved.body };
    const check = contract();
    assert.deepEqual(check.check(observed), []);

    const event = JSON.parse(moved.body);
    const drifts: [string, typeof observed][] = [
      ['a required member missing', { ...observed, text: JSON.stringify({ ...event, createdAt: undefined }) }],
      ['a member of the wrong type', { ...observed, text: JSON.stringify({ ...event, fromStepId: 7 }) }],
      ['a timestamp that is not one', { ...observed, text: JSON.stringify({ ...event, createdAt: 'yesterday' }) }],
      ['an undeclared status', { ...observed, status: 202 }],
      ['another media type', { ...observed, headers: { ...observed.headers, 'content-type': 'text/plain' } }],
      ['a required header missing', { ...observed, headers: { ...observed.headers, 'x-request-id': undefined } }],
      [
        'an undeclared problem member',
        {
          ...observed,
          status: 409,
          headers: { ...observed.headers, 'content-type': 'application/problem+json' },
          text: JSON.stringify({ type: 'urn:dealflow:problem:conflict', title: 'Conflict', status: 409, detail: 'x', surprise: true }),
        },
      ],
      ['a route that is not in the document', { ...observed, url: '/deals/deal/x/teleport' }],
    ];
    for (const [what, drifted] of drifts) assert.notDeepEqual(check.check(drifted), [], what);
  });

  test("the router's own refusals are problems with the headers the document promises", async () => {
    // Found by the reliability suite: a URL the router refuses was answered without X-Request-Id.
    const admin = client(t.app, t.adminToken);
    assert.equal((await admin.get('/investors/%zz')).status, 400);
    assert.equal((await admin.get(`/investors/${'x'.repeat(600)}`)).status, 400);
  });

  test('a checker of another document judges by that document', () => {
    const checker = new ContractChecker({ ...document, paths: {} });
    assert.notDeepEqual(checker.check({ method: 'GET', url: '/whoami', status: 200, headers: { 'content-type': 'application/json' }, text: '{}' }), []);
  });
});
