// Registering a passkey whose credential id is registered already (another investor's, or the
// investor's own again): a 409 problem, and nothing changes: the invitation stays open, the
// existing passkey and sessions stay as they were.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { invitationToken, portal } from '../support/portal.ts';
import { SoftAuthenticator } from '../support/webauthn.ts';

describe('passkey conflicts', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';
  const p = () => portal(t.app, t.config.basePath, origin);

  async function invitedInvestor() {
    const investor = await createInvestor(t.admin);
    const [invitation] = await p().invite(t.admin, [investor.id]);
    return { investorUserId: investor.id, token: invitationToken(invitation!.url) };
  }

  async function passkeyRows() {
    const { rows } = await sql<{ credential_id: string; investor_user_id: string; replaced_at: Date | null }>`
    select credential_id, subject_id as investor_user_id, replaced_at from passkeys order by credential_id, subject_id`.execute(t.database.db);
    return rows;
  }

  /** Registration with an answer carrying the given credential id. */
  async function registerWithId(token: string, credentialId: string) {
    const options = await p().anonymous.post('/portal/api/passkeys/registration-options', { invitation: token });
    assert.equal(options.status, 200, JSON.stringify(options.body));
    const { response } = new SoftAuthenticator(origin).register(options.body.options, { credentialId });
    return p().anonymous.post('/portal/api/passkeys', { invitation: token, response });
  }

  test("another investor's credential id: 409, nothing changes, and the invitation still registers a passkey of its own", async () => {
    const owner = await invitedInvestor();
    const registered = await p().register(owner.token);
    const credentialId = registered.authenticator.credentials[0]!.id;
    const other = await invitedInvestor();
    const before = await passkeyRows();

    const problem = expectProblem(await registerWithId(other.token, credentialId), 409);
    assert.match(problem.detail, /already registered/);
    assert.deepEqual(await passkeyRows(), before);
    // The owner's session still works, and the other investor's invitation is still open.
    assert.equal((await registered.session.api.get('/portal/api/session')).status, 200);
    await p().register(other.token);
  });

  test("re-registering one's own credential id with a new invitation: 409, and the passkey and session stay", async () => {
    const investor = await invitedInvestor();
    const registered = await p().register(investor.token);
    const credentialId = registered.authenticator.credentials[0]!.id;
    const [again] = await p().invite(t.admin, [investor.investorUserId]);
    const before = await passkeyRows();

    expectProblem(await registerWithId(invitationToken(again!.url), credentialId), 409);
    assert.deepEqual(await passkeyRows(), before);
    assert.equal((await registered.session.api.get('/portal/api/session')).status, 200);
    // The passkey still signs in.
    await p().signIn(registered.authenticator);
  });
});
