// API keys: created by the CLI (shown once), stored only as a SHA-256 hash, looked up by hash.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError } from '../domain/errors.ts';
import { isRole, type Principal, type Role } from '../domain/principal.ts';
import type { DB } from '../store/schema.ts';
import * as tokens from '../store/tokens.ts';

export const API_KEY_PREFIX = 'dfk_';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface CreateTokenInput {
  name: string;
  role: Role;
  investorUserId?: string;
}

export interface CreatedToken {
  id: string;
  name: string;
  role: Role;
  investorUserId: string | null;
  /** The secret itself: shown once, never stored. */
  token: string;
}

export async function createToken(db: Kysely<DB>, input: CreateTokenInput, now = new Date()): Promise<CreatedToken> {
  if (!isRole(input.role)) throw new AppError('validation', `role must be admin or investor, got "${input.role}"`);
  if (input.role === 'investor' && !input.investorUserId) {
    throw new AppError('validation', 'an investor token needs the investor user id it is bound to');
  }
  if (input.role === 'admin' && input.investorUserId) {
    throw new AppError('validation', 'an admin token is not bound to an investor');
  }
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new AppError('validation', 'the token name must be 1 to 200 characters');
  const token = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const id = randomUUID();
  const investorUserId = input.investorUserId ?? null;
  await tokens.insertToken(db, { id, name, role: input.role, investorUserId, tokenHash: hashToken(token), createdAt: now });
  return { id, name, role: input.role, investorUserId, token };
}

/** The principal of a live API key, or undefined for an unknown or revoked one. */
export async function authenticateApiKey(db: Kysely<DB>, token: string, now = new Date()): Promise<Principal | undefined> {
  const record = await tokens.findLiveTokenByHash(db, hashToken(token));
  if (!record || !isRole(record.role)) return undefined;
  if (!record.lastUsedAt || now.getTime() - Date.parse(record.lastUsedAt) > 60_000) {
    await tokens.touchToken(db, record.id, now);
  }
  return {
    userId: record.role === 'investor' && record.investorUserId ? record.investorUserId : record.id,
    role: record.role,
    ...(record.investorUserId ? { investorUserId: record.investorUserId } : {}),
    tokenKey: record.id,
  };
}

export const listTokens = tokens.listTokens;

export async function revokeToken(db: Kysely<DB>, id: string, now = new Date()): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(id) || !(await tokens.revokeToken(db, id, now))) {
    throw new AppError('not-found', `no live token with id "${id}"`);
  }
}
