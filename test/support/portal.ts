// The investor portal's side of tests: invitations by staff, a passkey registered with the software
// authenticator, sign-ins, and a client that sends the session cookie (and the CSRF token on writes)
// as the portal in a browser does.
import assert from 'node:assert/strict';
import type { Api } from '../../src/http/app.ts';
import { type Client, client } from './app.ts';
import { SoftAuthenticator } from './webauthn.ts';

export const PORTAL_COOKIE = 'dealflow_portal';

/** The Set-Cookie header of the portal's cookie in a response, or undefined. */
export function portalSetCookie(headers: Record<string, unknown>): string | undefined {
  const raw = headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  return all.find((c: string) => c.startsWith(`${PORTAL_COOKIE}=`));
}

/** The cookie's value from a response that set it. */
export function cookieValue(headers: Record<string, unknown>): string {
  const header = portalSetCookie(headers);
  assert.ok(header, `no ${PORTAL_COOKIE} cookie set: ${JSON.stringify(headers)}`);
  return header.slice(PORTAL_COOKIE.length + 1).split(';')[0]!;
}

export const invitationToken = (url: string) => {
  const token = url.split('#/welcome/')[1];
  assert.ok(token, `no token in ${url}`);
  return token;
};

export interface PortalSessionHandle {
  cookie: string;
  csrfToken: string;
  investorUserId: string;
  /** A client whose every request sends the cookie (and, for writes, X-CSRF-Token unless given). */
  api: Client;
}

/** A client sending the session cookie; writes send the CSRF token unless the headers say otherwise. */
export function cookieClient(app: Api, basePath: string, cookie: string, csrfToken: string): Client {
  const base = client(app, undefined, basePath);
  const withCookie = (headers: Record<string, string> = {}) => ({ cookie: `${PORTAL_COOKIE}=${cookie}`, ...headers });
  const withCsrf = (headers: Record<string, string> = {}) => ({ 'x-csrf-token': csrfToken, ...withCookie(headers) });
  return {
    get: (url, headers) => base.get(url, withCookie(headers)),
    post: (url, body, headers) => base.post(url, body, withCsrf(headers)),
    put: (url, body, headers) => base.put(url, body, withCsrf(headers)),
    delete: (url, headers) => base.delete(url, withCsrf(headers)),
    raw: (options) => base.raw({ ...options, headers: withCsrf(options.headers as Record<string, string>) }),
  };
}

export function portal(app: Api, basePath: string, origin: string) {
  const anonymous = client(app, undefined, basePath);
  const session = (body: { investorUserId: string; csrfToken: string }, headers: Record<string, unknown>): PortalSessionHandle => {
    const cookie = cookieValue(headers);
    return { cookie, csrfToken: body.csrfToken, investorUserId: body.investorUserId, api: cookieClient(app, basePath, cookie, body.csrfToken) };
  };
  return {
    anonymous,
    /** Invites investors as staff; the invitations answered. */
    async invite(admin: Client, investorUserIds: string[]) {
      const response = await admin.post('/investors/portal-invitations', { investorUserIds });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body.invitations as { investorUserId: string; url: string; expiresAt: string; emailed: boolean }[];
    },
    /** Registration options and the authenticator's answer to them, not sent yet. */
    async registrationAnswer(token: string, authenticator = new SoftAuthenticator(origin)) {
      const options = await anonymous.post('/portal/api/passkeys/registration-options', { invitation: token });
      assert.equal(options.status, 200, JSON.stringify(options.body));
      return { authenticator, options: options.body, ...authenticator.register(options.body.options) };
    },
    /** Registers a passkey with an invitation: the signed-in session. */
    async register(token: string, authenticator = new SoftAuthenticator(origin)) {
      const { response } = await this.registrationAnswer(token, authenticator);
      const registered = await anonymous.post('/portal/api/passkeys', { invitation: token, response });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      return { authenticator, response: registered, session: session(registered.body, registered.headers) };
    },
    /** Sign-in options and the authenticator's answer, not sent yet. */
    async signInAnswer(authenticator: SoftAuthenticator, use: Parameters<SoftAuthenticator['authenticate']>[1] = {}) {
      const options = await anonymous.post('/portal/api/sessions/options', {});
      assert.equal(options.status, 200, JSON.stringify(options.body));
      return authenticator.authenticate(options.body.options, use);
    },
    async signIn(authenticator: SoftAuthenticator) {
      const response = await this.signInAnswer(authenticator);
      const signedIn = await anonymous.post('/portal/api/sessions', { response });
      assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
      return session(signedIn.body, signedIn.headers);
    },
  };
}
