// An OpenID Connect provider for tests: the oidc-provider package, listening on a free port of this
// machine, with one confidential client (`dealflow`, client_secret_post) whose redirect URI is the
// console's callback, and accounts a test sets (their e-mail, whether it is verified, a name and a
// role claim). Its login and consent forms are the package's development pages.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const OIDC_CLIENT_SECRET = 'a-client-secret-long-enough-for-tests';

export interface OidcAccount {
  email: string;
  email_verified: boolean;
  name: string;
  dealflow_role?: string;
}

/** Starts the provider for a console at `consoleOrigin`; the env that points the service at it, and its accounts by login. */
export async function startOidcProvider(consoleOrigin: string) {
  const accounts = new Map<string, OidcAccount>();
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'dealflow',
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [`${consoleOrigin}/console/api/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'dealflow_role'] },
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id);
      return account && { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    pkce: { required: () => true },
  });
  server.on('request', provider.callback());
  return {
    accounts,
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'dealflow', OIDC_CLIENT_SECRET, OIDC_ROLE_CLAIM: 'dealflow_role', OIDC_NAME: 'Fund login' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
