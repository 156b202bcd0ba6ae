// The doors' side of tests (the investor portal, and the console for staff people): invitations, a
// passkey registered with the software authenticator, sign-ins, and a client that sends the session
// cookie (and the CSRF token on writes) as the app in a browser does.
import assert from 'node:assert/strict';
import type { Api } from '../../src/http/app.ts';
import { type Client, client } from './app.ts';
import { SoftAuthenticator } from './webauthn.ts';

export const PORTAL_COOKIE = 'dealflow_portal';
export const CONSOLE_COOKIE = 'dealflow_console';
export type DoorName = 'portal' | 'console';
const cookieOf = (door: DoorName) => (door === 'portal' ? PORTAL_COOKIE : CONSOLE_COOKIE);

/** The Set-Cookie header of a door's cookie in a response, or undefined. */
export function portalSetCookie(headers: Record<string, unknown>, door: DoorName = 'portal'): string | undefined {
  const raw = headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  return all.find((c: string) => c.startsWith(`${cookieOf(door)}=`));
}

/** The cookie's value from a response that set it. */
export function cookieValue(headers: Record<string, unknown>, door: DoorName = 'portal'): string {
  const header = portalSetCookie(headers, door);
  assert.ok(header, `no ${cookieOf(door)} cookie set: ${JSON.stringify(headers)}`);
  return header.slice(cookieOf(door).length + 1).split(';')[0]!;
}

/** The token of an invitation link: the portal's `#/welcome/<token>`, the console's `#/join/<token>`. */
export const invitationToken = (url: string) => {
  const token = url.split(/#\/(?:welcome|join)\//)[1];
  assert.ok(token, `no token in ${url}`);
  return token;
};

export interface PortalSessionHandle {
  cookie: string;
  csrfToken: string;
  /** The investor's id, or (console) the staff person's. */
  investorUserId: string;
  /** A client whose every request sends the cookie (and, for writes, X-CSRF-Token unless given). */
  api: Client;
}

/** A client sending the session cookie; writes send the CSRF token unless the headers say otherwise. */
export function cookieClient(app: Api, basePath: string, cookie: string, csrfToken: string, door: DoorName = 'portal'): Client {
  const base = client(app, undefined, basePath);
  const withCookie = (headers: Record<string, string> = {}) => ({ cookie: `${cookieOf(door)}=${cookie}`, ...headers });
  const withCsrf = (headers: Record<string, string> = {}) => ({ 'x-csrf-token': csrfToken, ...withCookie(headers) });
  return {
    get: (url, headers) => base.get(url, withCookie(headers)),
    post: (url, body, headers) => base.post(url, body, withCsrf(headers)),
    put: (url, body, headers) => base.put(url, body, withCsrf(headers)),
    delete: (url, headers) => base.delete(url, withCsrf(headers)),
    raw: (options) => base.raw({ ...options, headers: withCsrf(options.headers as Record<string, string>) }),
  };
}

export function portal(app: Api, basePath: string, origin: string, door: DoorName = 'portal') {
  const anonymous = client(app, undefined, basePath);
  const session = (body: { investorUserId?: string; personId?: string; csrfToken: string }, headers: Record<string, unknown>): PortalSessionHandle => {
    const cookie = cookieValue(headers, door);
    const subject = (body.investorUserId ?? body.personId)!;
    return { cookie, csrfToken: body.csrfToken, investorUserId: subject, api: cookieClient(app, basePath, cookie, body.csrfToken, door) };
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
      const options = await anonymous.post(`/${door}/api/passkeys/registration-options`, { invitation: token });
      assert.equal(options.status, 200, JSON.stringify(options.body));
      return { authenticator, options: options.body, ...authenticator.register(options.body.options) };
    },
    /** Registers a passkey with an invitation: the signed-in session. */
    async register(token: string, authenticator = new SoftAuthenticator(origin)) {
      const { response } = await this.registrationAnswer(token, authenticator);
      const registered = await anonymous.post(`/${door}/api/passkeys`, { invitation: token, response });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      return { authenticator, response: registered, session: session(registered.body, registered.headers) };
    },
    /** Sign-in options and the authenticator's answer, not sent yet. */
    async signInAnswer(authenticator: SoftAuthenticator, use: Parameters<SoftAuthenticator['authenticate']>[1] = {}) {
      const options = await anonymous.post(`/${door}/api/sessions/options`, {});
      assert.equal(options.status, 200, JSON.stringify(options.body));
      return authenticator.authenticate(options.body.options, use);
    },
    async signIn(authenticator: SoftAuthenticator) {
      const response = await this.signInAnswer(authenticator);
      const signedIn = await anonymous.post(`/${door}/api/sessions`, { response });
      assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
      return session(signedIn.body, signedIn.headers);
    },
  };
}

/** The console's door: staff invited by an admin (a key or a session), their passkeys and sessions. */
export function staffDoor(app: Api, basePath: string, origin: string) {
  const door = portal(app, basePath, origin, 'console');
  return {
    ...door,
    /** Invites a person with a role; the invitation answered. */
    async inviteStaff(admin: Client, person: { email: string; name: string; role: string }) {
      const response = await admin.post('/staff/invitations', person);
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body as { personId: string; email: string; role: string; url: string; expiresAt: string };
    },
    /** Invites a person and registers their passkey: the signed-in session and the authenticator. */
    async signedUp(admin: Client, person: { email: string; name: string; role: string }) {
      const invitation = await this.inviteStaff(admin, person);
      const { authenticator, session } = await door.register(invitationToken(invitation.url));
      return { invitation, authenticator, session };
    },
  };
}
