// The typed client (`@dealflow/client`, openapi-fetch over the generated types) calls the ten
// endpoints of the interface and the management API with no casts and no `body: {}`: if the
// document made any of these calls awkward, this file would not typecheck. Requests go through
// app.inject (a fetch that never opens a socket), so every answer is also checked against
// openapi.json by test/support/app.ts.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDealflowClient, type DealflowClient, isProblem } from '@dealflow/client';
import { startApp, type TestApp } from '../support/app.ts';
import { investorBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import { commitmentStep } from '../support/workflows.ts';

/** A fetch that hands the request to app.inject. */
function injectFetch(t: TestApp): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const response = await t.app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(body && body.length > 0 ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(response.statusCode === 204 ? null : response.rawPayload, { status: response.statusCode, headers });
  };
}

describe('the typed client (@dealflow/client)', () => {
  const t = startApp();
  let dealflow: DealflowClient;
  const dealId = uniqueId('deal');
  const investorUserId = uniqueId('inv');
  const step = (name: string) => `${dealId}.${name}`;

  before(async () => {
    dealflow = createDealflowClient({ baseUrl: 'http://dealflow.test', token: t.adminToken, fetch: injectFetch(t) });
  });

  test('sets up a deal through the management API', async () => {
    const deal = await dealflow.PUT('/deals/deal/{dealId}', { params: { path: { dealId } }, body: { name: 'Typed seed', currency: 'EUR' } });
    assert.equal(deal.response.status, 201);
    const workflow = await dealflow.PUT('/deals/deal/{dealId}/workflow', {
      params: { path: { dealId } },
      body: {
        label: 'Typed',
        description: 'A typed journey',
        investorEngagementEnabled: true,
        steps: [
          { id: step('interest'), label: 'Interest', type: 'default', stepFields: [] },
          { ...commitmentStep(step('commitment')), formId: 'form-commitment' },
          { id: step('complete'), label: 'Complete', type: 'complete', stepFields: [] },
        ],
        links: [
          { fromStepId: step('interest'), toStepId: step('commitment') },
          { fromStepId: step('commitment'), toStepId: step('complete') },
        ],
      },
    });
    assert.equal(workflow.response.status, 201);
    // The answer's type is the workflow or, for a change held for a second person (202), the proposal.
    assert.ok(workflow.data && 'steps' in workflow.data);
    assert.equal(workflow.data.steps.length, 3);
    const investor = await dealflow.PUT('/investors/{investorUserId}', { params: { path: { investorUserId } }, body: investorBody({ surname: 'Typed' }) });
    assert.equal(investor.response.status, 201);
    assert.equal(investor.data?.id, investorUserId);
  });

  test('endpoints 1–5: workflow, a refused and an accepted move, the journey, an edit, the list', async () => {
    const workflow = await dealflow.GET('/deals/deal/{dealId}/workflow-status', { params: { path: { dealId } } });
    assert.deepEqual(
      workflow.data?.steps.map((s) => s.id),
      [step('interest'), step('commitment'), step('complete')],
    );

    // The error is the problem document of the status that came back: its members are typed, and
    // narrowing by status (or by isProblem) reaches the members of that kind, with no cast.
    const refused = await dealflow.POST('/deals/deal/{dealId}/jump-to-step', {
      params: { path: { dealId } },
      body: { investorUserId, targetStepId: step('commitment'), data: {} },
    });
    assert.equal(refused.response.status, 422);
    const problem = refused.error ?? assert.fail('no problem');
    const status: number = problem.status;
    const requestId: string = problem.requestId;
    assert.equal(status, 422);
    assert.equal(requestId, refused.response.headers.get('x-request-id'));
    // assert.equal narrows `type`, and with it the document to the 422's kind.
    assert.equal(problem.type, 'urn:dealflow:problem:unprocessable');
    assert.deepEqual(problem.missingFields, ['committed_amount', 'currency']);
    assert.ok(isProblem(refused.error, 'unprocessable'));
    assert.deepEqual(refused.error.missingFields, ['committed_amount', 'currency']);

    const moved = await dealflow.POST('/deals/deal/{dealId}/jump-to-step', {
      params: { path: { dealId }, header: { 'idempotency-key': uniqueId('typed') } },
      body: { investorUserId, targetStepId: step('commitment'), data: { committed_amount: '25000.00', currency: 'EUR' } },
    });
    assert.equal(moved.response.status, 201);
    // 201 is the event; 200 (the same path with ?dryRun=true) is { dryRun: true, event, intermediaryStepIds }.
    const eventId = (moved.data && !('dryRun' in moved.data) ? moved.data.id : undefined) ?? assert.fail('no event');

    const journey = await dealflow.GET('/deals/deal/{dealId}/investor-data/{investorUserId}', { params: { path: { dealId, investorUserId } } });
    assert.equal(journey.data?.journey[0]?.toStepId, step('commitment'));

    const edited = await dealflow.POST('/deals/event/{eventId}/edit', {
      params: { path: { eventId } },
      body: { committed_amount: '26000.00', currency: 'EUR' },
    });
    assert.equal(edited.data?.data.committed_amount, '26000.00');
    const revisions = await dealflow.GET('/deals/event/{eventId}/revisions', { params: { path: { eventId } } });
    assert.equal(revisions.data?.length, 2);

    const list = await dealflow.GET('/deals/deal/{dealId}/all-investor-workflows', {
      params: { path: { dealId }, query: { limit: 10, page: 1, query: 'typed' } },
    });
    assert.equal(list.data?.output[0]?.investor.id, investorUserId);
  });

  test('endpoints 6–9: form implementation, active investors without a body, payment references, edit requests', async () => {
    const form = await dealflow.GET('/deals/workflow/step/{stepId}/investor-form-implementation', {
      params: { path: { stepId: step('commitment') }, query: { dealId, investorUserId } },
    });
    assert.equal(form.response.status, 200);
    assert.ok(form.data?.id);

    const active = await dealflow.POST('/deals/deal/all-transactions', { params: { query: { limit: 100 } } });
    assert.equal(active.response.status, 200);
    assert.ok(active.data?.output.some((entry) => entry.investor.id === investorUserId));
    const filtered = await dealflow.POST('/deals/deal/all-transactions', { body: { nameOrEmail: 'typed' } });
    assert.ok(filtered.data?.output.every((entry) => entry.investor.contact.fullName.toLowerCase().includes('typed')));

    const references = await dealflow.GET('/deals/deal/{dealId}/all-payment-refernces', { params: { path: { dealId } } });
    const reference = references.data?.[0]?.paymentReference ?? assert.fail('no reference');
    const resolved = await dealflow.GET('/payments/references/{reference}', { params: { path: { reference } } });
    assert.equal(resolved.data?.investorUserId, investorUserId);

    const journey = await dealflow.GET('/deals/deal/{dealId}/investor-data/{investorUserId}', { params: { path: { dealId, investorUserId } } });
    const workflowEventId = journey.data?.journey[0]?.id ?? assert.fail('no event');
    const created = await dealflow.POST('/deals/request-to-edit', {
      body: { workflowEventId, type: 'Investment Amount', reason: 'More', newData: { committed_amount: '30000.00' } },
    });
    assert.equal(created.response.status, 201);
    const requests = await dealflow.GET('/deals/request-to-edit/filtered', { params: { query: { dealId, investorUserId } } });
    assert.equal(requests.data?.[0]?.dateRecieved, created.data?.dateRecieved);
    const requestId = created.data?.id ?? assert.fail('no request');
    // The decision's body is optional: none at all.
    const approved = await dealflow.POST('/deals/request-to-edit/{requestId}/approve', { params: { path: { requestId } } });
    assert.equal(approved.data?.status, 'approved');
  });

  test('createSubscription: an asset and a subscription transaction, and a wrong total with its typed problem', async () => {
    const assetId = uniqueAssetId();
    const asset = await dealflow.PUT('/portfolio/assets/{assetId}', { params: { path: { assetId } }, body: { name: 'Typed A', currency: 'EUR' } });
    assert.equal(asset.response.status, 201);
    const booking = {
      asset_id: assetId,
      investor_id: investorUserId,
      units: 10,
      price_per_unit: 100.5,
      total: 1005,
      fee: 12.5,
      funding_source: 'cash_account',
      invoice_date: '2026-03-01',
      settlement_date: '2026-03-05',
    } as const;
    const booked = await dealflow.POST('/portfolio/transactions/subscriptions', { body: booking });
    assert.equal(booked.response.status, 201);
    assert.equal(booked.data?.investor_id, investorUserId);
    const read = await dealflow.GET('/portfolio/transactions/subscriptions/{id}', { params: { path: { id: booked.data?.id ?? '' } } });
    assert.equal(read.data?.total, booked.data?.total);

    const wrong = await dealflow.POST('/portfolio/transactions/subscriptions', {
      body: { ...booking, units: 3, price_per_unit: 0.333333, total: 0.99 },
    });
    assert.equal(wrong.response.status, 422);
    assert.ok(isProblem(wrong.error, 'unprocessable'));
    assert.equal(wrong.error.expectedTotal, '1.00');
  });
});
