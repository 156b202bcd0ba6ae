// Workflow versions: every PUT makes one, events record theirs, journeys stay on theirs until a
// migration (POST …/workflow/migrate) moves them, with a dry run and the refusals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, type TestDeal } from '../support/deals.ts';
import { workflowBody } from '../support/workflows.ts';

describe('workflow versions and migration', () => {
  const t = startApp();
  const admin = t.admin;

  const versionsOf = async (dealId: string) => {
    const { rows } = await sql<{ investor_user_id: string; seq: number; to_step_id: string; workflow_version: number | null }>`
      select investor_user_id, seq, to_step_id, workflow_version from workflow_events where deal_id = ${dealId} order by investor_user_id, seq`.execute(
      t.database.db,
    );
    return rows;
  };
  const journeyVersion = async (dealId: string, investorUserId: string) => {
    const { rows } = await sql<{
      v: number;
    }>`select workflow_version as v from journeys where deal_id = ${dealId} and investor_user_id = ${investorUserId}`.execute(t.database.db);
    return rows[0]?.v;
  };

  /** Version 2: KYC becomes "identity" (same field), commitment asks for the source of funds, withdrawn goes. */
  const version2 = (deal: TestDeal, stepMapping?: Record<string, string>) => {
    const body = workflowBody(deal.dealId);
    const steps = body.steps
      .filter((s) => s.id !== deal.step('withdrawn'))
      .map((s) => {
        if (s.id === deal.step('kyc')) return { ...s, id: deal.step('identity'), label: 'Identity' };
        if (s.id === deal.step('commitment')) return { ...s, stepFields: [...s.stepFields, { fieldKey: 'source_of_funds', required: true }] };
        return s;
      });
    const rename = (id: string) => (id === deal.step('kyc') ? deal.step('identity') : id);
    const links = body.links
      .filter((l) => l.toStepId !== deal.step('withdrawn'))
      .map((l) => ({ fromStepId: rename(l.fromStepId), toStepId: rename(l.toStepId) }));
    return { ...body, steps, links, ...(stepMapping ? { stepMapping } : {}) };
  };

  test('every PUT is a version; workflow-status?version=N answers an older one as it was; unknown versions are 404, bad ones 400', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    await deal.move(a, 'interest');
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal))).status, 200);
    const now = await admin.get(`/deals/deal/${deal.dealId}/workflow-status`);
    assert.equal(now.body.version, 2);
    assert.ok(now.body.steps.some((s: any) => s.id === deal.step('identity')));
    const old = await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=1`);
    assert.equal(old.status, 200);
    assert.equal(old.body.version, 1);
    assert.deepEqual(
      old.body.steps.map((s: any) => s.id).sort(),
      workflowBody(deal.dealId)
        .steps.map((s) => s.id)
        .sort(),
    );
    assert.deepEqual((await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=2`)).body, now.body);
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=3`), 404);
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=0`), 400);
    expectProblem(await admin.get(`/deals/deal/${deal.dealId}/workflow-status?version=1.5`), 400);
    // An investor of the deal reads old versions too; another deal's investor learns nothing.
    const member = client(t.app, await t.investorToken(a));
    assert.equal((await member.get(`/deals/deal/${deal.dealId}/workflow-status?version=1`)).status, 200);
    const stranger = client(t.app, await t.investorToken(await deal.addInvestor()));
    expectProblem(await stranger.get(`/deals/deal/${deal.dealId}/workflow-status?version=1`), 404);
  });

  test('events keep the version they were made under; a journey moves on its own version until migrated', async () => {
    const deal = await createDeal(admin);
    const early = await deal.addInvestor();
    await deal.move(early, 'commitment', { committed_amount: '100.00', currency: 'EUR' });
    // Removing "kyc" under nobody, with a mapping given anyway; "withdrawn" under nobody.
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal))).status, 200);
    // The early investor is on version 1: "withdrawn" (gone from version 2) is still theirs to reach.
    await deal.move(early, 'withdrawn', { reason: 'changed plans' });
    const late = await deal.addInvestor();
    await deal.move(late, 'commitment', { committed_amount: '5.00', currency: 'EUR', source_of_funds: 'salary' });
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: late, targetStepId: deal.step('withdrawn'), data: {} }), 404);
    // Version 2 asks for the source of funds on the commitment; version 1 did not.
    const rows = await versionsOf(deal.dealId);
    assert.deepEqual(
      rows.map((r) => [r.investor_user_id, r.to_step_id, r.workflow_version]),
      [
        [early, deal.step('commitment'), 1],
        [early, deal.step('withdrawn'), 1],
        [late, deal.step('commitment'), 2],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : x[0]! > y[0]! ? 1 : 0)),
    );
    assert.equal(await journeyVersion(deal.dealId, early), 1);
    assert.equal(await journeyVersion(deal.dealId, late), 2);
  });

  test('a removed step with investors on it needs a stepMapping (409 naming the step and the count), in the PUT and in the migration', async () => {
    const deal = await createDeal(admin);
    const [k1, k2] = [await deal.addInvestor(), await deal.addInvestor()];
    for (const k of [k1, k2]) {
      await deal.move(k, 'commitment', { committed_amount: '10.00', currency: 'EUR' });
      await deal.move(k, 'kyc', { kyc_ref: `K-${k}` });
    }
    const refused = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal)), 409);
    assert.deepEqual(refused.steps, [{ stepId: deal.step('kyc'), investors: 2 }]);
    assert.match(refused.detail, new RegExp(`${deal.step('kyc')} \\(2 investors\\)`));
    const badMapping = expectProblem(await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal, { [deal.step('kyc')]: 'nowhere' })), 400);
    assert.equal(badMapping.errors?.[0]?.field, `stepMapping.${deal.step('kyc')}`);
    assert.equal((await admin.get(`/deals/deal/${deal.dealId}/workflow-status`)).body.version, 1, 'nothing changed');

    const saved = await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal, { [deal.step('kyc')]: deal.step('identity') }));
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    // A migration without that mapping: the version's own is used.
    const dry = await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate?dryRun=true`, {});
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(dry.body.stepMapping, { [deal.step('kyc')]: deal.step('identity') });
    assert.equal(dry.body.migrated, 2);
    // Overriding it with nothing left for "kyc": the migration is refused, naming the step and the count.
    const override = { stepMapping: { [deal.step('kyc')]: deal.step('kyc') } };
    const bad = expectProblem(await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`, override), 400);
    assert.match(bad.detail, /not a step of the current version/);
  });

  test('migration: the dry run lists who does not fit and writes nothing; the real run moves the rest as events; a removed step without mapping refuses it', async () => {
    const deal = await createDeal(admin);
    const atInterest = await deal.addInvestor();
    const atKyc = await deal.addInvestor();
    const atCommitment = await deal.addInvestor();
    const leaving = await deal.addInvestor();
    await deal.move(atInterest, 'interest');
    await deal.move(atKyc, 'commitment', { committed_amount: '10.00', currency: 'EUR' });
    await deal.move(atKyc, 'kyc', { kyc_ref: 'K-1' });
    await deal.move(atCommitment, 'commitment', { committed_amount: '20.00', currency: 'EUR' });
    await deal.move(leaving, 'commitment', { committed_amount: '30.00', currency: 'EUR' });
    const mapping = { [deal.step('kyc')]: deal.step('identity') };
    assert.equal((await admin.put(`/deals/deal/${deal.dealId}/workflow`, version2(deal, mapping))).status, 200);
    // On version 1, "leaving" withdraws: a step version 2 no longer has, with no mapping for it.
    await deal.move(leaving, 'withdrawn');
    const before = await versionsOf(deal.dealId);

    const dry = await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate?dryRun=true`);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.dryRun, true);
    assert.equal(dry.body.toVersion, 2);
    assert.equal(dry.body.journeys, 4);
    assert.equal(dry.body.migrated, 2);
    const byInvestor = new Map(dry.body.notFitting.map((m: any) => [m.investorUserId, m]));
    assert.deepEqual(byInvestor.get(atCommitment), {
      investorUserId: atCommitment,
      workflowVersion: 1,
      fromStepId: deal.step('commitment'),
      toStepId: deal.step('commitment'),
      reason: 'missing-fields',
      fields: ['source_of_funds'],
      detail: `${deal.step('commitment')} requires source_of_funds, not captured`,
    });
    assert.equal((byInvestor.get(leaving) as any).reason, 'step-removed');
    assert.equal((byInvestor.get(leaving) as any).toStepId, null);
    assert.deepEqual(await versionsOf(deal.dealId), before, 'a dry run writes nothing');

    const refused = expectProblem(await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`), 409);
    assert.deepEqual(refused.steps, [{ stepId: deal.step('withdrawn'), investors: 1 }]);
    assert.match(refused.detail, new RegExp(`${deal.step('withdrawn')} \\(1 investor\\)`));
    assert.deepEqual(await versionsOf(deal.dealId), before, 'a refused migration writes nothing');

    // Mapped to the new version's entry step... no: "withdrawn" has no counterpart, so map it back to interest.
    const run = await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`, { stepMapping: { [deal.step('withdrawn')]: deal.step('interest') } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.migrated, 3);
    assert.deepEqual(
      run.body.notFitting.map((m: any) => m.investorUserId),
      [atCommitment],
    );
    const journey = await admin.get(`/deals/deal/${deal.dealId}/investor-data/${atKyc}`);
    const last = journey.body.journey.at(-1);
    assert.equal(last.fromStepId, deal.step('kyc'));
    assert.equal(last.toStepId, deal.step('identity'));
    assert.deepEqual(last.data, {});
    assert.equal(await journeyVersion(deal.dealId, atKyc), 2);
    assert.equal(await journeyVersion(deal.dealId, atCommitment), 1, 'a journey that does not fit stays on its version');
    const after = await versionsOf(deal.dealId);
    assert.equal(after.length, before.length + 3);
    assert.deepEqual(
      after
        .filter((r) => r.workflow_version === 2)
        .map((r) => r.to_step_id)
        .sort(),
      [deal.step('identity'), deal.step('interest'), deal.step('interest')].sort(),
    );
    // Migrated journeys move on version 2 now: identity → documents.
    await deal.move(atKyc, 'documents', { signed: 'yes' });
    // Running it again moves nobody else.
    const again = await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`);
    assert.equal(again.body.migrated, 0);
    assert.equal(again.body.journeys, 1);
  });

  test('security: investors are refused (403), unknown deals are 404, bodies are checked', async () => {
    const deal = await createDeal(admin);
    const a = await deal.addInvestor();
    await deal.move(a, 'interest');
    const investor = client(t.app, await t.investorToken(a));
    expectProblem(await investor.post(`/deals/deal/${deal.dealId}/workflow/migrate`), 403);
    expectProblem(await admin.post(`/deals/deal/no-such-deal/workflow/migrate`), 404);
    expectProblem(await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`, { mapping: {} }), 400);
    const unknownStep = expectProblem(
      await admin.post(`/deals/deal/${deal.dealId}/workflow/migrate`, { stepMapping: { 'other.step': deal.step('interest') } }),
      400,
    );
    assert.match(unknownStep.detail, /not a step of this deal/);
  });
});
