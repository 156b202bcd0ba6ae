// A step that requires the signed subscription agreement: a move into it is refused (422 naming the
// document) until the investor signed it and an approver countersigned it; the investor's own move
// along a link open to them follows the same rule.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { invitationToken, portal, staffDoor } from '../support/portal.ts';
import { agreementPath, sign } from '../support/signing.ts';
import { agreementWorkflow } from '../support/workflows.ts';

describe('signed agreement moves', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';

  describe('a step that requires the signed agreement', () => {
    test('refused before the signature and before the countersignature, allowed after, for staff and the investor alike', async () => {
      const dealId = uniqueId('deal');
      assert.equal((await t.admin.put(`/deals/deal/${dealId}`, { name: 'Fund V', currency: 'EUR' })).status, 201);
      assert.equal((await t.admin.put(`/deals/deal/${dealId}/workflow`, agreementWorkflow(dealId))).status, 201);
      const step = (name: string) => `${dealId}.${name}`;
      const door = portal(t.app, t.config.basePath, origin);
      const enter = async () => {
        const investor = await createInvestor(t.admin);
        const [invitation] = await door.invite(t.admin, [investor.id]);
        const signedIn = await door.register(invitationToken(invitation!.url));
        await jump(t.admin, dealId, investor.id, step('interest'));
        await jump(t.admin, dealId, investor.id, step('commitment'), { committed_amount: '5000.00', currency: 'EUR', address_line1: '2 High St' });
        await jump(t.admin, dealId, investor.id, step('signing'));
        return { id: investor.id, ...signedIn, url: agreementPath('portal', dealId, investor.id) };
      };
      const ada = await enter();
      // What the portal shows of the step ahead: what it waits for, and who is to act.
      const waits = async () =>
        (await ada.session.api.get(`/portal/api/investors/${ada.id}/deals/${dealId}`)).body.nextSteps.find((s: { id: string }) => s.id === step('closing'))
          .waitingFor;
      const ownMove = () =>
        ada.session.api.post(`/portal/api/deals/deal/${dealId}/jump-to-step`, { investorUserId: ada.id, targetStepId: step('closing'), data: {} });
      const staffMove = () => t.admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: ada.id, targetStepId: step('closing'), data: {} });

      for (const refused of [expectProblem(await staffMove(), 422), expectProblem(await ownMove(), 422)]) {
        assert.match(refused.detail, /requirements not met: signed-agreement/);
        assert.deepEqual(refused.failedRequirements, [
          { kind: 'signed-agreement', detail: 'the subscription agreement is not signed yet: the investor signs it, then an approver countersigns it' },
        ]);
      }
      assert.deepEqual(await waits(), ['investor-signature', 'countersignature']);
      const { contentHash } = (await ada.session.api.get(ada.url)).body;
      const signed = await sign(ada.session, ada.authenticator, ada.url, contentHash);
      assert.equal(signed.status, 201, signed.text);
      assert.match(expectProblem(await ownMove(), 422).detail, /signed-agreement/);
      assert.deepEqual(expectProblem(await staffMove(), 422).failedRequirements, [
        { kind: 'signed-agreement', detail: 'the subscription agreement is signed by the investor but not countersigned yet' },
      ]);
      assert.deepEqual(await waits(), ['countersignature']);

      const bea = await staffDoor(t.app, t.config.basePath, origin).signedUp(t.admin, { email: `${uniqueId('b')}@example.com`, name: 'Bea', role: 'approver' });
      const countersigned = await sign(bea.session, bea.authenticator, agreementPath('console', dealId, ada.id), signed.body.contentHash);
      assert.equal(countersigned.status, 201, countersigned.text);
      assert.deepEqual(await waits(), []);
      const moved = await ownMove();
      assert.equal(moved.status, 201, moved.text);
      assert.equal(moved.body.toStepId, step('closing'));

      // Another investor of the deal is still held back: the agreement is each investor's own.
      const bob = await enter();
      assert.match(
        expectProblem(await t.admin.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: bob.id, targetStepId: step('closing'), data: {} }), 422)
          .detail,
        /signed-agreement/,
      );
    });
  });
});
