// The live stream of every deal's four-eyes approvals (POST /console/live/tickets with
// `feed: "approvals"`, then GET /console/live), which the console's Inbox follows beside the edit
// requests: a change held for a second person in another deal arrives within a second, then its
// decision; nothing else comes; a cursor must name an approval entry.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { arrivalBoundMs, openStream } from '../support/live-stream.ts';

const PAYEE = { beneficiaryName: 'Harbour Fund I', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };

describe('the live stream of every deal’s approvals', () => {
  const t = startApp();
  let baseUrl = '';
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  const approvalsTicket = async () => {
    const response = await t.admin.post('/console/live/tickets', { feed: 'approvals' });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body.ticket as string;
  };

  /** A deal whose payee is set (at once: the first IBAN), and a proposal to change it (held). */
  const heldPayeeChange = async () => {
    const deal = await createDeal(t.admin, { workflow: 'paying' });
    const url = `/deals/deal/${deal.dealId}/payment-settings`;
    assert.equal((await t.admin.put(url, { paymentStepId: deal.step('payment'), ...PAYEE })).status, 201);
    const proposed = await t.admin.put(url, { paymentStepId: deal.step('payment'), ...PAYEE, iban: 'BE71096123456769' });
    assert.equal(proposed.status, 202, proposed.text);
    return { dealId: deal.dealId, proposalId: proposed.body.id as string };
  };

  test('a held change in any deal arrives within a second, then its decision, and nothing but approvals comes', async () => {
    const stream = await openStream(baseUrl, await approvalsTicket());
    const held = await heldPayeeChange();
    const proposedAt = Date.now();
    const [proposed] = await stream.waitFor(1);
    assert.ok(proposed!.at - proposedAt < arrivalBoundMs, `arrived after ${proposed!.at - proposedAt} ms`);
    assert.deepEqual([proposed!.data.type, proposed!.data.dealId], ['approval.proposed', held.dealId]);
    const second = client(t.app, (await createToken(t.database.db, { name: 'second admin', role: 'admin' })).token);
    assert.equal((await second.post(`/approvals/${held.proposalId}/approve`)).status, 200);
    const [, decided] = await stream.waitFor(2);
    assert.deepEqual([decided!.data.type, decided!.data.dealId], ['approval.decided', held.dealId]);
    await new Promise((resolve) => setTimeout(resolve, 700)); // a poll or two: nothing else may come
    await stream.close();
    assert.deepEqual(
      stream.events.map((e) => e.data.type),
      ['approval.proposed', 'approval.decided'],
    );
  });

  test('a cursor must name an approval entry; investors get no ticket', async () => {
    const stream = await openStream(baseUrl, await approvalsTicket());
    await heldPayeeChange();
    const [entry] = await stream.waitFor(1);
    await stream.close();
    const editRequests = (await t.admin.post('/console/live/tickets', { feed: 'edit-requests' })).body.ticket as string;
    expectProblem(await client(t.app).get(`/console/live?ticket=${editRequests}&after=${entry!.id}`), 400);
    const resumed = await openStream(baseUrl, await approvalsTicket(), {}, `&after=${entry!.id}`);
    await resumed.close();
    expectProblem(await client(t.app, await t.investorToken('inv-nobody')).post('/console/live/tickets', { feed: 'approvals' }), 403);
  });
});
