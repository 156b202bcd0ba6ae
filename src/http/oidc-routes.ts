// Single sign-on to the console (docs/reference/staff.md): GET /console/api/oidc says whether it is
// offered; /oidc/start sends the browser to the identity provider; /oidc/callback is where the
// provider sends it back: the console's session cookie is set and the browser goes to the console.
// The two redirects are a browser's steps, not an API a client calls: they stay out of the OpenAPI
// document (which has only operations with an answer of their own), and docs/reference/staff.md
// describes them.
import { Type } from 'typebox';
import { completeOidcSignIn, oidcOffer, redirectUriOf, startOidcSignIn } from '../operations/staff-oidc.ts';
import type { Api, AppContext } from './context.ts';
import { setSessionCookie } from './session-cookie.ts';
import { consoleDoor } from './sign-in-door.ts';

const tags = ['staff'];
const Redirect = (description: string) => ({
  ...Type.Null({ description }),
  headers: { Location: Type.String({ description: 'Where the browser goes next' }) },
});

export function oidcRoutes(app: Api, ctx: AppContext) {
  const { basePath } = ctx.config;
  app.get(
    '/oidc',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'getStaffSingleSignOn',
        summary: 'Whether the console offers single sign-on (OpenID Connect), and what to call it',
        description: 'Anyone may ask: the console shows a button for it when `enabled`.',
        response: { 200: Type.Object({ enabled: Type.Boolean(), name: Type.Union([Type.String(), Type.Null()]) }, { title: 'StaffSingleSignOn' }) },
      },
    },
    async () => oidcOffer(ctx.config),
  );

  app.get(
    '/oidc/start',
    {
      config: { public: true },
      schema: {
        hide: true,
        summary: 'Sign in with the identity provider: a redirect to its authorization endpoint',
        description: 'Authorization code flow with PKCE (S256), a state and a nonce, kept 10 minutes. 404 when single sign-on is not configured.',
        response: { 302: Redirect("The identity provider's authorization URL") },
      },
    },
    async (_request, reply) => reply.redirect((await startOidcSignIn(ctx, ctx.config)).href, 302),
  );

  app.get(
    '/oidc/callback',
    {
      config: { public: true },
      schema: {
        hide: true,
        summary: 'Where the identity provider sends the browser back: signs the person in and redirects to the console',
        description:
          'The answer must match a sign-in started here within 10 minutes, once (401 otherwise); the ID token must carry a verified e-mail of an active staff person (403 otherwise), or, with OIDC_ROLE_CLAIM, a staff role in that claim (the person is then added or given that role). 302 to the console with the session cookie (dealflow_console).',
        querystring: Type.Object(
          {
            code: Type.Optional(Type.String({ maxLength: 4096 })),
            state: Type.Optional(Type.String({ maxLength: 512 })),
          },
          { additionalProperties: true },
        ),
        response: {
          302: {
            ...Redirect('The console, signed in'),
            headers: {
              Location: Type.String(),
              'Set-Cookie': Type.String({ description: 'dealflow_console=<session token>; Path=<BASE_PATH>/console/; HttpOnly; Secure; SameSite=Strict' }),
            },
          },
        },
      },
    },
    async (request, reply) => {
      const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const opened = await completeOidcSignIn(ctx, ctx.config, new URL(redirectUriOf(ctx.config) + search));
      setSessionCookie(reply, consoleDoor, basePath, opened.token);
      return reply.redirect(`${basePath}/console/`, 302);
    },
  );
}
