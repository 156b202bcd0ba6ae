// Transactional e-mails through the outbox, on PGlite and PostgreSQL: each action enqueues its mail
// in its own transaction, the dispatcher sends it to a real SMTP server (smtp-server) in the test,
// and what arrived is read back with mailparser: once each, plain text and HTML, the deal's name as
// sender name, values escaped in HTML.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createMailDispatcher, type MailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { client } from '../support/app.ts';
import { commit, createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { postStatement } from '../support/payments.ts';
import { startAppWithMail } from '../support/smtp.ts';

describe('transactional e-mails', () => {
  let dispatcher: MailDispatcher;
  const { t, smtp } = startAppWithMail({
    env: {
      PUBLIC_URL: 'https://deals.example.com',
    } as Record<string, string>,
  });
  const admin = t.admin;
  before(() => {
    dispatcher = createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl });
  });
  const to = (address: string) => smtp().arrived.filter((m) => m.envelopeTo.includes(address));
  const address = () => `${uniqueId('mail')}@example.com`;

  test('an invitation arrives once, in plain text and HTML, with a fixed Message-ID; none without an address', async () => {
    const mary = address();
    const withMail = await createInvestor(admin, { forename: 'Mary', surname: 'Somerville', email: mary });
    const without = await createInvestor(admin, { email: null });
    const response = await admin.post('/investors/portal-invitations', { investorUserIds: [withMail.id, without.id] });
    assert.equal(response.status, 201);
    const [mailed, notMailed] = response.body.invitations;
    assert.deepEqual([mailed.emailed, notMailed.emailed], [true, false]);
    assert.equal(to(mary).length, 0, 'nothing is sent inside the request');
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    const [mail, ...more] = to(mary);
    assert.equal(more.length, 0, 'once');
    assert.equal(mail!.subject, 'Your invitation to the investor portal');
    assert.equal(mail!.fromAddress, 'deals@example.com');
    assert.equal(mail!.fromName, 'Deals', "SMTP_FROM's name when no deal is concerned");
    assert.match(mail!.text, /Hello Mary Somerville,/);
    assert.ok(mail!.text.includes(mailed.url) && mail!.html.includes(mailed.url), 'the link in both parts');
    assert.match(mail!.messageId, /^<[0-9a-f-]{36}@example\.com>$/);
    assert.equal(mail!.parsed.headers.get('auto-submitted'), 'auto-generated');
    assert.ok(!/<img/i.test(mail!.html), 'no images, no tracking pixels');
  });

  test('an edit request decided: the deal name is the sender name, and HTML escapes what investors typed', async () => {
    const ann = address();
    const deal = await createDeal(admin, { workflow: 'subscription', name: 'Harbour & <Sons> Fund' });
    const investor = await createInvestor(admin, { forename: 'Ann', surname: '<b>Bold</b>', email: ann });
    const event = await commit(admin, deal, investor.id);
    const own = client(t.app, await t.investorToken(investor.id));
    const request = await own.post('/deals/request-to-edit', {
      workflowEventId: event.id,
      type: 'Investment Amount',
      reason: 'More',
      newData: { committed_amount: '30000.00' },
    });
    assert.equal(request.status, 201, JSON.stringify(request.body));
    const rejected = await admin.post(`/deals/request-to-edit/${request.body.id}/reject`, { reason: 'Closing is <full>' });
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    await dispatcher.runOnce();
    const decided = to(ann).filter((m) => m.subject.includes('edit request'));
    assert.equal(decided.length, 1);
    const [mail] = decided;
    assert.equal(mail!.fromName, 'Harbour & <Sons> Fund');
    assert.equal(mail!.subject, 'Harbour & <Sons> Fund: your edit request was rejected');
    assert.match(mail!.text, /Hello Ann <b>Bold<\/b>,/);
    assert.match(mail!.text, /Closing is <full>/);
    assert.match(mail!.html, /Hello Ann &lt;b&gt;Bold&lt;\/b&gt;,/);
    assert.match(mail!.html, /Closing is &lt;full&gt;/);
    assert.ok(!mail!.html.includes('<b>Bold'), 'no markup from data');
  });

  test('payment instructions when the investor commits, then payment received when a statement credits them', async () => {
    const payer = address();
    const { dealId, step } = await createDeal(admin, { workflow: 'paying', name: 'Harbour Shares' });
    const settings = await admin.put(`/deals/deal/${dealId}/payment-settings`, {
      paymentStepId: step('payment'),
      amountFieldKey: 'amount_received',
      dateFieldKey: 'received_on',
      beneficiaryName: 'Harbour Fund I',
      iban: 'BE71096123456769',
      bic: 'GKCCBEBB',
    });
    assert.equal(settings.status, 201, JSON.stringify(settings.body));
    const investor = await createInvestor(admin, { forename: 'Pat', surname: 'Payer', email: payer });
    await jump(admin, dealId, investor.id, step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });
    const reference = (await admin.get(`/deals/deal/${dealId}/all-payment-refernces`)).body.find((r: any) => r.investorUserId === investor.id).paymentReference;
    await dispatcher.runOnce();
    const [instructions, ...more] = to(payer);
    assert.equal(more.length, 0);
    assert.equal(instructions!.subject, 'Harbour Shares: how to pay 25000.00 EUR');
    assert.equal(instructions!.fromName, 'Harbour Shares');
    for (const part of [instructions!.text, instructions!.html]) {
      for (const expected of ['25000.00 EUR', reference, 'BE71096123456769', 'GKCCBEBB', 'Harbour Fund I', 'https://deals.example.com/portal/']) {
        assert.ok(part.includes(expected), `${expected} in ${part}`);
      }
    }
    // A part of the money arrives: one "received" mail with what remains.
    const csv = `date,amount,currency,reference,bank_reference\n2026-11-24,10000.00,EUR,${reference},PART-${dealId}\n`;
    const imported = await postStatement(t, csv, 'text/csv', '?bankReferenceColumn=bank_reference');
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    await dispatcher.runOnce();
    const received = to(payer).filter((m) => m.subject.includes('we received'));
    assert.equal(received.length, 1, JSON.stringify(to(payer).map((m) => m.subject)));
    assert.equal(received[0]!.subject, 'Harbour Shares: we received 10000.00 EUR');
    assert.match(received[0]!.text, /In all you have paid 10000\.00 EUR; 15000\.00 EUR remains\./);
    // Importing the same statement again books nothing and mails nothing.
    await postStatement(t, csv, 'text/csv', '?bankReferenceColumn=bank_reference');
    await dispatcher.runOnce();
    assert.equal(to(payer).length, 2);
  });

  test('a rolled-back action enqueues nothing', async () => {
    const nobody = address();
    const investor = await createInvestor(admin, { email: nobody });
    const refused = await admin.post('/investors/portal-invitations', { investorUserIds: [investor.id, uniqueId('missing')] });
    assert.equal(refused.status, 404);
    const { rows } = await sql<{ n: string }>`select count(*) as n from mails where recipient_address = ${nobody}`.execute(t.database.db);
    assert.equal(Number(rows[0]!.n), 0);
  });

  test("an investor's erasure blanks their mails, and one not yet sent is never sent", async () => {
    const gone = address();
    const investor = await createInvestor(admin, { forename: 'Gone', surname: 'Soon', email: gone });
    await admin.post('/investors/portal-invitations', { investorUserIds: [investor.id] });
    await dispatcher.runOnce();
    await admin.post('/investors/portal-invitations', { investorUserIds: [investor.id] });
    const erased = await admin.post(`/investors/${investor.id}/erasure`, { overrideRetention: true, reason: 'asked' });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    await dispatcher.runOnce();
    assert.equal(to(gone).length, 1, 'the second invitation was not sent');
    const { rows } = await sql<{ recipient_address: string; recipient_name: string; variables: unknown }>`
      select recipient_address, recipient_name, variables from mails where investor_user_id = ${investor.id}`.execute(t.database.db);
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual(row, { recipient_address: 'erased@invalid', recipient_name: '', variables: {} });
    await assert.rejects(sql`update mails set recipient_name = 'back' where investor_user_id = ${investor.id}`.execute(t.database.db), /append-only/);
  });

  test('a refusing server: retried later, then sent once; the history of attempts is kept', async () => {
    const retry = createMailDispatcher({
      db: t.database.db,
      smtp: { url: 'smtp://127.0.0.1:1', from: 'Deals <deals@example.com>' },
      mail: { ...t.config.mail, timeoutMs: 500 },
      publicUrl: t.config.portal.publicUrl,
      schedule: [0],
    });
    const later = address();
    const investor = await createInvestor(admin, { email: later });
    await admin.post('/investors/portal-invitations', { investorUserIds: [investor.id] });
    assert.ok((await retry.runOnce()) >= 1);
    await dispatcher.runOnce();
    assert.equal(to(later).length, 1);
    const { rows } = await sql<{ outcome: string }>`select o.outcome from mail_outcomes o join mails m on m.id = o.mail_id
      where m.recipient_address = ${later} order by o.attempt`.execute(t.database.db);
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['failed', 'sent'],
    );
  });
});
