// Bearer authentication (API keys and JWTs) and the per-route role check, both before the body is
// read. Every route declares `config.roles` or `config.public`; a route that declares neither is
// admin-only, so forgetting fails closed. 401s carry `WWW-Authenticate: Bearer` (RFC 6750 §3).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JwtConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { isStaff, type Principal, type Role, roleMeets } from '../domain/principal.ts';
import type { Caches } from '../operations/caches.ts';
import type { Deps } from '../operations/deps.ts';
import { authenticateApiKey, isErasedInvestor } from '../operations/tokens.ts';
import { jwtVerifier } from './jwt.ts';
import { minimumRole } from './route-roles.ts';

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
      const principal = await verifyJwt(token);
      if (principal.investorUserId !== undefined && (await isErasedInvestor(db, principal.investorUserId))) {
        throw unauthenticated('The investor this token is bound to was erased');
      }
      return principal;
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
    // `admin` in a route's roles opens it to staff; how much staff power it takes is route-roles.ts's.
    if (isStaff(principal) && allowed.includes('admin')) {
      const needed = minimumRole(request.method, request.routeOptions.url ?? request.url);
      if (!roleMeets(principal.role, needed)) {
        throw new AppError('forbidden', `This needs the ${needed} role or above; yours is ${principal.role}`);
      }
      return;
    }
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
