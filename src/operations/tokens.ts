// API keys: created by the CLI (shown once), stored only as a SHA-256 hash, looked up by hash.
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.ts';
import { isRole, type Principal, type Role, roleMeets, type StaffRole } from '../domain/principal.ts';
import type { Db } from '../store/schema.ts';
import { isErased, wasErased } from '../store/erasure.ts';
import { findInvestor } from '../store/investors.ts';
import { findPersonByEmail } from '../store/staff.ts';
import * as tokens from '../store/tokens.ts';
import { recordTokenChange, SYSTEM_PRINCIPAL } from './audit-entries.ts';
import { type Caches, invalidateLocally, publishInvalidation } from './caches.ts';

export const API_KEY_PREFIX = 'dfk_';

// Every request hashes its API key: the one-shot `hash` costs less than half of a Hash object (bench profile).
export const hashToken = (token: string) => hash('sha256', token, 'hex');

export interface CreateTokenInput {
  name: string;
  role: Role;
  investorUserId?: string;
  /** Refuse an investor id that is not in the directory (the CLI's default; --allow-unknown lifts it). */
  requireKnownInvestor?: boolean;
  /** The staff person the key belongs to, by e-mail: deactivating them revokes it; its role is at most theirs. */
  personEmail?: string;
  /** The integration that uses the key (a machine's). */
  integration?: string;
  /** When the key stops working. */
  expiresAt?: Date;
}

export interface CreatedToken {
  id: string;
  name: string;
  role: Role;
  investorUserId: string | null;
  /** The secret itself: shown once, never stored. */
  token: string;
}

export async function createToken(db: Db, input: CreateTokenInput, now = new Date(), principal: Principal = SYSTEM_PRINCIPAL): Promise<CreatedToken> {
  if (!isRole(input.role)) throw new AppError('validation', `role must be one of viewer, operator, approver, admin, investor; got "${input.role}"`);
  if (input.role === 'investor' && !input.investorUserId) {
    throw new AppError('validation', 'an investor token needs the investor user id it is bound to');
  }
  if (input.role !== 'investor' && input.investorUserId) {
    throw new AppError('validation', 'a staff token is not bound to an investor');
  }
  // A token bound to a mistyped id would answer 404 to everything its investor asks.
  if (input.role === 'investor' && input.requireKnownInvestor && !(await findInvestor(db, input.investorUserId!))) {
    throw new AppError('not-found', `no investor "${input.investorUserId}" in the directory; create it first (PUT /investors/{id}), or pass --allow-unknown`);
  }
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new AppError('validation', 'the token name must be 1 to 200 characters');
  if (input.personEmail !== undefined && input.integration !== undefined)
    throw new AppError('validation', 'a key belongs to a person or an integration, not both');
  if (input.integration !== undefined && (input.integration.trim() === '' || input.integration.length > 200))
    throw new AppError('validation', 'the integration name must be 1 to 200 characters');
  if (input.expiresAt !== undefined && !(input.expiresAt > now)) throw new AppError('validation', 'a key must expire in the future');
  let personId: string | null = null;
  if (input.personEmail !== undefined) {
    const person = await findPersonByEmail(db, input.personEmail);
    if (!person || person.deactivated_at !== null) throw new AppError('not-found', `no active staff person with the e-mail ${input.personEmail}`);
    if (!roleMeets(person.role as Role, input.role as StaffRole))
      throw new AppError('validation', `a key of ${input.personEmail} carries at most their role, ${person.role}; asked ${input.role}`);
    personId = person.id;
  }
  const token = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const id = randomUUID();
  const investorUserId = input.investorUserId ?? null;
  // The token and its audit entry commit together (in the caller's transaction when there is one).
  const write = async (trx: Db) => {
    // An erased investor gets no new way in (the erasure revoked the old ones).
    if (investorUserId !== null && (await isErased(trx, investorUserId))) {
      throw new AppError('conflict', `investor "${investorUserId}" was erased; no token is made for an erased investor`);
    }
    await tokens.insertToken(trx, {
      id,
      name,
      role: input.role,
      investorUserId,
      tokenHash: hashToken(token),
      createdAt: now,
      personId,
      integration: input.integration?.trim() ?? null,
      expiresAt: input.expiresAt ?? null,
    });
    await recordTokenChange(trx, principal, 'token.created', { id, role: input.role, investorUserId, ...(personId ? { personId } : {}) }, now);
  };
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
  return { id, name, role: input.role, investorUserId, token };
}

