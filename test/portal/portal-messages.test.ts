// What the portal's API tells an investor, so the portal can say it in plain words: a second change
// request while one is pending is refused without naming any internal id; a write from another
// address of the host (127.0.0.1 for localhost) names the one address the portal works at; the
// session's answer (which holds the CSRF token) is never cached.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { commit, createDeal, createInvestor } from '../support/deals.ts';
import { invitationToken, portal } from '../support/portal.ts';

describe('portal messages', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const p = () => portal(t.app, t.config.basePath, t.config.portal.origin);

  async function signedIn() {
    const investor = await createInvestor(t.admin);
    const [invitation] = await p().invite(t.admin, [investor.id]);
    const { session } = await p().register(invitationToken(invitation!.url));
    return { investorUserId: investor.id, session, token: invitationToken(invitation!.url) };
  }

  describe('what the portal API says to an investor', () => {
    test('a second change request while one is pending: 409 naming no id', async () => {
      const { investorUserId, session } = await signedIn();
      const deal = await createDeal(t.admin, { workflow: 'subscription' });
      const event = await commit(t.admin, deal, investorUserId);
      const body = { workflowEventId: event.id, type: 'Investment Amount', reason: 'More', newData: { committed_amount: '30000.00' } };
      assert.equal((await session.api.post('/portal/api/deals/request-to-edit', body)).status, 201);
      const again = expectProblem(await session.api.post('/portal/api/deals/request-to-edit', { ...body, reason: 'Even more' }), 409);
      assert.ok(!again.detail.includes(event.id), again.detail);
      assert.doesNotMatch(again.detail, /[0-9a-f]{8}-[0-9a-f]{4}-/);
      assert.match(again.detail, /already a pending edit request/);
    });

    test('a portal write from another origin: 403 naming the address to use (portalOrigin)', async () => {
      const wrong = t.config.portal.origin.replace('localhost', '127.0.0.1');
      assert.notEqual(wrong, t.config.portal.origin);
      const refused = expectProblem(await p().anonymous.post('/portal/api/sessions/options', {}, { origin: wrong }), 403);
      assert.equal(refused.portalOrigin, t.config.portal.origin);
    });

    test('GET /portal/api/session: Cache-Control no-store, signed in or not', async () => {
      const { session } = await signedIn();
      const mine = await session.api.get('/portal/api/session');
      assert.equal(mine.status, 200);
      assert.equal(mine.headers['cache-control'], 'no-store');
      const nobody = await p().anonymous.get('/portal/api/session');
      assert.equal(nobody.status, 401);
      assert.equal(nobody.headers['cache-control'], 'no-store');
    });
  });
});
