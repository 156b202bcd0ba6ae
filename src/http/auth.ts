// Bearer authentication (API keys and JWTs) and the per-route role check, both before the body is
// read. Every route declares `config.roles` or `config.public`; a route that declares neither is
// admin-only, so forgetting fails closed. 401s carry `WWW-Authenticate: Bearer` (RFC 6750 §3).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JwtConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import type { Principal, Role } from '../domain/principal.ts';
import type { Caches } from '../operations/caches.ts';
import type { Deps } from '../operations/deps.ts';
import { authenticateApiKey } from '../operations/tokens.ts';
import { jwtVerifier } from './jwt.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Roles allowed to call the route (default: admin only). */
    roles?: readonly Role[];
    /** No authentication at all (health, docs). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

const unauthenticated = (detail: string) => new AppError('unauthenticated', detail);

/** Who a request stands for: from its bearer token here, from its session cookie on the portal (portal-api.ts). */
export type Authenticate = (request: FastifyRequest) => Promise<Principal>;

export function createAuthenticator(db: Deps['db'], jwt: JwtConfig | undefined, clock: () => Date, caches?: Caches): Authenticate {
  const verifyJwt = jwt ? jwtVerifier(jwt, clock) : undefined;
  return async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') throw unauthenticated('Send an Authorization: Bearer <token> header');
    const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header);
    if (!match) throw unauthenticated('The Authorization header must be "Bearer <token>"');
    const token = match[1]!;
    if (token.split('.').length === 3) {
      if (!verifyJwt) throw unauthenticated('JWTs are not accepted by this installation; use an API key');
      return verifyJwt(token);
    }
    const principal = await authenticateApiKey(db, token, clock(), caches);
    if (!principal) throw unauthenticated('The token is unknown or revoked');
    return principal;
  };
}

export function registerAuth(app: FastifyInstance, authenticate: Authenticate) {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if (config?.public) return;
    const principal = await authenticate(request);
    request.principal = principal;
    const allowed = config?.roles ?? ['admin'];
    if (!allowed.includes(principal.role)) {
      throw new AppError('forbidden', `This route is for ${allowed.join(' or ')} tokens; yours has the ${principal.role} role`);
    }
  });
}

/** The authenticated caller; only for routes that are not public. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthenticated', 'Authentication required');
  return request.principal;
}