/** How long uses of tokens are gathered before one statement records them all. */
export const TOKEN_USE_FLUSH_MS = 200;

const pendingUses = new WeakMap<Db, { ids: Set<string>; now: Date }>();

/**
 * Records a token's use off the request path: gathered for TOKEN_USE_FLUSH_MS and written by one
 * statement after the request has answered, so no read waits for a commit (a commit that hangs, as
 * on a database whose synchronous standby is gone, must not hang a GET). A use that fails to be
 * recorded is lost: `last_used_at` is advice for whoever prunes tokens, not history.
 */
function recordUse(db: Db, id: string, now: Date): void {
  const pending = pendingUses.get(db);
  if (pending) {
    pending.ids.add(id);
    if (now > pending.now) pending.now = now;
    return;
  }
  pendingUses.set(db, { ids: new Set([id]), now });
  setTimeout(() => {
    const batch = pendingUses.get(db);
    pendingUses.delete(db);
    if (batch) tokens.touchTokens(db, [...batch.ids], batch.now).catch(() => undefined);
  }, TOKEN_USE_FLUSH_MS).unref();
}

/**
 * The principal of a live API key, or undefined for an unknown or revoked one. With `caches`, a key
 * found live is remembered for a few seconds (see caches.ts for how revocation reaches it); unknown
 * keys are not remembered, so guessing cannot fill the cache.
 */
export async function authenticateApiKey(db: Db, token: string, now = new Date(), caches?: Caches): Promise<Principal | undefined> {
  const hash = hashToken(token);
  const cached = caches?.tokens.get(hash, now.getTime());
  if (cached) {
    if (cached.lastUsedAt === null || now.getTime() - cached.lastUsedAt > 60_000) {
      cached.lastUsedAt = now.getTime();
      recordUse(db, cached.tokenId, now);
    }
    return cached.principal as Principal;
  }
  const generation = caches?.tokens.generation ?? 0;
  const record = await tokens.findLiveTokenByHash(db, hash, now);
  if (!record || !isRole(record.role)) return undefined;
  let lastUsedAt = record.lastUsedAt ? Date.parse(record.lastUsedAt) : null;
  if (lastUsedAt === null || now.getTime() - lastUsedAt > 60_000) {
    recordUse(db, record.id, now);
    lastUsedAt = now.getTime();
  }
  const principal: Principal = {
    userId: record.role === 'investor' && record.investorUserId ? record.investorUserId : record.id,
    role: record.role,
    ...(record.investorUserId ? { investorUserId: record.investorUserId } : {}),
    tokenKey: record.id,
  };
  caches?.tokens.set(hash, { tokenId: record.id, principal, lastUsedAt }, now.getTime(), generation);
  return principal;
}

export const listTokens = tokens.listTokens;

/** Revokes a live token; every instance refuses it from the commit on (caches.ts). */
export async function revokeToken(db: Db, id: string, now = new Date(), principal: Principal = SYSTEM_PRINCIPAL): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new AppError('not-found', `no live token with id "${id}"`);
  const revoked = await db.transaction().execute(async (trx) => {
    if (!(await tokens.revokeToken(trx, id, now))) return false;
    await recordTokenChange(trx, principal, 'token.revoked', { id }, now);
    await publishInvalidation(trx, { kind: 'token', tokenId: id });
    return true;
  });
  if (!revoked) throw new AppError('not-found', `no live token with id "${id}"`);
  invalidateLocally({ kind: 'token', tokenId: id });
}

/**
 * Whether an investor JWT's investor was erased: the erasure revokes what the service issued (API
 * keys, portal sessions), but not what an identity provider signs, so those are refused here (one
 * primary-key read per investor JWT request).
 */
export const isErasedInvestor = (db: Db, investorUserId: string) => wasErased(db, investorUserId);
