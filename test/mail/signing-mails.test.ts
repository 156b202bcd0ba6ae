// The mails of the signing of subscription agreements, on PGlite and PostgreSQL, sent to a real SMTP
// server (smtp-server) and read back: "a document to sign" once the investor enters the step from
// which a link leads to the step requiring the signed agreement (once, however often they enter
// it), "your countersigned copy" once an approver countersigned, and the staff digest counting the
// agreements signed by the investor and not countersigned yet (the view documents_to_countersign).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enqueueDueDigests } from '../../src/operations/mail-digest.ts';
import { createMailDispatcher, type MailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { createInvestor, jump } from '../support/deals.ts';

import { uniqueId } from '../support/fixtures.ts';
import { invitationToken, portal, staffDoor } from '../support/portal.ts';
import { agreementPath, sign } from '../support/signing.ts';
import { startAppWithMail } from '../support/smtp.ts';
import { agreementWorkflow } from '../support/workflows.ts';

const origin = 'http://localhost:3000';
let now = Date.parse('2026-06-01T08:00:00.000Z');
const clock = () => new Date(now);

describe('the mails of signing an agreement', () => {
  let dispatcher: MailDispatcher;
  const { t, smtp } = startAppWithMail({
    clock,
    env: {
      PORTAL_RATE_LIMIT_PER_MINUTE: '100000',
    } as Record<string, string>,
  });
  before(() => {
    dispatcher = createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl, clock });
  });
  const to = (address: string, subject: RegExp) => smtp().arrived.filter((m) => m.envelopeTo.includes(address.toLowerCase()) && subject.test(m.subject));
  const digest = async (address: string) => {
    await enqueueDueDigests({ db: t.database.db, clock, newId: () => crypto.randomUUID() }, { hourUtc: 7 });
    await dispatcher.runOnce();
    const [mail, ...more] = to(address, new RegExp(`What waits for you on ${clock().toISOString().slice(0, 10)}`));
    assert.equal(more.length, 0);
    return Number(/Documents to countersign: (\d+)\n/.exec(mail!.text)?.[1]);
  };

  test('to sign when the step before signing is entered, once; the countersigned copy once; the digest counts what waits', async () => {
    const dealId = uniqueId('deal');
    assert.equal((await t.admin.put(`/deals/deal/${dealId}`, { name: 'Harbour Fund V', currency: 'EUR' })).status, 201);
    assert.equal((await t.admin.put(`/deals/deal/${dealId}/workflow`, agreementWorkflow(dealId))).status, 201);
    const step = (name: string) => `${dealId}.${name}`;
    const mary = `${uniqueId('mary')}@example.com`;
    const investor = await createInvestor(t.admin, { forename: 'Mary', surname: 'Signer', email: mary });
    const door = portal(t.app, t.config.basePath, origin);
    const [invitation] = await door.invite(t.admin, [investor.id]);
    const ada = await door.register(invitationToken(invitation!.url));
    const staff = staffDoor(t.app, t.config.basePath, origin);
    // The digest's reader: invited, active, their digest on.
    const approverAddress = `${uniqueId('dana')}@example.com`;
    await staff.inviteStaff(t.admin, { email: approverAddress, name: 'Dana', role: 'approver' });
    const toSign = () => to(mary, /a document to sign/);

    await jump(t.admin, dealId, investor.id, step('interest'));
    await jump(t.admin, dealId, investor.id, step('commitment'), { committed_amount: '5000.00', currency: 'EUR', address_line1: '2 High St' });
    await dispatcher.runOnce();
    assert.equal(toSign().length, 0, 'no link leads from the commitment to the step requiring the agreement');
    await jump(t.admin, dealId, investor.id, step('signing'));
    await dispatcher.runOnce();
    const [mail, ...more] = toSign();
    assert.equal(more.length, 0);
    assert.equal(mail!.subject, 'Harbour Fund V: a document to sign');
    assert.equal(mail!.fromName, 'Harbour Fund V');
    assert.match(mail!.text, /"Subscription agreement" of Harbour Fund V is ready for your signature/);
    assert.ok(mail!.text.includes(`${origin}/portal/#/deals/${dealId}`), mail!.text);
    // Back and into the step again: no second mail.
    await jump(t.admin, dealId, investor.id, step('commitment'), { committed_amount: '5000.00', currency: 'EUR', address_line1: '2 High St' });
    await jump(t.admin, dealId, investor.id, step('signing'));
    await dispatcher.runOnce();
    assert.equal(toSign().length, 1, 'once per agreement and investor');
    assert.equal(await digest(approverAddress), 0, 'nothing signed yet');

    const url = agreementPath('portal', dealId, investor.id);
    const signed = await sign(ada.session, ada.authenticator, url, (await ada.session.api.get(url)).body.contentHash);
    assert.equal(signed.status, 201, signed.text);
    now += 86_400_000;
    assert.equal(await digest(approverAddress), 1, 'signed by the investor, not countersigned');
    await dispatcher.runOnce();
    assert.equal(to(mary, /countersigned copy/).length, 0, 'not before the countersignature');

    const bea = await staff.signedUp(t.admin, { email: `${uniqueId('bea')}@example.com`, name: 'Bea', role: 'approver' });
    const countersigned = await sign(bea.session, bea.authenticator, agreementPath('console', dealId, investor.id), signed.body.contentHash);
    assert.equal(countersigned.status, 201, countersigned.text);
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    const [copy, ...copies] = to(mary, /countersigned copy/);
    assert.equal(copies.length, 0);
    assert.equal(copy!.subject, 'Harbour Fund V: your countersigned copy');
    assert.match(copy!.html, /“Subscription agreement” of Harbour Fund V is now signed by both sides/);
    now += 86_400_000;
    assert.equal(await digest(approverAddress), 0, 'countersigned: nothing waits');

    // Signed already: entering the step before signing again mails nothing.
    await jump(t.admin, dealId, investor.id, step('commitment'), { committed_amount: '5000.00', currency: 'EUR', address_line1: '2 High St' });
    await jump(t.admin, dealId, investor.id, step('signing'));
    await dispatcher.runOnce();
    assert.equal(toSign().length, 1);
  });
});
