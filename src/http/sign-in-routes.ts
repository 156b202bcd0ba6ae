// A door's sign-in routes under ${BASE_PATH}/<door>/api (sign-in-door.ts; docs/reference/portal-access.md
// and docs/reference/staff.md): registering a passkey with an invitation, signing in with it, the
// session, signing out. The four routes anyone may call are rate-limited per client address
// (PORTAL_RATE_LIMIT_PER_MINUTE).
import rateLimit from '@fastify/rate-limit';
import { Type } from 'typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { AppError } from '../domain/errors.ts';
import { type OpenedSession, signOut } from '../operations/sessions.ts';
import { createRegistrationOptions, createSignInOptions, registerPasskey, signIn } from '../operations/sign-in.ts';
import type { Api, AppContext } from './context.ts';
import { authenticateCookie, clearSessionCookie, setSessionCookie } from './session-cookie.ts';
import { oidcRoutes } from './oidc-routes.ts';
import type { Door } from './sign-in-door.ts';
import { problemSchemas } from './schemas/problems.ts';
import { RegisterPasskeyBody, RegistrationOptionsBody, SignInBody, SignInOptions, SignInOptionsBody, SignOutBody } from './schemas/portal.ts';

const problem = (kind: keyof typeof problemSchemas, description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemSchemas[kind] } },
});

/** The problems a public sign-in route answers (connection-level ones are added by openapi-document.ts). */
const publicProblems = {
  400: problem('validation', 'Malformed body, or a WebAuthn response that does not verify'),
  403: problem('forbidden', "An Origin header other than PUBLIC_URL's origin"),
  415: problem('unsupported-media-type', 'A body that is not application/json'),
  429: problem('rate-limited', 'Over PORTAL_RATE_LIMIT_PER_MINUTE from this address'),
  500: problem('internal', 'A bug: quote the requestId'),
  503: problem('database-unavailable', 'The database does not answer; retry later'),
};

/**
 * Authenticated by the session cookie (the door’s: dealflow_portal or dealflow_console), not a bearer token. Declared as no security
 * scheme: a cookie scheme is a new securitySchemes component, which compatibility checkers count as
 * a breaking change of the whole document; the descriptions say what to send.
 */
const cookieSecurity: [] = [];

