// Who made a write is derived one way (actorOf in domain/principal.ts): an investor is recorded as
// their investor id whatever credential they came with, so a JWT whose `sub` is an identity
// provider's user id records the investor's own move, edit request and audit entry as theirs, and
// the portal shows the commitment as changed by the investor, not by staff.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { client, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { createOpenDeal } from '../support/open-deals.ts';

describe('move attribution', () => {
  const secret = 'a-test-secret-that-is-long-enough-for-hs256';
  const t = startApp({ env: { JWT_SECRET: secret } });
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(secret));

  test("a JWT whose sub is not the investor: the investor's own move and request are recorded as the investor's", async () => {
    const deal = await createOpenDeal(t.admin);
    const { id } = await createInvestor(t.admin);
    await jump(t.admin, deal.dealId, id, deal.step('interest'), { note: 'keen' });
    const own = client(t.app, await sign({ sub: 'idp|8f3a', role: 'investor', investor_user_id: id }));
    assert.equal((await own.get('/whoami')).body.userId, 'idp|8f3a');

    const moved = await own.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: id,
      targetStepId: deal.step('commit'),
      data: { committed_amount: '25000.00', currency: 'EUR' },
    });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.equal(moved.body.createdByUserId, id);
    const revisions = (await t.admin.get(`/deals/event/${moved.body.id}/revisions`)).body;
    assert.equal(revisions[0].setByUserId, id);
    const { rows } = await sql<{ principal: string }>`select principal from audit_log where change->>'eventId' = ${moved.body.id}`.execute(t.database.db);
    assert.deepEqual(
      rows.map((r) => r.principal),
      [id],
    );

    const view = (await own.get(`/investors/${id}/deals/${deal.dealId}`)).body;
    assert.deepEqual(
      view.commitmentHistory.map((h: { changedBy: string }) => h.changedBy),
      ['investor'],
    );

    const request = await own.post('/deals/request-to-edit', {
      workflowEventId: moved.body.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(request.status, 201, JSON.stringify(request.body));
    const stored = await sql<{ created_by_user_id: string }>`select created_by_user_id from edit_requests where id = ${request.body.id}`.execute(t.database.db);
    assert.equal(stored.rows[0]!.created_by_user_id, id);
  });
});
