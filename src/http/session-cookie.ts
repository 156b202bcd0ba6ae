// A door's session cookie and its check: the cookie's attributes, and the authentication of a
// request by it (with the CSRF token on writes). Used by the sign-in routes and by the API behind
// the cookie (cookie-api.ts), for the portal and the console alike (sign-in-door.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { authenticateSession, csrfTokenMatches, type SignInSession } from '../operations/sessions.ts';
import type { AppContext } from './context.ts';
import type { Door } from './sign-in-door.ts';

export const CSRF_HEADER = 'x-csrf-token';

export const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the requests authenticated by a door's session cookie. */
    signInSession: SignInSession | undefined;
  }
}

/** The cookie's attributes: only for the door's paths, never readable by scripts, never sent cross-site. */
export const cookieOptions = (door: Door, basePath: string) => ({
  path: `${basePath}/${door.name}/`,
  httpOnly: true,
  secure: true,
  sameSite: 'strict' as const,
});

export function setSessionCookie(reply: FastifyReply, door: Door, basePath: string, token: string) {
  reply.setCookie(door.cookie, token, cookieOptions(door, basePath));
}

export function clearSessionCookie(reply: FastifyReply, door: Door, basePath: string) {
  reply.clearCookie(door.cookie, cookieOptions(door, basePath));
}

/**
 * The session of the request's cookie (renewed), and for a write its CSRF token checked: 401
 * without a live session, 403 without the right X-CSRF-Token.
 */
export async function authenticateCookie(ctx: AppContext, door: Door, request: FastifyRequest): Promise<SignInSession> {
  const session = await authenticateSession(ctx, door.audience(ctx), request.cookies[door.cookie]);
  if (!READS.has(request.method)) {
    const sent = request.headers[CSRF_HEADER];
    if (!csrfTokenMatches(session, typeof sent === 'string' ? sent : undefined)) {
      throw new AppError('forbidden', `Send the X-CSRF-Token header with the csrfToken of your session (GET /${door.name}/api/session)`);
    }
  }
  request.signInSession = session;
  return session;
}
