// The portal's sign-in routes are rate-limited per client address, and invitations are e-mailed
// through SMTP_URL (enqueued with the invitation, sent by the mail dispatcher): here a real SMTP
// server (smtp-server) listening on a local port for the test.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createMailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { invitationToken, portal, portalSetCookie } from '../support/portal.ts';

describe('rate limits of the sign-in routes', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' } });

  test('over PORTAL_RATE_LIMIT_PER_MINUTE from one address: 429 problem with Retry-After', async () => {
    const { anonymous } = portal(t.app, t.config.basePath, t.config.portal.origin);
    for (let i = 0; i < 3; i++) assert.equal((await anonymous.post('/portal/api/sessions/options', {})).status, 200);
    const limited = await anonymous.post('/portal/api/sessions/options', {});
    const problem = expectProblem(limited, 429);
    assert.match(problem.detail, /More than 3 sign-in requests a minute from this address/);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // Every public sign-in route counts, invitations too.
    expectProblem(await anonymous.post('/portal/api/passkeys/registration-options', { invitation: 'x' }), 429);
    // The staff API is not limited by it.
    assert.equal((await t.admin.get('/whoami')).status, 200);
    // Per client address: another client behind the trusted proxy has its own count.
    const behindProxy = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 3; i++) assert.equal((await anonymous.post('/portal/api/sessions/options', {}, behindProxy)).status, 200);
    expectProblem(await anonymous.post('/portal/api/sessions/options', {}, behindProxy), 429);
  });
});

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** Quoted-printable soft line breaks and escapes undone (RFC 2045 section 6.7), enough to read the link. */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('invitation e-mails', () => {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const t = startApp({
    env: {
      get SMTP_URL() {
        return `smtp://127.0.0.1:${port}`;
      },
      SMTP_FROM: 'Deals <deals@example.com>',
      PUBLIC_URL: 'https://deals.example.com/gw',
      BASE_PATH: '/gw',
    } as Record<string, string>,
  });

  test('each investor with an address is sent the link, in plain text and HTML; one without is not', async () => {
    const admin = client(t.app, t.adminToken, t.config.basePath);
    const withMail = await createInvestor(admin, { forename: 'Mary', surname: 'Somerville', email: 'mary@example.com' });
    const without = await createInvestor(admin, { email: null });
    const response = await admin.post('/investors/portal-invitations', { investorUserIds: [withMail.id, without.id] });
    assert.equal(response.status, 201);
    const [mailed, notMailed] = response.body.invitations;
    assert.equal(mailed.emailed, true);
    assert.equal(notMailed.emailed, false);
    assert.match(mailed.url, /^https:\/\/deals\.example\.com\/gw\/portal\/#\/welcome\//);
    await createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl }).runOnce();
    assert.equal(received.length, 1);
    const [mail] = received;
    assert.equal(mail!.from, 'deals@example.com');
    assert.deepEqual(mail!.to, ['mary@example.com']);
    const text = unfold(mail!.raw);
    assert.match(text, /Subject: Your invitation to the investor portal/);
    assert.match(text, /Content-Type: text\/plain/);
    assert.match(text, /Content-Type: text\/html/);
    assert.match(text, /Hello Mary Somerville,/);
    assert.ok(text.includes(mailed.url), 'the link is in the mail');
    assert.ok(!/<img/i.test(text), 'no images, no tracking pixels');
    // The link's token works, under the base path, for PUBLIC_URL's origin.
    const investorPortal = portal(t.app, t.config.basePath, 'https://deals.example.com');
    const answer = await investorPortal.registrationAnswer(invitationToken(mailed.url));
    assert.equal(answer.options.options.rp.id, 'deals.example.com');
    const registered = await investorPortal.anonymous.post('/portal/api/passkeys', { invitation: invitationToken(mailed.url), response: answer.response });
    assert.equal(registered.status, 201);
    assert.match(portalSetCookie(registered.headers)!, /; Path=\/gw\/portal\//);
  });
});
