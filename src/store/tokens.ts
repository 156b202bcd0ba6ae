import type { Kysely, Selectable } from 'kysely';
import type { ApiTokensTable, DB } from './schema.ts';

export interface TokenRecord {
  id: string;
  name: string;
  role: string;
  investorUserId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  personId: string | null;
  integration: string | null;
  expiresAt: string | null;
}

const toRecord = (row: Selectable<ApiTokensTable>): TokenRecord => ({
  id: row.id,
  name: row.name,
  role: row.role,
  investorUserId: row.investor_user_id,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
  revokedAt: row.revoked_at?.toISOString() ?? null,
  personId: row.person_id,
  integration: row.integration,
  expiresAt: row.expires_at?.toISOString() ?? null,
});

export async function insertToken(
  db: Kysely<DB>,
  token: {
    id: string;
    name: string;
    role: string;
    investorUserId: string | null;
    tokenHash: string;
    createdAt: Date;
    personId?: string | null;
    integration?: string | null;
    expiresAt?: Date | null;
  },
): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({
      id: token.id,
      name: token.name,
      role: token.role,
      investor_user_id: token.investorUserId,
      token_hash: token.tokenHash,
      created_at: token.createdAt,
      person_id: token.personId ?? null,
      integration: token.integration ?? null,
      expires_at: token.expiresAt ?? null,
    })
    .execute();
}

/** The live (not revoked, not expired) token with this hash, or undefined. */
export async function findLiveTokenByHash(db: Kysely<DB>, tokenHash: string, now: Date) {
  const row = await db
    .selectFrom('api_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** Records the use of tokens (at most once a minute each), so authentication does not write on every request. */
export async function touchTokens(db: Kysely<DB>, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  const minuteAgo = new Date(now.getTime() - 60_000);
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', 'in', ids)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', minuteAgo)]))
    .execute();
}

export async function listTokens(db: Kysely<DB>): Promise<TokenRecord[]> {
  const rows = await db.selectFrom('api_tokens').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

/** True when a live token was revoked now. */
export async function revokeToken(db: Kysely<DB>, id: string, now: Date): Promise<boolean> {
  const result = await db.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function hasLiveAdminToken(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('api_tokens').select('id').where('role', '=', 'admin').where('revoked_at', 'is', null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The stored hash of a live (not revoked) token, by its id: the key a stream ticket is signed with. */
export async function findLiveTokenHashById(db: Kysely<DB>, id: string): Promise<{ role: string; tokenHash: string } | undefined> {
  const row = await db.selectFrom('api_tokens').select(['role', 'token_hash']).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return row ? { role: row.role, tokenHash: row.token_hash } : undefined;
}

/** Revokes every live key that belongs to this staff person (a deactivation); the ids revoked. */
export async function revokePersonTokens(db: Kysely<DB>, personId: string, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('person_id', '=', personId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort();
}

/** Revokes every live token bound to this investor (an erasure); the ids revoked. */
export async function revokeInvestorTokens(db: Kysely<DB>, investorUserId: string, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('investor_user_id', '=', investorUserId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort();
}
