// JWT verification: the signature (HS256 with JWT_SECRET, or the JWKS keys), then the claims this
// service relies on. A token must expire (`exp`), may not live longer than JWT_MAX_LIFETIME, and may
// not claim to be issued (`iat`) or valid from (`nbf`) more than CLOCK_SKEW_SECONDS ahead of our
// clock: a token minted without an expiry, or far in the future, is a forever token in disguise.
// Every refusal is a 401 whose detail names the claim.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { JwtConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { isRole, type Principal } from '../domain/principal.ts';

/** Tolerated difference between the issuer's clock and ours, for `iat` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 60;

const unauthenticated = (detail: string) => new AppError('unauthenticated', detail);

/** Idempotency keys and rate limits of a JWT caller: the whole principal, not the `sub` alone. */
export const jwtTokenKey = (sub: string, role: string, investorUserId: string | undefined) => `jwt:${JSON.stringify([sub, role, investorUserId ?? null])}`;

export function jwtVerifier(config: JwtConfig, clock: () => Date) {
  const key = config.secret ? new TextEncoder().encode(config.secret) : createRemoteJWKSet(config.jwksUrl!);
  const algorithms = config.secret ? ['HS256'] : ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
  return async (token: string): Promise<Principal> => {
    const now = clock();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1] & Uint8Array, {
        algorithms,
        currentDate: now,
        // jose applies one tolerance to exp and nbf alike; exp is checked strictly below.
        clockTolerance: CLOCK_SKEW_SECONDS,
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated('The token has expired (exp)');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw unauthenticated(`The token's ${err.claim} claim is not valid: ${err.reason}`);
      throw unauthenticated('The token could not be verified');
    }
    checkTimes(payload, Math.floor(now.getTime() / 1000), config.maxLifetimeSeconds);
    const role = payload[config.roleClaim];
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated('The token has no subject (sub)');
    if (!isRole(role)) throw unauthenticated(`The token's ${config.roleClaim} claim must be viewer, operator, approver, admin or investor`);
    let investorUserId: string | undefined;
    if (role === 'investor') {
      const claim = payload[config.investorClaim];
      // Absent: the investor is the subject (documented). Present but not one non-empty string
      // (an array, an object, a number, ""): refused, never read as "absent".
      if (claim !== undefined && (typeof claim !== 'string' || claim === '')) {
        throw unauthenticated(`The token's ${config.investorClaim} claim must be one non-empty string (an investor id)`);
      }
      investorUserId = claim ?? payload.sub;
    }
    return {
      userId: payload.sub,
      role,
      ...(investorUserId !== undefined ? { investorUserId } : {}),
      tokenKey: jwtTokenKey(payload.sub, role, investorUserId),
      ...(typeof payload.name === 'string' && payload.name !== '' ? { name: payload.name } : {}),
    };
  };
}

function checkTimes(payload: JWTPayload, now: number, maxLifetime: number) {
  if (payload.exp === undefined) throw unauthenticated('The token has no expiry (exp); tokens without one are refused');
  if (payload.exp <= now) throw unauthenticated('The token has expired (exp)');
  if (payload.iat !== undefined && payload.iat > now + CLOCK_SKEW_SECONDS) {
    throw unauthenticated(`The token's iat claim is more than ${CLOCK_SKEW_SECONDS} s in the future`);
  }
  if (payload.nbf !== undefined && payload.nbf > now + CLOCK_SKEW_SECONDS) {
    throw unauthenticated(`The token's nbf claim is more than ${CLOCK_SKEW_SECONDS} s in the future`);
  }
  const lifetime = payload.exp - Math.min(payload.iat ?? now, now);
  if (lifetime > maxLifetime) {
    throw unauthenticated(`The token's exp claim gives it a lifetime of ${lifetime} s, longer than the ${maxLifetime} s allowed (JWT_MAX_LIFETIME)`);
  }
}
