// The investor portal's sign-in through the HTTP edge: invitations, passkey registration, sign-in,
// sessions and their cookie, CSRF and Origin checks, the API behind the cookie, and the audit log.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { expectProblem, startApp } from '../support/app.ts';
import { verify } from '../support/audit.ts';
import { commit, createDeal, createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { invitationToken, portal, portalSetCookie } from '../support/portal.ts';
import { SoftAuthenticator } from '../support/webauthn.ts';
import { eventually } from '../support/webhooks.ts';

describe('portal access', () => {
  let now = Date.parse('2026-05-04T09:00:00.000Z');
  const clock = () => new Date(now);
  const minutes = (n: number) => n * 60_000;

  const t = startApp({ clock, env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';
  const p = () => portal(t.app, t.config.basePath, origin);

  const INVALID = 'The invitation is not valid or has expired; ask for a new one';

  async function invitedInvestor(overrides: Parameters<typeof createInvestor>[1] = {}) {
    const investor = await createInvestor(t.admin, overrides);
    const [invitation] = await p().invite(t.admin, [investor.id]);
    return { investorUserId: investor.id, name: investor.body.contact.fullName, invitation: invitation!, token: invitationToken(invitation!.url) };
  }

  describe('invitations', () => {
    test('one link per investor under PUBLIC_URL, valid PORTAL_INVITATION_DAYS, not e-mailed without SMTP_URL', async () => {
      const a = await createInvestor(t.admin);
      const b = await createInvestor(t.admin, { email: null });
      const invitations = await p().invite(t.admin, [a.id, b.id]);
      assert.deepEqual(
        invitations.map((i) => i.investorUserId),
        [a.id, b.id],
      );
      for (const i of invitations) {
        assert.match(i.url, /^http:\/\/localhost:3000\/portal\/#\/welcome\/[A-Za-z0-9_-]{43}$/);
        assert.equal(i.expiresAt, new Date(now + 7 * 24 * 60 * 60_000).toISOString());
        assert.equal(i.emailed, false);
      }
      assert.notEqual(invitations[0]!.url, invitations[1]!.url);
    });

    test('an unknown investor id: 404 naming it, and nothing is created or revoked', async () => {
      const known = await invitedInvestor();
      const response = await t.admin.post('/investors/portal-invitations', { investorUserIds: [known.investorUserId, 'inv-nobody'] });
      const problem = expectProblem(response, 404);
      assert.match(problem.detail, /"inv-nobody"/);
      const { rows } = await sql<{ n: string }>`select count(*) as n from sign_in_invitations where subject_id = ${known.investorUserId}`.execute(
        t.database.db,
      );
      assert.equal(Number(rows[0]!.n), 1);
      // The earlier invitation still works.
      assert.equal((await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: known.token })).status, 200);
    });

    test('investor tokens may not invite; duplicates and empty lists are malformed', async () => {
      const investor = await createInvestor(t.admin);
      const token = await t.investorToken(investor.id);
      const { client } = await import('../support/app.ts');
      expectProblem(await client(t.app, token).post('/investors/portal-invitations', { investorUserIds: [investor.id] }), 403);
      expectProblem(await t.admin.post('/investors/portal-invitations', { investorUserIds: [investor.id, investor.id] }), 400);
      expectProblem(await t.admin.post('/investors/portal-invitations', { investorUserIds: [] }), 400);
    });

    test('registration options name the investor; an unknown, used, revoked or expired invitation is the same 404', async () => {
      const fresh = await invitedInvestor({ forename: 'Grace', surname: 'Hopper' });
      const options = await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: fresh.token });
      assert.equal(options.status, 200);
      assert.deepEqual(options.body.investor, { investorUserId: fresh.investorUserId, name: 'Grace Hopper' });
      assert.equal(options.body.options.rp.id, 'localhost');
      assert.equal(options.body.options.authenticatorSelection.residentKey, 'required');
      assert.equal(Buffer.from(options.body.options.user.id, 'base64url').toString('utf8'), fresh.investorUserId);

      const asked = (invitation: string) => p().anonymous.post('/portal/api/passkeys/registration-options', { invitation });
      const answers = [];
      answers.push(await asked('not-a-token'));
      // Used: registered with once.
      const used = await invitedInvestor();
      await p().register(used.token);
      answers.push(await asked(used.token));
      // Revoked: a newer invitation for the same investor.
      const revoked = await invitedInvestor();
      await p().invite(t.admin, [revoked.investorUserId]);
      answers.push(await asked(revoked.token));
      // Expired (an answer made before it expired is refused after).
      const expiring = await invitedInvestor();
      const { response } = await p().registrationAnswer(expiring.token);
      now += 7 * 24 * 60 * 60_000 + 1;
      answers.push(await asked(expiring.token));
      for (const answer of answers) assert.equal(expectProblem(answer, 404).detail, INVALID);
      // Registering with any of them is refused alike.
      for (const token of ['not-a-token', used.token, revoked.token, expiring.token]) {
        assert.equal(expectProblem(await p().anonymous.post('/portal/api/passkeys', { invitation: token, response }), 404).detail, INVALID);
      }
    });
  });

  describe('registration and the session cookie', () => {
    test('register: 201 with the session, and the cookie HttpOnly, Secure, SameSite=Strict on the portal path', async () => {
      const investor = await invitedInvestor({ forename: 'Ada', surname: 'Byron' });
      const { response, session } = await p().register(investor.token);
      assert.equal(response.body.investorUserId, investor.investorUserId);
      assert.equal(response.body.name, 'Ada Byron');
      assert.equal(response.body.expiresAt, new Date(now + minutes(30)).toISOString());
      assert.ok(!('sessionId' in response.body));
      const cookie = portalSetCookie(response.headers)!;
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /; SameSite=Strict/);
      assert.match(cookie, /; Path=\/portal\//);

      const read = await session.api.get('/portal/api/session');
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, {
        investorUserId: investor.investorUserId,
        name: 'Ada Byron',
        csrfToken: session.csrfToken,
        expiresAt: response.body.expiresAt,
      });
      expectProblem(await p().anonymous.get('/portal/api/session'), 401);
      expectProblem(await p().anonymous.get('/portal/api/session', { cookie: 'dealflow_portal=forged' }), 401);
    });

    test('the invitation is used once: registering again with it is refused', async () => {
      const investor = await invitedInvestor();
      const { response } = await p().registrationAnswer(investor.token);
      assert.equal((await p().anonymous.post('/portal/api/passkeys', { invitation: investor.token, response })).status, 201);
      assert.equal(expectProblem(await p().anonymous.post('/portal/api/passkeys', { invitation: investor.token, response }), 404).detail, INVALID);
    });

    test('a registration answer is single use and bound to its invitation: replayed with a new invitation it is refused', async () => {
      const investor = await invitedInvestor();
      const first = await p().registrationAnswer(investor.token);
      assert.equal((await p().anonymous.post('/portal/api/passkeys', { invitation: investor.token, response: first.response })).status, 201);
      const [again] = await p().invite(t.admin, [investor.investorUserId]);
      const token = invitationToken(again!.url);
      await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: token });
      expectProblem(await p().anonymous.post('/portal/api/passkeys', { invitation: token, response: first.response }), 400);
      // The new invitation is still good for its own options.
      await p().register(token);
    });

    test('an answer made for another origin does not verify', async () => {
      const investor = await invitedInvestor();
      const authenticator = new SoftAuthenticator(origin);
      const options = await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: investor.token });
      const { response } = authenticator.register(options.body.options, { origin: 'https://phish.example' });
      expectProblem(await p().anonymous.post('/portal/api/passkeys', { invitation: investor.token, response }), 400);
    });

    test('sessions last PORTAL_SESSION_MINUTES idle, are renewed on use, and end 12 hours after sign-in', async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const signedInAt = now;
      for (let i = 0; i < 26; i++) {
        now += minutes(29);
        const read = await session.api.get('/portal/api/session');
        if (now - signedInAt < 12 * 60 * 60_000) {
          assert.equal(read.status, 200, `after ${i + 1} renewals`);
          const renewedTo = new Date(Math.min(now + minutes(30), signedInAt + 12 * 60 * 60_000));
          assert.equal(read.body.expiresAt, renewedTo.toISOString());
          // The renewal is written off the request path: it lands on its own, right after the answer.
          await eventually(
            async () => {
              const { rows } = await sql<{
                expires_at: Date;
              }>`select expires_at from sign_in_sessions where subject_id = ${investor.investorUserId}`.execute(t.database.db);
              return rows[0]!.expires_at.getTime() === renewedTo.getTime() || undefined;
            },
            5000,
            'the renewal written',
          );
        } else {
          expectProblem(read, 401);
        }
      }
      const idle = await p().register((await p().invite(t.admin, [investor.investorUserId])).map((i) => invitationToken(i.url))[0]!);
      now += minutes(31);
      expectProblem(await idle.session.api.get('/portal/api/session'), 401);
    });
  });

  describe('the API behind the cookie', () => {
    test("investor routes answer for the session's investor; admin-only routes answer 403", async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const whoami = await session.api.get('/portal/api/whoami');
      assert.equal(whoami.status, 200);
      assert.deepEqual(whoami.body, { userId: investor.investorUserId, role: 'investor', investorUserId: investor.investorUserId });
      const own = await session.api.get(`/portal/api/investors/${investor.investorUserId}`);
      assert.equal(own.status, 200);
      assert.equal(own.body.id, investor.investorUserId);
      expectProblem(await session.api.post('/portal/api/investors/portal-invitations', { investorUserIds: [investor.investorUserId] }), 403);
      expectProblem(await session.api.get('/portal/api/audit/checkpoints'), 403);
      // Without the cookie: 401, bearer token or not.
      expectProblem(await p().anonymous.get('/portal/api/whoami', { authorization: `Bearer ${t.adminToken}` }), 401);
    });

    test("another investor's records answer exactly as unknown ones", async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const mine = await createDeal(t.admin, { workflow: 'subscription' });
      const theirs = await createDeal(t.admin, { workflow: 'subscription' });
      await jump(t.admin, mine.dealId, investor.investorUserId, mine.steps.interest);
      await commit(t.admin, theirs, (await createInvestor(t.admin)).id);
      const visible = (r: Awaited<ReturnType<typeof session.api.get>>, id: string) => {
        const problem = expectProblem(r, r.status);
        return { status: problem.status, type: problem.type, detail: problem.detail.split(id).join('<id>') };
      };
      const unknown = uniqueId('deal');
      const other = await session.api.get(`/portal/api/deals/deal/${theirs.dealId}/workflow-status`);
      assert.equal(other.status, 404);
      assert.deepEqual(visible(other, theirs.dealId), visible(await session.api.get(`/portal/api/deals/deal/${unknown}/workflow-status`), unknown));
      assert.equal((await session.api.get(`/portal/api/deals/deal/${mine.dealId}/workflow-status`)).status, 200, 'the control: their own deal');
      // Another investor's directory entry: the same refusal as an unknown one.
      const someone = (await createInvestor(t.admin)).id;
      const entry = await session.api.get(`/portal/api/investors/${someone}`);
      const nobody = await session.api.get('/portal/api/investors/inv-unknown-x');
      assert.equal(entry.status, 404);
      assert.deepEqual(visible(entry, someone), visible(nobody, 'inv-unknown-x'));
    });

    test('a write through the cookie acts as the investor: an edit request with the CSRF token is made, without it nothing is', async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const deal = await createDeal(t.admin, { workflow: 'subscription' });
      const event = await commit(t.admin, deal, investor.investorUserId);
      const body = { workflowEventId: event.id, type: 'Withdraw Investment', reason: 'changed my mind' };
      expectProblem(await session.api.post('/portal/api/deals/request-to-edit', body, { 'x-csrf-token': 'wrong' }), 403);
      const count = async () =>
        Number((await sql<{ n: string }>`select count(*) as n from edit_requests where workflow_event_id = ${event.id}`.execute(t.database.db)).rows[0]!.n);
      assert.equal(await count(), 0);
      const made = await session.api.post('/portal/api/deals/request-to-edit', body);
      assert.equal(made.status, 201, made.text);
      assert.equal(await count(), 1);
    });

    test('a write without the CSRF token, or with a wrong one, is 403 and changes nothing', async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      expectProblem(await session.api.post('/portal/api/sign-out', {}, { 'x-csrf-token': '' }), 403);
      // One character changed (never to the one it was: a token ending in A changed to A would be the same token).
      const wrong = `${session.csrfToken.slice(0, -1)}${session.csrfToken.endsWith('A') ? 'B' : 'A'}`;
      expectProblem(await session.api.post('/portal/api/sign-out', {}, { 'x-csrf-token': wrong }), 403);
      const bare = await t.app.inject({
        method: 'POST',
        url: '/portal/api/sign-out',
        headers: { cookie: `dealflow_portal=${session.cookie}`, 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(bare.statusCode, 403);
      // A mirrored write too.
      expectProblem(await session.api.post('/portal/api/deals/request-to-edit', {}, { 'x-csrf-token': 'wrong' }), 403);
      assert.equal((await session.api.get('/portal/api/session')).status, 200, 'still signed in');
    });

    test("a write from another origin is refused; PUBLIC_URL's origin is accepted", async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      expectProblem(await session.api.post('/portal/api/sign-out', {}, { origin: 'https://evil.example' }), 403);
      expectProblem(await p().anonymous.post('/portal/api/sessions/options', {}, { origin: 'https://evil.example' }), 403);
      assert.equal((await session.api.get('/portal/api/session')).status, 200, 'still signed in');
      assert.equal((await p().anonymous.post('/portal/api/sessions/options', {}, { origin })).status, 200);
      assert.equal((await session.api.post('/portal/api/sign-out', {}, { origin })).status, 204);
    });
  });

  describe('signing in and out', () => {
    test('sign in with the passkey: a new session; the answer cannot be replayed', async () => {
      const investor = await invitedInvestor();
      const { authenticator } = await p().register(investor.token);
      const response = await p().signInAnswer(authenticator);
      const signedIn = await p().anonymous.post('/portal/api/sessions', { response });
      assert.equal(signedIn.status, 201);
      assert.equal(signedIn.body.investorUserId, investor.investorUserId);
      assert.match(portalSetCookie(signedIn.headers)!, /HttpOnly; Secure; SameSite=Strict|SameSite=Strict/);
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response }), 401);
    });

    test('a counter that does not grow is refused (a cloned authenticator)', async () => {
      const investor = await invitedInvestor();
      const { authenticator } = await p().register(investor.token);
      await p().signIn(authenticator); // counter 1
      await p().signIn(authenticator); // counter 2
      const cloned = await p().signInAnswer(authenticator, { counter: 2 });
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: cloned }), 401);
      const back = await p().signInAnswer(authenticator, { counter: 1 });
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: back }), 401);
      await p().signInAnswer(authenticator, { counter: 2 });
      assert.ok(await p().signIn(authenticator));
    });

    test('an unknown passkey, or an answer to no options, is 401', async () => {
      const stranger = new SoftAuthenticator(origin);
      stranger.register({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'aW52LW5vYm9keQ' } });
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: await p().signInAnswer(stranger) }), 401);
      const investor = await invitedInvestor();
      const { authenticator } = await p().register(investor.token);
      const made = authenticator.authenticate({ challenge: Buffer.from('never asked').toString('base64url') });
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: made }), 401);
    });

    test('sign out: 204, the cookie cleared, the session over', async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const out = await session.api.post('/portal/api/sign-out');
      assert.equal(out.status, 204);
      const cleared = portalSetCookie(out.headers)!;
      assert.match(cleared, /^dealflow_portal=;/);
      assert.match(cleared, /Expires=Thu, 01 Jan 1970/);
      assert.match(cleared, /Path=\/portal\//);
      expectProblem(await session.api.get('/portal/api/session'), 401);
      expectProblem(await session.api.get('/portal/api/whoami'), 401);
    });

    test('sign out everywhere ends every session of the investor, and only theirs', async () => {
      const investor = await invitedInvestor();
      const { authenticator, session: first } = await p().register(investor.token);
      const second = await p().signIn(authenticator);
      const someoneElse = (await p().register((await invitedInvestor()).token)).session;
      assert.equal((await first.api.post('/portal/api/sign-out', { everywhere: true })).status, 204);
      expectProblem(await first.api.get('/portal/api/session'), 401);
      expectProblem(await second.api.get('/portal/api/session'), 401);
      assert.equal((await someoneElse.api.get('/portal/api/session')).status, 200);
      // Signing in again works.
      assert.equal((await (await p().signIn(authenticator)).api.get('/portal/api/session')).status, 200);
    });

    test('a new invitation used replaces the passkey: the old one no longer signs in, its sessions are over', async () => {
      const investor = await invitedInvestor();
      const old = await p().register(investor.token);
      const [again] = await p().invite(t.admin, [investor.investorUserId]);
      const renewed = await p().register(invitationToken(again!.url));
      expectProblem(await old.session.api.get('/portal/api/session'), 401);
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: await p().signInAnswer(old.authenticator) }), 401);
      assert.equal((await (await p().signIn(renewed.authenticator)).api.get('/portal/api/session')).status, 200);
    });
  });

  describe('the audit log', () => {
    test("every change is an entry of the investor's portal chain, and verify passes", async () => {
      const investor = await invitedInvestor();
      const old = await p().register(investor.token);
      const [again] = await p().invite(t.admin, [investor.investorUserId]);
      const renewed = await p().register(invitationToken(again!.url));
      const session = await p().signIn(renewed.authenticator);
      await session.api.post('/portal/api/sign-out', { everywhere: true });
      const { rows } = await sql<{ type: string; change: Record<string, unknown> }>`
      select type, change from audit_log where chain = ${`portal:${investor.investorUserId}`} order by seq`.execute(t.database.db);
      assert.deepEqual(
        rows.map((r) => r.type),
        [
          'portal.invitation-created',
          'portal.passkey-registered',
          'portal.signed-in',
          'portal.invitation-created',
          'portal.passkey-replaced',
          'portal.signed-out',
          'portal.passkey-registered',
          'portal.signed-in',
          'portal.signed-in',
          'portal.signed-out',
        ],
      );
      assert.equal(rows[4]!.change.credentialId, old.authenticator.credentials[0]!.id);
      for (const r of rows) assert.equal(r.change.investorUserId, investor.investorUserId);
      assert.ok(!JSON.stringify(rows).includes(investor.token), 'no secret in the log');
      const result = await verify(t.database.db);
      assert.equal(result.code, 0, result.output);
    });

    test('a revoked invitation is recorded', async () => {
      const investor = await invitedInvestor();
      await p().invite(t.admin, [investor.investorUserId]);
      const { rows } = await sql<{ type: string }>`
      select type from audit_log where chain = ${`portal:${investor.investorUserId}`} order by seq`.execute(t.database.db);
      assert.deepEqual(
        rows.map((r) => r.type),
        ['portal.invitation-created', 'portal.invitation-revoked', 'portal.invitation-created'],
      );
    });

    test('erasing an investor ends their portal access: sessions, passkey and open invitations', async () => {
      const investor = await invitedInvestor();
      const { authenticator, session } = await p().register(investor.token);
      const [open] = await p().invite(t.admin, [investor.investorUserId]);
      const erased = await t.admin.post(`/investors/${investor.investorUserId}/erasure`, {});
      assert.equal(erased.status, 200, erased.text);
      expectProblem(await session.api.get('/portal/api/session'), 401);
      expectProblem(await p().anonymous.post('/portal/api/sessions', { response: await p().signInAnswer(authenticator) }), 401);
      assert.equal(
        expectProblem(await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: invitationToken(open!.url) }), 404).detail,
        INVALID,
      );
      const { rows } = await sql<{ type: string }>`
      select type from audit_log where chain = ${`portal:${investor.investorUserId}`} order by seq desc limit 3`.execute(t.database.db);
      assert.deepEqual(rows.map((r) => r.type).sort(), ['portal.invitation-revoked', 'portal.passkey-replaced', 'portal.signed-out']);
      const result = await verify(t.database.db);
      assert.equal(result.code, 0, result.output);
    });

    test('only hashes of secrets are stored', async () => {
      const investor = await invitedInvestor();
      const { session } = await p().register(investor.token);
      const { rows } = await sql<{ n: string }>`select count(*) as n from sign_in_invitations where token_hash = ${investor.token}`.execute(t.database.db);
      assert.equal(Number(rows[0]!.n), 0);
      const sessions = await sql<{ n: string }>`select count(*) as n from sign_in_sessions where token_hash = ${session.cookie}`.execute(t.database.db);
      assert.equal(Number(sessions.rows[0]!.n), 0);
    });
  });
});
