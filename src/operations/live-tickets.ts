// Stream tickets: the browser's EventSource cannot send an Authorization header, and a long-lived
// token in a URL would be written to access logs and browser history. So a staff client first asks
// `POST /console/live/tickets` (with its bearer token) for a ticket: a short-lived (60 s), signed
// pass to one deal's stream, or to the stream of every deal's edit requests, that it puts in the
// stream's URL. A ticket opens a stream only while it is
// fresh; an open stream outlives it, and a reconnect asks for a new one.
//
// A ticket is stateless, so any instance of the service accepts a ticket another one issued:
// `base64url(JSON claims) "." base64url(HMAC-SHA256(key, claims))`. For an API key the key is the
// key's stored hash (in the database every instance reads; revoking the key voids its tickets at
// once); for a staff person's console session, the session's stored hash (signing out voids them). For a JWT it is derived from JWT_SECRET; with a JWKS URL there is no shared secret, and
// the key is this process's own (a ticket is then good only on the instance that issued it).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { isStaff, isStaffRole, type Principal } from '../domain/principal.ts';
import { findDeal } from '../store/deals.ts';
import { findLiveSessionHash } from '../store/sign-in.ts';
import { findLiveTokenHashById } from '../store/tokens.ts';
import type { Deps } from './deps.ts';
import type { CrossDealFeed } from '../domain/feed-entry.ts';
import type { LiveFollow } from './live-feed.ts';
import { sessionKey } from './sessions.ts';

export const TICKET_LIFETIME_MS = 60_000;

interface Claims {
  /** Who: the API key's id, or the JWT principal's userId. */
  sub: string;
  /** `key`: signed with the API key's hash; `session`: with a console session's; `jwt`: with the JWT-derived key. */
  via: 'key' | 'session' | 'jwt';
  /** The one deal the ticket opens a stream of; or, instead, */
  deal?: string;
  /** the feed it opens: every deal's edit requests, or every deal's approvals. */
  feed?: CrossDealFeed;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
}

export interface LiveTicket {
  ticket: string;
  expiresAt: string;
}

const processKey = randomBytes(32);
const STAFF_SESSION = sessionKey('staff', '');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function jwtKey(jwtSecret: string | undefined): Buffer {
  return jwtSecret ? createHmac('sha256', jwtSecret).update('dealflow live ticket').digest() : processKey;
}

async function keyFor(deps: Deps, claims: Pick<Claims, 'sub' | 'via'>, jwtSecret: string | undefined): Promise<Buffer | undefined> {
  if (claims.via === 'jwt') return jwtKey(jwtSecret);
  if (!UUID.test(claims.sub)) return undefined;
  if (claims.via === 'session') {
    const session = await findLiveSessionHash(deps.db, 'staff', claims.sub, deps.clock());
    return session === undefined ? undefined : createHmac('sha256', session).update('dealflow live ticket').digest();
  }
  const token = await findLiveTokenHashById(deps.db, claims.sub);
  if (!token || !isStaffRole(token.role)) return undefined;
  return createHmac('sha256', token.tokenHash).update('dealflow live ticket').digest();
}

const sign = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url');

/** What a ticket request asks to follow: a deal (`dealId`) or a feed of every deal (`feed`: its edit requests, its approvals), exactly one. */
export interface LiveTicketRequest {
  dealId?: string;
  feed?: CrossDealFeed;
}

/** A ticket for `principal` (staff only: the route lets no other role in) to follow a deal, or every deal's edit requests. */
export async function issueLiveTicket(deps: Deps, principal: Principal, request: LiveTicketRequest, jwtSecret: string | undefined): Promise<LiveTicket> {
  if (!isStaff(principal)) throw new AppError('forbidden', 'The live stream is for staff tokens');
  const { dealId, feed } = request;
  if ((dealId === undefined) === (feed === undefined)) {
    const detail = "give either dealId (one deal's stream) or feed (every deal's edit requests or approvals), not both";
    throw invalid([{ in: 'body', field: dealId === undefined ? 'dealId' : 'feed', detail }], `A ticket opens one stream: ${detail}`);
  }
  if (dealId !== undefined && !(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  // An API key's principal has its key's id as tokenKey and userId; a console session's tokenKey
  // names its session; a JWT's has neither.
  const session = principal.tokenKey.startsWith(STAFF_SESSION) ? principal.tokenKey.slice(STAFF_SESSION.length) : undefined;
  const via: Claims['via'] = session ? 'session' : UUID.test(principal.tokenKey) && principal.tokenKey === principal.userId ? 'key' : 'jwt';
  const exp = deps.clock().getTime() + TICKET_LIFETIME_MS;
  const claims: Claims = {
    sub: session ?? (via === 'key' ? principal.tokenKey : principal.userId),
    via,
    ...(dealId !== undefined ? { deal: dealId } : { feed: feed! }),
    exp,
  };
  const key = await keyFor(deps, claims, jwtSecret);
  if (!key) throw new AppError('unauthenticated', 'The token is unknown or revoked');
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { ticket: `${body}.${sign(key, body)}`, expiresAt: new Date(exp).toISOString() };
}

/** What a ticket lets its bearer follow; a 401 for a forged, expired or revoked one. */
export async function checkLiveTicket(deps: Deps, ticket: string, jwtSecret: string | undefined): Promise<LiveFollow> {
  const refused = (why: string) => new AppError('unauthenticated', `${why}: ask POST /console/live/tickets for a new ticket`);
  const [body, mac, extra] = ticket.split('.');
  if (!body || !mac || extra !== undefined) throw refused('The ticket is malformed');
  let claims: Claims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Claims;
  } catch {
    throw refused('The ticket is malformed');
  }
  if (
    typeof claims !== 'object' ||
    claims === null ||
    typeof claims.sub !== 'string' ||
    (claims.via !== 'key' && claims.via !== 'session' && claims.via !== 'jwt') ||
    (typeof claims.deal === 'string') === (claims.feed === 'edit-requests' || claims.feed === 'approvals') ||
    typeof claims.exp !== 'number'
  )
    throw refused('The ticket is malformed');
  const key = await keyFor(deps, claims, jwtSecret);
  const expected = key ? Buffer.from(sign(key, body)) : undefined;
  const given = Buffer.from(mac);
  if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) throw refused('The ticket is not valid, or its token was revoked');
  if (deps.clock().getTime() > claims.exp) throw refused('The ticket has expired');
  return typeof claims.deal === 'string' ? { kind: 'deal', dealId: claims.deal } : { kind: claims.feed! };
}
