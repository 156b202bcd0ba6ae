// POST /investors/portal-invitations: one invitation per investor, all or none; an unknown id is a
// 404 naming it and nothing is made; investors cannot invite. On PGlite, and on PostgreSQL when
// TEST_DATABASE_URL is set. Registering with an invitation is test/portal/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('portal invitations', () => {
  const t = startApp();

  test('each investor gets a link that expires; nothing is e-mailed without SMTP', async () => {
    const [{ id: a }, { id: b }] = [await createInvestor(t.admin), await createInvestor(t.admin)];
    const made = await t.admin.post('/investors/portal-invitations', { investorUserIds: [a, b] });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const invitations = made.body.invitations as { investorUserId: string; url: string; expiresAt: string; emailed: boolean }[];
    assert.deepEqual(
      invitations.map((i) => i.investorUserId),
      [a, b],
    );
    for (const i of invitations) {
      assert.match(i.url, /\/portal\/#\/welcome\//);
      assert.ok(Date.parse(i.expiresAt) > Date.now());
      assert.equal(i.emailed, false);
    }
    assert.notEqual(invitations[0]!.url, invitations[1]!.url);
  });

  test('an unknown investor refuses the whole request; an investor may not invite', async () => {
    const { id } = await createInvestor(t.admin);
    const unknown = uniqueId('nobody');
    const refused = expectProblem(await t.admin.post('/investors/portal-invitations', { investorUserIds: [id, unknown] }), 404);
    assert.match(refused.detail, new RegExp(unknown));
    const investor = client(t.app, await t.investorToken(id));
    expectProblem(await investor.post('/investors/portal-invitations', { investorUserIds: [id] }), 403);
    expectProblem(await t.admin.post('/investors/portal-invitations', { investorUserIds: [] }), 400);
  });
});
