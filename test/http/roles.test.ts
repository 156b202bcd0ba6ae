import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { StaffRole } from '../../src/domain/principal.ts';
import { minimumRole, writeRoles } from '../../src/http/route-roles.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';

const openapi = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { security?: unknown[] }>>;
};
const writes = Object.entries(openapi.paths)
  // The doors' sign-in routes (the portal's, the console's) are public: no role is checked there.
  .filter(([path]) => !path.startsWith('/portal/api/') && !path.startsWith('/console/api/'))
  // Nor on any other public write (`security: []`, such as the KYC provider's webhook, which its signature opens).
  .flatMap(([path, item]) =>
    ['put', 'post', 'patch', 'delete'].filter((m) => m in item && item[m]!.security?.length !== 0).map((m) => `${m.toUpperCase()} ${path}`),
  );

describe('staff roles', () => {
  const t = startApp();
  const tokenOf = async (role: StaffRole) => (await createToken(t.database.db, { name: `${role} key`, role })).token;

  test('every staff role reads; whoami names the role', async () => {
    for (const role of ['viewer', 'operator', 'approver', 'admin'] as const) {
      const as = client(t.app, await tokenOf(role));
      const who = await as.get('/whoami');
      assert.equal(who.status, 200);
      assert.equal(who.body.role, role);
      assert.equal((await as.get('/deals/deal/none')).status, 404);
    }
  });

  test('a viewer changes nothing: 403 naming the role needed, and nothing is written', async () => {
    const viewer = client(t.app, await tokenOf('viewer'));
    const problem = expectProblem(await viewer.put('/deals/deal/viewer-deal', { name: 'x' }), 403);
    assert.equal(problem.type, 'urn:dealflow:problem:forbidden');
    assert.match(problem.detail, /needs the operator role or above; yours is viewer/);
    expectProblem(await t.admin.get('/deals/deal/viewer-deal'), 404);
  });

  test('an operator edits deals but not payment settings (admin) nor payment decisions (approver)', async () => {
    const operator = client(t.app, await tokenOf('operator'));
    assert.ok([200, 201].includes((await operator.put('/deals/deal/op-deal', { name: 'Operated' })).status));
    assert.equal((await t.admin.get('/deals/deal/op-deal')).body.name, 'Operated');
    const settings = expectProblem(await operator.put('/deals/deal/op-deal/payment-settings', {}), 403);
    assert.match(settings.detail, /needs the admin role/);
    const decision = expectProblem(await operator.post('/payments/lines/no-line/dismiss', {}), 403);
    assert.match(decision.detail, /needs the approver role/);
  });

  test('an approver reaches payment decisions (here: the line is unknown, so 404, not 403)', async () => {
    const approver = client(t.app, await tokenOf('approver'));
    const response = await approver.post('/payments/lines/no-line/dismiss', {});
    assert.notEqual(response.status, 403);
  });

  test('an investor token still cannot use a staff route', async () => {
    const investor = client(t.app, await t.investorToken('inv-roles'));
    expectProblem(await investor.put('/deals/deal/inv-deal', { name: 'x' }), 403);
  });

  test('a staff key cannot be bound to an investor', async () => {
    await assert.rejects(createToken(t.database.db, { name: 'bad', role: 'operator', investorUserId: 'inv-1' }), /not bound to an investor/);
  });
});

describe('the roles table', () => {
  test('names only routes that exist', () => {
    for (const key of Object.keys(writeRoles)) assert.ok(writes.includes(key), `${key} is not a route in openapi.json`);
  });

  test('docs/reference/roles.md lists every staff write with its role', () => {
    const doc = readFileSync(new URL('../../docs/reference/roles.md', import.meta.url), 'utf8');
    for (const key of writes) {
      const [method, path] = key.split(' ') as [string, string];
      const row = `| \`${method} ${path}\` | ${minimumRole(method, path)} |`;
      assert.ok(doc.includes(row), `docs/reference/roles.md lacks the row ${row}`);
    }
  });
});
