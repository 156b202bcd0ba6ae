// PUT /deals/deal/{dealId}/workflow and getWorkflowStatus (workflow-status).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { workflowBody } from '../support/workflows.ts';
import { uniqueId } from '../support/fixtures.ts';

describe('workflows', () => {
  const t = startApp();
  const admin = t.admin;

  const newDeal = async () => {
    const dealId = uniqueId('deal');
    await admin.put(`/deals/deal/${dealId}`, { name: 'Deal' });
    return dealId;
  };

  test('PUT sets the workflow (201, then 200 re-applied) and workflow-status returns it field by field, in the stable order', async () => {
    const dealId = await newDeal();
    const body = workflowBody(dealId);
    const created = await admin.put(`/deals/deal/${dealId}/workflow`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const status = await admin.get(`/deals/deal/${dealId}/workflow-status`);
    assert.equal(status.status, 200);
    const w = status.body;
    assert.deepEqual(Object.keys(w).sort(), ['dealId', 'description', 'id', 'investorEngagementEnabled', 'label', 'steps', 'version']);
    assert.match(w.id, /^[0-9a-f-]{36}$/);
    assert.equal(w.dealId, dealId);
    assert.equal(w.label, 'Series A');
    assert.equal(w.description, 'Investor journey for the Series A round');
    assert.equal(w.investorEngagementEnabled, true);
    assert.equal(w.version, 1);
    // Entry steps first, then by depth, then by label: KYC and Withdrawn share depth 2.
    const s = (name: string) => `${dealId}.${name}`;
    assert.deepEqual(
      w.steps.map((step: any) => step.id),
      ['interest', 'commitment', 'kyc', 'withdrawn', 'documents', 'payment', 'complete'].map(s),
    );
    const commitment = w.steps[1];
    assert.deepEqual(commitment, {
      id: s('commitment'),
      label: 'Commitment',
      type: 'default',
      previousStepLinks: [{ fromStepId: s('interest'), toStepId: s('commitment'), investorMay: false }],
      nextStepLinks: [
        { fromStepId: s('commitment'), toStepId: s('kyc'), investorMay: false },
        { fromStepId: s('commitment'), toStepId: s('withdrawn'), investorMay: false },
      ],
      stepFields: [
        { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount', options: null },
        { fieldKey: 'currency', required: true, kind: 'currency', label: null, options: null },
      ],
      requirements: [],
      formId: null,
    });
    assert.deepEqual(w.steps[0].previousStepLinks, []);
    assert.deepEqual(w.steps[2].requirements, [{ kind: 'kyc-level', minimumLevel: 2 }]);
    assert.equal(w.steps[4].formId, 'form-documents');
    assert.deepEqual(w.steps[4].stepFields[0].options, ['yes', 'no']);
    assert.deepEqual(created.body, w, 'PUT answers with what workflow-status returns');

    const again = await admin.put(`/deals/deal/${dealId}/workflow`, { ...body, label: 'Series A (2)' });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, w.id, 'the workflow keeps its id');
    assert.equal(again.body.version, 2);
    assert.equal(again.body.label, 'Series A (2)');
  });

  test('an invalid workflow is a 400 naming every problem', async () => {
    const dealId = await newDeal();
    const body = workflowBody(dealId);
    const s = (name: string) => `${dealId}.${name}`;
    const bad = {
      ...body,
      steps: [
        { ...body.steps[0]!, type: 'finished' },
        {
          ...body.steps[1]!,
          stepFields: [
            { fieldKey: 'x', required: true },
            { fieldKey: 'x', required: false, kind: 'money' },
          ],
        },
        { ...body.steps[2]!, requirements: [{ kind: 'astrology' }, { kind: 'kyc-level' }, { kind: 'classification', classes: [] }] },
        { ...body.steps[3]!, stepFields: [{ fieldKey: 'signed', required: true, kind: 'choice' }] },
        { ...body.steps[4]!, id: 'has space' },
        { ...body.steps[5]!, id: s('interest') },
      ],
      links: [
        { fromStepId: s('interest'), toStepId: s('nowhere') },
        { fromStepId: s('commitment'), toStepId: s('kyc') },
        { fromStepId: s('kyc'), toStepId: s('commitment') },
      ],
    };
    const problem = expectProblem(await admin.put(`/deals/deal/${dealId}/workflow`, bad), 400);
    const fields = problem.errors!.map((e) => e.field);
    for (const field of [
      'steps.0.type',
      'steps.1.stepFields.1.fieldKey',
      'steps.1.stepFields.1.kind',
      'steps.2.requirements.0.kind',
      'steps.2.requirements.1.minimumLevel',
      'steps.2.requirements.2.classes',
      'steps.3.stepFields.0.options',
      'steps.4.id',
      'steps.5.id',
      'links.0.toStepId',
      'links',
    ]) {
      assert.ok(fields.includes(field), `${field} in ${JSON.stringify(problem.errors)}`);
    }
    assert.ok(problem.errors!.some((e) => e.field === 'links' && /cycle/.test(e.detail)));
    expectProblem(await admin.get(`/deals/deal/${dealId}/workflow-status`), 404);

    // No entry step at all: every step has an incoming link.
    const loop = {
      ...body,
      steps: body.steps.slice(0, 2),
      links: [
        { fromStepId: s('interest'), toStepId: s('commitment') },
        { fromStepId: s('commitment'), toStepId: s('interest') },
      ],
    };
    const noEntry = expectProblem(await admin.put(`/deals/deal/${dealId}/workflow`, loop), 400);
    assert.ok(noEntry.errors!.some((e) => /no entry step/.test(e.detail)));
    // Schema errors: unknown property, wrong type.
    const strict = expectProblem(await admin.put(`/deals/deal/${dealId}/workflow`, { ...body, extra: 1, investorEngagementEnabled: 'yes' }), 400);
    assert.deepEqual(strict.errors!.map((e) => e.field).sort(), ['extra', 'investorEngagementEnabled']);
  });

  test('unknown deal, deal without workflow, step ids of another deal', async () => {
    const missing = uniqueId('deal');
    expectProblem(await admin.put(`/deals/deal/${missing}/workflow`, workflowBody(missing)), 404);
    expectProblem(await admin.get(`/deals/deal/${missing}/workflow-status`), 404);
    const bare = await newDeal();
    expectProblem(await admin.get(`/deals/deal/${bare}/workflow-status`), 404);
    const deal = await createDeal(admin);
    const other = await newDeal();
    const problem = expectProblem(await admin.put(`/deals/deal/${other}/workflow`, workflowBody(deal.dealId)), 409);
    assert.ok((problem.stepIds as string[]).includes(deal.step('kyc')));
  });

  test('re-applying with investors in flight: a step where one stands cannot go (409 naming them); others retire', async () => {
    const deal = await createDeal(admin);
    const atKyc = await deal.addInvestor();
    const atCommitment = await deal.addInvestor();
    await deal.move(atKyc, 'commitment', { committed_amount: '1000.00', currency: 'EUR' });
    await deal.move(atKyc, 'kyc', { kyc_ref: 'K-1' });
    await deal.move(atCommitment, 'commitment', { committed_amount: '5.00', currency: 'USD' });
    const body = workflowBody(deal.dealId);
    const without = (names: string[]) => ({
      ...body,
      steps: body.steps.filter((st) => !names.some((n) => st.id === deal.step(n))),
      links: body.links.filter((l) => !names.some((n) => l.fromStepId === deal.step(n) || l.toStepId === deal.step(n))),
    });

    const refused = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, without(['kyc'])), 409);
    assert.deepEqual(refused.investors, [{ investorUserId: atKyc, stepId: deal.step('kyc') }]);
    assert.deepEqual(refused.steps, [{ stepId: deal.step('kyc'), investors: 1 }]);
    assert.match(refused.detail, new RegExp(`${deal.step('kyc')} \\(1 investor\\)`));

    // Removing an unoccupied step (and relinking) is fine; journeys keep naming their steps.
    const relinked = without(['withdrawn']);
    const applied = await admin.put(`/deals/deal/${deal.dealId}/workflow`, relinked);
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.ok(!applied.body.steps.some((st: any) => st.id === deal.step('withdrawn')));
    const journey = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${atKyc}`);
    assert.deepEqual(
      journey.body.journey.map((e: any) => e.toStepId),
      [deal.step('commitment'), deal.step('kyc')],
    );
    // An investor who starts now is on version 2, which has no "withdrawn" (those already in flight
    // stay on version 1 until migrated: test/workflows/workflow-versions.test.ts).
    const late = await deal.addInvestor();
    await deal.move(late, 'commitment', { committed_amount: '7.00', currency: 'EUR' });
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: late, targetStepId: deal.step('withdrawn'), data: {} }), 404);
    // A retired step comes back when a later document has it again.
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, body)).status, 200);
    const later = await deal.addInvestor();
    await deal.move(later, 'commitment', { committed_amount: '8.00', currency: 'EUR' });
    await deal.move(later, 'withdrawn', { reason: 'changed my mind' });
  });

  test('investors read the workflow of a deal they are in, and nothing else', async () => {
    const deal = await createDeal(admin);
    const inDeal = await deal.addInvestor();
    const outside = await deal.addInvestor();
    await deal.move(inDeal, 'interest');
    const member = client(t.app, await t.investorToken(inDeal));
    assert.equal((await member.get(`/deals/deal/${deal.dealId}/workflow-status`)).status, 200);
    // A deal they are not in is unknown to them: 404, as for a deal that does not exist.
    expectProblem(await client(t.app, await t.investorToken(outside)).get(`/deals/deal/${deal.dealId}/workflow-status`), 404);
    expectProblem(await member.put(`/deals/deal/${deal.dealId}/workflow`, workflowBody(deal.dealId)), 403);
    expectProblem(await client(t.app).get(`/deals/deal/${deal.dealId}/workflow-status`), 401);
  });
});
