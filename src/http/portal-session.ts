// The portal's session cookie and its check: the cookie's attributes, and the authentication of a
// request by it (with the CSRF token on writes). Used by the sign-in routes and by the API behind
// the cookie (portal-api.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { authenticatePortalSession, csrfTokenMatches, type PortalSession } from '../operations/portal-access.ts';
import type { AppContext } from './context.ts';

export const PORTAL_COOKIE = 'dealflow_portal';
export const CSRF_HEADER = 'x-csrf-token';

export const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the portal's cookie-authenticated requests. */
    portalSession: PortalSession | undefined;
  }
}

/** The cookie's attributes: only for the portal's paths, never readable by scripts, never sent cross-site. */
export const cookieOptions = (basePath: string) => ({ path: `${basePath}/portal/`, httpOnly: true, secure: true, sameSite: 'strict' as const });

export function setSessionCookie(reply: FastifyReply, basePath: string, token: string) {
  reply.setCookie(PORTAL_COOKIE, token, cookieOptions(basePath));
}

export function clearSessionCookie(reply: FastifyReply, basePath: string) {
  reply.clearCookie(PORTAL_COOKIE, cookieOptions(basePath));
}

/**
 * The session of the request's cookie (renewed), and for a write its CSRF token checked: 401
 * without a live session, 403 without the right X-CSRF-Token.
 */
export async function authenticateCookie(ctx: AppContext, request: FastifyRequest): Promise<PortalSession> {
  const session = await authenticatePortalSession(ctx, ctx.config.portal, request.cookies[PORTAL_COOKIE]);
  if (!READS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    if (!csrfTokenMatches(session, typeof sent === 'string' ? sent : undefined)) {
      throw new AppError('forbidden', 'Send the X-CSRF-Token header with the csrfToken of your session (GET /portal/api/session)');
    }
  }
  request.portalSession = session;
  return session;
}