export async function signInRoutes(app: Api, ctx: AppContext, door: Door) {
  const { portal, basePath } = ctx.config;
  const who = door.audience(ctx);
  const cookieHeader = `${door.cookie}=<session token>; Path=<BASE_PATH>/${door.name}/; HttpOnly; Secure; SameSite=Strict`;
  /** The session answer of a sign-in, with the cookie it sets (documented as a response header). */
  const SignedIn = { ...door.sessionSchema, headers: { 'Set-Cookie': Type.String({ description: cookieHeader }) } };
  const shown = (opened: OpenedSession) => door.present(opened.session);
  const subject = door.name === 'portal' ? 'investor' : 'person';

  await app.register(async (scope) => {
    const open = scope as unknown as Api;
    await open.register(rateLimit, {
      global: true,
      max: portal.rateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => request.ip,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate-limited', `More than ${context.max} sign-in requests a minute from this address; retry after ${Math.ceil(context.ttl / 1000)} s`),
    });

    // Single sign-on is the console's alone (investors sign in with passkeys), rate-limited as these are.
    if (door.name === 'console') oidcRoutes(open, ctx);

    open.post(
      '/passkeys/registration-options',
      {
        config: { public: true },
        schema: {
          tags: [door.tag],
          summary: 'Options to register a passkey with an invitation',
          description:
            `The ${subject} the invitation is for and WebAuthn creation options` +
            ' (a discoverable credential). The invitation stays valid until a passkey is registered with it. ' +
            'An unknown, used, revoked or expired invitation: 404, whichever it is.',
          body: RegistrationOptionsBody,
          response: { 200: door.registrationSchema, 404: problem('not-found', 'The invitation is not valid or has expired'), ...publicProblems },
        },
      },
      async (request) => door.presentRegistration(await createRegistrationOptions(ctx, who, request.body.invitation)),
    );

    open.post(
      '/passkeys',
      {
        config: { public: true },
        schema: {
          tags: [door.tag],
          summary: 'Register a passkey with an invitation and sign in',
          description:
            `Verifies the answer to the registration options, uses the invitation, replaces the ${subject}'s earlier passkeys and ends their sessions, ` +
            `then opens a session: 201 with the session and its cookie (Set-Cookie: ${door.cookie}, HttpOnly, Secure, SameSite=Strict). ` +
            'An unknown, used, revoked or expired invitation: 404; an answer that does not verify, or to options already answered: 400; ' +
            "a credential id registered already (anyone's): 409, and nothing changes.",
          body: RegisterPasskeyBody,
          response: {
            201: SignedIn,
            404: problem('not-found', 'The invitation is not valid or has expired'),
            409: problem('conflict', "The passkey's credential id is registered already"),
            ...publicProblems,
          },
        },
      },
      async ({ body }, reply) => {
        const opened = await registerPasskey(ctx, who, { invitation: body.invitation, response: body.response as unknown as RegistrationResponseJSON });
        setSessionCookie(reply, door, basePath, opened.token);
        return reply.code(201).send(shown(opened));
      },
    );

    open.post(
      '/sessions/options',
      {
        config: { public: true },
        schema: {
          tags: [door.tag],
          summary: 'Options to sign in with a passkey',
          description: 'WebAuthn request options for a discoverable passkey (no user name asked); answer them within 5 minutes, once.',
          body: SignInOptionsBody,
          response: { 200: SignInOptions, ...publicProblems },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async () => createSignInOptions(ctx, who),
    );

    open.post(
      '/sessions',
      {
        config: { public: true },
        schema: {
          tags: [door.tag],
          summary: 'Sign in with a passkey',
          description:
            "Verifies the answer to sign-in options with the passkey's public key and counter, then opens a session: 201 with the session and its cookie. " +
            'An answer that does not verify, to options already answered, or from a passkey unknown or replaced: 401.',
          body: SignInBody,
          response: {
            201: SignedIn,
            401: problem(
              'unauthenticated',
              "The passkey's answer does not verify, answers options already answered or expired, or comes from a passkey that is unknown or replaced",
            ),
            ...publicProblems,
          },
        },
      },
      async (request, reply) => {
        const opened = await signIn(ctx, who, request.body.response as unknown as AuthenticationResponseJSON);
        setSessionCookie(reply, door, basePath, opened.token);
        return reply.code(201).send(shown(opened));
      },
    );
  });

  app.get(
    '/session',
    {
      onRequest: async (request, reply) => {
        // The answer holds the session's CSRF token: no cache may keep it (nor a 401 in its place).
        reply.header('Cache-Control', 'no-store');
        await authenticateCookie(ctx, door, request);
      },
      schema: {
        tags: [door.tag],
        summary: `The signed-in ${subject} and the session's CSRF token`,
        description: `Authenticated by the session cookie (${door.cookie}). Renews the session. Without a live session cookie: 401. Answered with \`Cache-Control: no-store\`.`,
        security: cookieSecurity,
        response: { 200: { ...door.sessionSchema, headers: { 'Cache-Control': Type.String({ description: 'no-store: the answer holds the CSRF token' }) } } },
      },
    },
    async (request) => door.present(request.signInSession!),
  );

  app.post(
    '/sign-out',
    {
      onRequest: async (request) => {
        await authenticateCookie(ctx, door, request);
      },
      schema: {
        tags: [door.tag],
        summary: 'Sign out here, or everywhere',
        description: `Authenticated by the session cookie (${door.cookie}) and the X-CSRF-Token header with the session's csrfToken. Signs out the browser that sends it (everywhere: the ${subject} on every device) and clears the cookie.`,
        security: cookieSecurity,
        body: SignOutBody,
        response: {
          204: {
            ...Type.Null({ description: 'Signed out; the cookie is cleared' }),
            headers: {
              'Set-Cookie': Type.String({ description: `${door.cookie}=; Path=<BASE_PATH>/${door.name}/; Expires in the past: the cookie is cleared` }),
            },
          },
        },
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      await signOut(ctx, who, request.signInSession!, request.body.everywhere === true);
      clearSessionCookie(reply, door, basePath);
      return reply.code(204).send(null);
    },
  );
}
