// Over HTTP: an investor who resembles a listed person is screened at creation and refused (422)
// a move into the deal's payment step, and moves freely elsewhere; a dismissal unblocks.
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { describe, test } from 'node:test';
import type { Principal } from '../../src/domain/principal.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { decideSanctionsHit, listBlockingHits, loadSanctionsList } from '../../src/operations/sanctions.ts';
import { expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { payingDeal } from '../support/payments.ts';

const staff: Principal = { userId: 'staff-1', role: 'admin', tokenKey: 'test' };

describe('sanctions block at the payment step', () => {
  const started = startApp();
  const deps = () => ({ db: started.database.db, clock: systemClock, newId: newUuid });

  test('a listed alias, swapped and without diacritics, is blocked at the payment step until a dismissal', async () => {
    await loadSanctionsList(deps(), staff, 'eu-fsf.xml', createReadStream(new URL('../fixtures/sanctions/eu-fsf.xml', import.meta.url)));
    const deal = await payingDeal(started.admin, { letters: [] });
    const { id } = await createInvestor(started.admin, {
      forename: 'Sokolov',
      surname: 'Dmitrij Ivanovic',
      email: 'ds@example.com',
      dateOfBirth: '1968-02-03',
    });
    const { id: clear } = await createInvestor(started.admin, { forename: 'Grace', surname: 'Hopper' });
    for (const investor of [id, clear]) {
      await jump(started.admin, deal.dealId, investor, deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });
    }
    const payment = { amount_received: '25000.00', received_on: '2026-11-20' };
    const refused = await started.admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: id,
      targetStepId: deal.step('payment'),
      data: payment,
    });
    expectProblem(refused, 422);
    assert.match(refused.body.detail, /sanctions/);
    await jump(started.admin, deal.dealId, clear, deal.step('payment'), payment);

    const [hit] = await listBlockingHits(deps(), id);
    await decideSanctionsHit(deps(), staff, hit!.id, 'dismiss', 'Another person: different date of birth');
    await jump(started.admin, deal.dealId, id, deal.step('payment'), payment);
  });
});
