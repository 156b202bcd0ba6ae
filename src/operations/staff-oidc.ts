// Single sign-on to the console with OpenID Connect: the authorization code flow with PKCE, a
// state and a nonce (openid-client does the protocol: discovery, the token request, the ID token's
// checks). A person is matched by the ID token's e-mail, which the provider must say is verified;
// their role is the invitation's, or, with OIDC_ROLE_CLAIM, the claim's (a person the claim names
// with a staff role is added, or given that role). The session it opens is a console session like
// a passkey's. Nothing waits on the provider inside a transaction: the state is spent first, the
// provider is asked next, and the person and their session are written last.
import * as oidc from 'openid-client';
import type { Config, OidcConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { isStaffRole, type StaffRole } from '../domain/principal.ts';
import * as signInStore from '../store/oidc-sign-ins.ts';
import * as store from '../store/staff.ts';
import { recordStaffChange } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { type OpenedSession, openSession, sessionKey } from './sessions.ts';
import { addPerson, setPersonRole, staffAudience } from './staff.ts';

const STATE_MINUTES = 10;

/** Where the provider sends the browser back: PUBLIC_URL/console/api/oidc/callback. */
export const redirectUriOf = (config: Pick<Config, 'portal'>) => `${config.portal.publicUrl}/console/api/oidc/callback`;

const discovered = new WeakMap<OidcConfig, Promise<oidc.Configuration>>();

/** The provider's metadata, discovered once per configuration (a failure is tried again on the next sign-in). */
function clientOf(settings: OidcConfig): Promise<oidc.Configuration> {
  let client = discovered.get(settings);
  if (!client) {
    client = oidc.discovery(
      settings.issuer,
      settings.clientId,
      undefined,
      oidc.ClientSecretPost(settings.clientSecret),
      settings.allowHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
    client.catch(() => discovered.delete(settings));
    discovered.set(settings, client);
  }
  return client;
}

const notConfigured = () => new AppError('not-found', 'Single sign-on is not configured here (OIDC_ISSUER); sign in with a passkey');
const providerFailed = (err: unknown) =>
  new AppError('unauthenticated', `The identity provider's answer was not accepted: ${(err as Error).message}; start the sign-in again`);

/** GET /console/api/oidc/start: the provider's authorization URL, with a new state, nonce and PKCE challenge kept for 10 minutes. */
export async function startOidcSignIn(deps: Deps, config: Pick<Config, 'portal' | 'oidc'>): Promise<URL> {
  const settings = config.oidc;
  if (!settings) throw notConfigured();
  let client: oidc.Configuration;
  try {
    client = await clientOf(settings);
  } catch (err) {
    throw new AppError(
      'unauthenticated',
      `The identity provider at ${settings.issuer.href} does not answer (${(err as Error).message}): try again, or sign in with a passkey`,
    );
  }
  const now = deps.clock();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  await inTransaction(deps, ({ db }) =>
    signInStore.insertOidcSignIn(db, { state, nonce, codeVerifier, createdAt: now, expiresAt: new Date(now.getTime() + STATE_MINUTES * 60_000) }),
  );
  return oidc.buildAuthorizationUrl(client, {
    redirect_uri: redirectUriOf(config),
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
}

/** The role an ID token gives, with OIDC_ROLE_CLAIM: a staff role, or undefined when the claim is absent or holds none. */
function claimedRole(settings: OidcConfig, claims: Record<string, unknown>): StaffRole | undefined {
  if (!settings.roleClaim) return undefined;
  const value = claims[settings.roleClaim];
  return isStaffRole(value) ? value : undefined;
}

/**
 * GET /console/api/oidc/callback: checks the provider's answer (state, code with the PKCE
 * verifier, the ID token's signature, issuer, audience and nonce), matches the person by verified
 * e-mail and opens their console session.
 */
export async function completeOidcSignIn(deps: Deps, config: Pick<Config, 'portal' | 'staff' | 'oidc'>, callbackUrl: URL): Promise<OpenedSession> {
  const settings = config.oidc;
  if (!settings) throw notConfigured();
  const state = callbackUrl.searchParams.get('state');
  if (!state) throw new AppError('validation', 'The answer has no state: start the sign-in again from the console');
  const now = deps.clock();
  const kept = await inTransaction(deps, ({ db }) => signInStore.consumeOidcSignIn(db, state, now));
  if (!kept) throw new AppError('unauthenticated', 'This sign-in is unknown, was answered already or took over 10 minutes: start it again from the console');
  let claims: Record<string, unknown>;
  try {
    const client = await clientOf(settings);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, {
      pkceCodeVerifier: kept.codeVerifier,
      expectedState: state,
      expectedNonce: kept.nonce,
    });
    const idToken = tokens.claims();
    if (!idToken) throw new Error('no ID token');
    // A provider may put the e-mail, the name and the role in the ID token or only behind UserInfo
    // (OpenID Connect Core 5.4): ask UserInfo, for the token's own subject, and prefer what it says.
    const userInfo = await oidc.fetchUserInfo(client, tokens.access_token, idToken.sub);
    claims = { ...idToken, ...userInfo };
  } catch (err) {
    throw providerFailed(err);
  }
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  if (!email || claims.email_verified !== true) {
    throw new AppError('forbidden', 'The identity provider did not give a verified e-mail address; ask it to share one (scope email)');
  }
  const role = claimedRole(settings, claims);
  const by = { principal: `oidc:${String(claims.sub)}`, tokenId: `oidc:${settings.issuer.href}` };
  return inTransaction(deps, async (tx) => {
    const { db } = tx;
    let person = await store.findPersonByEmail(db, email, true);
    if (person?.deactivated_at) throw new AppError('forbidden', `${email} was deactivated: ask an admin`);
    if (!person) {
      if (!role) throw new AppError('forbidden', `${email} is not staff here: ask an admin to invite you`);
      const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim().slice(0, 200) : email;
      person = await addPerson(deps, db, by, { name, email, role }, now, { via: 'oidc' });
    } else if (role && role !== person.role) {
      await setPersonRole(db, by, person, role, now, { via: 'oidc' });
    }
    const opened = await openSession(tx, staffAudience(config), person!.id, null, now);
    await recordStaffChange(
      db,
      { principal: person!.id, tokenId: sessionKey('staff', opened.session.sessionId) },
      'staff.signed-in',
      person!.id,
      { sessionId: opened.session.sessionId, method: 'oidc', issuer: settings.issuer.href, subject: String(claims.sub) },
      now,
    );
    return opened;
  });
}

/** GET /console/api/oidc: whether single sign-on is offered, and what to call it. */
export const oidcOffer = (config: Pick<Config, 'oidc'>) => (config.oidc ? { enabled: true, name: config.oidc.name } : { enabled: false, name: null });
