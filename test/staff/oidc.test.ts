// Single sign-on to the console against a real OpenID Connect provider run here (the oidc-provider
// package, listening on a free port): the authorization code flow with PKCE, from the console's
// start to the provider's login and consent forms and back, then the session cookie. A person is
// matched by a verified e-mail; a role claim adds or re-roles them; an unverified e-mail, a person
// not invited, a replayed or forged answer are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { client, expectProblem, startTestApp, type TestApp } from '../support/app.ts';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { cookieClient, cookieValue, staffDoor } from '../support/portal.ts';

describe('oidc', () => {
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;
  let t: TestApp;
  const origin = 'http://localhost:3000';
  const accounts = () => idp.accounts;

  before(async () => {
    idp = await startOidcProvider(origin);
    t = await startTestApp({ env: { PUBLIC_URL: origin, ...idp.env } });
  });

  after(async () => {
    await t?.close();
    await idp?.close();
  });

  /** A browser at the provider: follows its redirects, keeps its cookies, fills its login and consent forms. */
  async function atProvider(start: string, login: string): Promise<string> {
    const jar = new Map<string, string>();
    const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const keep = (response: Response) => {
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
    };
    let url = start;
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(origin)) return url;
      const response = await fetch(url, {
        method: body ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: cookies(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body } : {}),
      });
      keep(response);
      body = undefined;
      const location = response.headers.get('location');
      if (location) {
        url = new URL(location, url).href;
        continue;
      }
      const html = await response.text();
      assert.equal(response.status, 200, html.slice(0, 500));
      // The provider's own forms: the login (any password), then the consent.
      url = new URL(/action="([^"]+)"/.exec(html)![1]!, url).href;
      body = html.includes('name="login"') ? new URLSearchParams({ prompt: 'login', login, password: 'x' }) : new URLSearchParams({ prompt: 'consent' });
    }
    throw new Error('the provider never sent the browser back');
  }

  /** The whole sign-in: start at the console, sign in at the provider, come back; the callback's answer. */
  async function signInAs(login: string) {
    const start = await client(t.app).get('/console/api/oidc/start');
    assert.equal(start.status, 302, JSON.stringify(start.body));
    assert.match(start.headers.location as string, /code_challenge_method=S256/);
    const back = await atProvider(start.headers.location as string, login);
    return client(t.app).get(back.slice(origin.length));
  }

  describe('single sign-on with OpenID Connect', () => {
    test('the console offers it, by its name', async () => {
      assert.deepEqual((await client(t.app).get('/console/api/oidc')).body, { enabled: true, name: 'Fund login' });
    });

    test('an invited person signs in through the provider: the console session cookie, their role, recorded as a single sign-on', async () => {
      const invited = await staffDoor(t.app, '', origin).inviteStaff(client(t.app, t.adminToken), {
        email: 'olga@example.com',
        name: 'Olga',
        role: 'operator',
      });
      accounts().set('olga-at-idp', { email: 'olga@example.com', email_verified: true, name: 'Olga P.' });
      const back = await signInAs('olga-at-idp');
      assert.equal(back.status, 302, JSON.stringify(back.body));
      assert.equal(back.headers.location, '/console/');
      const cookie = cookieValue(back.headers, 'console');
      const session = await cookieClient(t.app, '', cookie, '', 'console').get('/console/api/session');
      assert.equal(session.status, 200);
      assert.equal(session.body.personId, invited.personId);
      assert.equal(session.body.role, 'operator');
      const { rows } = await sql<{ method: string }>`select method from sign_in_sessions where subject_id = ${invited.personId}`.execute(t.database.db);
      assert.deepEqual(rows, [{ method: 'oidc' }]);
    });

    test('the role claim adds a person not invited yet, and gives an invited one its role', async () => {
      accounts().set('pia-at-idp', { email: 'pia@example.com', email_verified: true, name: 'Pia', dealflow_role: 'approver' });
      assert.equal((await signInAs('pia-at-idp')).status, 302);
      const people = (await client(t.app, t.adminToken).get('/staff')).body.people as { email: string; role: string; name: string }[];
      assert.deepEqual(
        people.filter((p) => p.email === 'pia@example.com').map((p) => [p.name, p.role]),
        [['Pia', 'approver']],
      );
      accounts().set('olga-at-idp', { email: 'olga@example.com', email_verified: true, name: 'Olga P.', dealflow_role: 'viewer' });
      assert.equal((await signInAs('olga-at-idp')).status, 302);
      assert.equal((await client(t.app, t.adminToken).get('/staff')).body.people.find((p: { email: string }) => p.email === 'olga@example.com').role, 'viewer');
    });

    test('refused: an unverified e-mail, a person who is not staff, a deactivated person, a replayed answer, an unknown state', async () => {
      accounts().set('eve-at-idp', { email: 'eve@example.com', email_verified: false, name: 'Eve', dealflow_role: 'admin' });
      expectProblem(await signInAs('eve-at-idp'), 403);
      accounts().set('sam-at-idp', { email: 'sam@example.com', email_verified: true, name: 'Sam' });
      const notStaff = expectProblem(await signInAs('sam-at-idp'), 403);
      assert.match(notStaff.detail, /not staff here/);

      const invited = await staffDoor(t.app, '', origin).inviteStaff(client(t.app, t.adminToken), { email: 'leo@example.com', name: 'Leo', role: 'viewer' });
      accounts().set('leo-at-idp', { email: 'leo@example.com', email_verified: true, name: 'Leo' });
      const start = await client(t.app).get('/console/api/oidc/start');
      const back = await atProvider(start.headers.location as string, 'leo-at-idp');
      assert.equal((await client(t.app).get(back.slice(origin.length))).status, 302);
      expectProblem(await client(t.app).get(back.slice(origin.length)), 401);
      expectProblem(await client(t.app).get('/console/api/oidc/callback?code=forged&state=nobody-started-this'), 401);

      assert.equal((await client(t.app, t.adminToken).post(`/staff/${invited.personId}/deactivate`, undefined)).status, 200);
      const deactivated = expectProblem(await signInAs('leo-at-idp'), 403);
      assert.match(deactivated.detail, /deactivated/);
    });
  });
});
