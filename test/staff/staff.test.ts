// Staff people through the HTTP edge: an admin invites a person with a role, they register a
// passkey and sign in to the console (the cookie door under /console/api), act with their role as
// a key would, and an admin changes the role or deactivates them, which ends their sessions and
// keys at once. Sessions' idle and absolute timeouts, signing out everywhere, and the audit chain.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { checkLiveTicket } from '../../src/operations/live-tickets.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { verify } from '../support/audit.ts';
import { createDeal, createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { eventually } from '../support/webhooks.ts';
import { invitationToken, portal, portalSetCookie, staffDoor } from '../support/portal.ts';

describe('staff', () => {
  let now = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = () => new Date(now);
  const minutes = (n: number) => n * 60_000;

  const t = startApp({ clock, env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';
  const door = () => staffDoor(t.app, t.config.basePath, origin);
  const deps = () => ({ db: t.database.db, clock, newId: () => crypto.randomUUID() });
  const person = (role: string) => ({ email: `${uniqueId('p')}@example.com`, name: `A ${role}`, role });

  describe('invitations', () => {
    test('an admin invites a person with a role: a single-use console link, the person listed without a sign-in yet', async () => {
      const invitation = await door().inviteStaff(t.admin, person('operator'));
      assert.match(invitation.url, /^http:\/\/localhost:3000\/console\/#\/join\/[A-Za-z0-9_-]{43}$/);
      assert.equal(invitation.expiresAt, new Date(now + 7 * 86_400_000).toISOString());
      const listed = (await t.admin.get('/staff')).body.people.find((p: { personId: string }) => p.personId === invitation.personId);
      assert.equal(listed.role, 'operator');
      assert.equal(listed.lastSignInAt, null);
      assert.equal(listed.deactivatedAt, null);
    });

    test('the same e-mail again gets a new link (the old one revoked); with another role: 409 naming how to change it', async () => {
      const who = person('viewer');
      const first = await door().inviteStaff(t.admin, who);
      const second = await door().inviteStaff(t.admin, { ...who, email: who.email.toUpperCase() });
      assert.equal(second.personId, first.personId);
      expectProblem(await door().anonymous.post('/console/api/passkeys/registration-options', { invitation: invitationToken(first.url) }), 404);
      assert.equal((await door().anonymous.post('/console/api/passkeys/registration-options', { invitation: invitationToken(second.url) })).status, 200);
      const conflict = expectProblem(await t.admin.post('/staff/invitations', { ...who, role: 'admin' }), 409);
      assert.match(conflict.detail, /viewer role; change the role with PUT \/staff\//);
    });

    test('malformed invitations are 400s; an operator may not invite (403 naming admin)', async () => {
      expectProblem(await t.admin.post('/staff/invitations', { email: 'not-an-address', name: 'X', role: 'viewer' }), 400);
      expectProblem(await t.admin.post('/staff/invitations', { email: 'a@example.com', name: 'X', role: 'investor' }), 400);
      const { session } = await door().signedUp(t.admin, person('operator'));
      const refused = expectProblem(await session.api.post('/console/api/staff/invitations', person('viewer')), 403);
      assert.match(refused.detail, /needs the admin role/);
    });

    test('a portal invitation does not open the console, nor a console invitation the portal', async () => {
      const investor = await createInvestor(t.admin);
      const [invitation] = await portal(t.app, t.config.basePath, origin).invite(t.admin, [investor.id]);
      expectProblem(await door().anonymous.post('/console/api/passkeys/registration-options', { invitation: invitationToken(invitation!.url) }), 404);
      const staff = await door().inviteStaff(t.admin, person('viewer'));
      expectProblem(await door().anonymous.post('/portal/api/passkeys/registration-options', { invitation: invitationToken(staff.url) }), 404);
    });
  });

  describe('signing in to the console', () => {
    test('a passkey registered with the link opens a session: HttpOnly cookie for /console/, the person and role, the CSRF token', async () => {
      const who = person('approver');
      const invitation = await door().inviteStaff(t.admin, who);
      const { response, session } = await door().register(invitationToken(invitation.url));
      assert.deepEqual(Object.keys(response.body).sort(), ['csrfToken', 'expiresAt', 'name', 'personId', 'role']);
      assert.equal(response.body.role, 'approver');
      assert.equal(response.body.personId, invitation.personId);
      assert.match(portalSetCookie(response.headers, 'console')!, /Path=\/console\/; HttpOnly; Secure; SameSite=Strict/);
      const current = await session.api.get('/console/api/session');
      assert.equal(current.status, 200);
      assert.equal(current.body.name, who.name);
      assert.equal(current.headers['cache-control'], 'no-store');
    });

    test('a signed-in person acts with their role through /console/api, and what they write names them', async () => {
      const { invitation, session } = await door().signedUp(t.admin, person('operator'));
      const dealId = uniqueId('deal');
      assert.equal((await session.api.put(`/console/api/deals/deal/${dealId}`, { name: 'Made by a person' })).status, 201);
      expectProblem(await session.api.put(`/console/api/deals/deal/${dealId}/workflow`, { label: 'x', steps: [], links: [] }), 403);
      const deal = await createDeal(t.admin);
      const investorUserId = await deal.addInvestor();
      const moved = await session.api.post(`/console/api/deals/deal/${deal.dealId}/jump-to-step`, {
        investorUserId,
        targetStepId: deal.steps.interest,
        data: {},
      });
      assert.equal(moved.status, 201, JSON.stringify(moved.body));
      assert.equal(moved.body.createdByUserId, invitation.personId);
      const names = await t.admin.get(`/console/people?ids=${invitation.personId}`);
      assert.deepEqual(names.body, [{ id: invitation.personId, name: 'A operator' }]);
      // A write without the session's CSRF token changes nothing.
      expectProblem(await session.api.put(`/console/api/deals/deal/${uniqueId('deal')}`, { name: 'x' }, { 'x-csrf-token': 'wrong' }), 403);
    });

    test("an investor's passkey does not sign in to the console", async () => {
      const investor = await createInvestor(t.admin);
      const p = portal(t.app, t.config.basePath, origin);
      const [invitation] = await p.invite(t.admin, [investor.id]);
      const { authenticator } = await p.register(invitationToken(invitation!.url));
      const response = await door().signInAnswer(authenticator);
      expectProblem(await door().anonymous.post('/console/api/sessions', { response }), 401);
    });

    test('a viewer reads everything and changes nothing', async () => {
      const deal = await createDeal(t.admin);
      const { session } = await door().signedUp(t.admin, person('viewer'));
      assert.equal((await session.api.get(`/console/api/deals/deal/${deal.dealId}/workflow-status`)).status, 200);
      const refused = expectProblem(await session.api.put(`/console/api/deals/deal/${deal.dealId}`, { name: 'renamed' }), 403);
      assert.match(refused.detail, /needs the operator role or above; yours is viewer/);
    });

    test('a live-stream ticket from a session opens the stream until the session is signed out', async () => {
      const deal = await createDeal(t.admin);
      const { session } = await door().signedUp(t.admin, person('viewer'));
      const issued = await session.api.post('/console/api/console/live/tickets', { dealId: deal.dealId });
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      assert.deepEqual(await checkLiveTicket(deps(), issued.body.ticket, undefined), { kind: 'deal', dealId: deal.dealId });
      assert.equal((await session.api.post('/console/api/sign-out', {})).status, 204);
      await assert.rejects(checkLiveTicket(deps(), issued.body.ticket, undefined), /revoked/);
    });
  });

  describe('sessions', () => {
    test('idle timeout: a session unused for STAFF_SESSION_MINUTES ends; used, it lasts until STAFF_SESSION_MAX_HOURS', async () => {
      const idle = await door().signedUp(t.admin, person('viewer'));
      now += minutes(31);
      expectProblem(await idle.session.api.get('/console/api/session'), 401);

      const busy = await door().signedUp(t.admin, person('viewer'));
      const signedInAt = now;
      while (now + minutes(20) < signedInAt + 12 * 60 * 60_000) {
        now += minutes(20);
        const read = await busy.session.api.get('/console/api/session');
        assert.equal(read.status, 200);
        // The renewal is written off the request path: it lands on its own, right after the answer.
        await eventually(async () => {
          const { rows } = await sql<{ expires_at: Date }>`select expires_at from sign_in_sessions where subject_id = ${busy.invitation.personId}`.execute(
            t.database.db,
          );
          return rows[0]!.expires_at.toISOString() === read.body.expiresAt || undefined;
        });
      }
      now = signedInAt + 12 * 60 * 60_000;
      expectProblem(await busy.session.api.get('/console/api/session'), 401);
    });

    test('signing out everywhere ends every session of the person; their own sessions are listed, another person sees none of them', async () => {
      const first = await door().signedUp(t.admin, person('operator'));
      const second = await door().signIn(first.authenticator);
      const listed = await first.session.api.get(`/console/api/staff/${first.invitation.personId}/sessions`);
      assert.equal(listed.body.sessions.length, 2);
      const other = await door().signedUp(t.admin, person('operator'));
      expectProblem(await other.session.api.get(`/console/api/staff/${first.invitation.personId}/sessions`), 403);
      assert.equal((await t.admin.get(`/staff/${first.invitation.personId}/sessions`)).body.sessions.length, 2);
      assert.equal((await second.api.post('/console/api/sign-out', { everywhere: true })).status, 204);
      expectProblem(await first.session.api.get('/console/api/session'), 401);
      expectProblem(await second.api.get('/console/api/session'), 401);
    });
  });

  describe('roles and deactivation', () => {
    test("a new role applies to the person's open session from its next request", async () => {
      const { invitation, session } = await door().signedUp(t.admin, person('operator'));
      const dealId = uniqueId('deal');
      assert.equal((await session.api.put(`/console/api/deals/deal/${dealId}`, { name: 'One' })).status, 201);
      assert.equal((await t.admin.put(`/staff/${invitation.personId}`, { role: 'viewer' })).status, 200);
      expectProblem(await session.api.put(`/console/api/deals/deal/${dealId}`, { name: 'Two' }), 403);
      assert.equal((await session.api.get('/console/api/session')).body.role, 'viewer');
    });

    test('deactivating a person ends their session and their API key within one request, and nothing of theirs works after', async () => {
      const { invitation, session, authenticator } = await door().signedUp(t.admin, person('operator'));
      const key = await createToken(t.database.db, { name: 'desk', role: 'operator', personEmail: invitation.email });
      assert.equal((await client(t.app, key.token).get('/whoami')).status, 200);
      const answered = await t.admin.post(`/staff/${invitation.personId}/deactivate`, undefined);
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.deepEqual(answered.body.revokedKeys, [key.id]);
      expectProblem(await session.api.get('/console/api/session'), 401);
      expectProblem(await client(t.app, key.token).get('/whoami'), 401);
      const response = await door().signInAnswer(authenticator);
      expectProblem(await door().anonymous.post('/console/api/sessions', { response }), 401);
      const listed = (await t.admin.get('/staff')).body.people.find((p: { personId: string }) => p.personId === invitation.personId);
      assert.equal(listed.deactivatedAt, new Date(now).toISOString());
      expectProblem(await t.admin.post('/staff/invitations', { email: invitation.email, name: 'Again', role: 'operator' }), 409);
    });

    test('an admin changes neither their own role nor their own standing; an unknown person is a 404', async () => {
      const { invitation, session } = await door().signedUp(t.admin, person('admin'));
      expectProblem(await session.api.put(`/console/api/staff/${invitation.personId}`, { role: 'viewer' }), 409);
      expectProblem(await session.api.post(`/console/api/staff/${invitation.personId}/deactivate`, undefined), 409);
      expectProblem(await t.admin.put('/staff/00000000-0000-4000-8000-000000000000', { role: 'viewer' }), 404);
    });

    test("a person's key carries at most their role, and an expired key is refused", async () => {
      const { invitation } = await door().signedUp(t.admin, person('operator'));
      await assert.rejects(createToken(t.database.db, { name: 'too much', role: 'admin', personEmail: invitation.email }), /at most their role, operator/);
      const key = await createToken(t.database.db, { name: 'brief', role: 'viewer', integration: 'crm sync', expiresAt: new Date(now + minutes(5)) }, clock());
      assert.equal((await client(t.app, key.token).get('/whoami')).status, 200);
      now += minutes(6);
      expectProblem(await client(t.app, key.token).get('/whoami'), 401);
    });

    test("every change is in the person's audit chain, naming who made it, and verify passes", async () => {
      const { invitation, session } = await door().signedUp(t.admin, person('operator'));
      assert.equal((await t.admin.put(`/staff/${invitation.personId}`, { role: 'approver' })).status, 200);
      assert.equal((await session.api.post('/console/api/sign-out', {})).status, 204);
      assert.equal((await t.admin.post(`/staff/${invitation.personId}/deactivate`, undefined)).status, 200);
      const { rows } = await sql<{ type: string; principal: string }>`select type, principal from audit_log
      where chain = ${`staff:${invitation.personId}`} order by seq`.execute(t.database.db);
      assert.deepEqual(
        rows.map((r) => r.type),
        [
          'staff.person-added',
          'staff.invitation-created',
          'staff.passkey-registered',
          'staff.signed-in',
          'staff.role-changed',
          'staff.signed-out',
          'staff.deactivated',
          'staff.passkey-replaced',
        ],
      );
      assert.equal(rows[3]!.principal, invitation.personId, "the sign-in is the person's own");
      const result = await verify(t.database.db, { seal: true });
      assert.equal(result.code, 0, result.output);
    });
  });
});
