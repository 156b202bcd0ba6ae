// Idempotency keys (see operations/idempotency.ts for the protocol). Times come from the caller's
// clock, not the database's now(), so every instance and every test agrees on what has expired.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface KeyRef {
  scope: string;
  key: string;
}

export interface StoredKey {
  fingerprint: string;
  status: 'in-progress' | 'done';
  leaseId: string;
  response: { status: number; body: string } | undefined;
  expiresAt: Date;
}

export interface Claim extends KeyRef {
  fingerprint: string;
  leaseId: string;
  now: Date;
  leaseUntil: Date;
}

/**
 * Claims a free key (autocommit, one statement). False when a row exists. On PostgreSQL a
 * concurrent claim of the same key waits only for this one statement, never for the effect.
 */
export async function claimKey(db: Kysely<DB>, claim: Claim): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values({
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      status: 'in-progress',
      lease_id: claim.leaseId,
      created_at: claim.now,
      expires_at: claim.leaseUntil,
    })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

/** A key that a write of one statement takes and completes in that statement (see keyInsertCte). */
export interface DoneKey extends KeyRef {
  fingerprint: string;
  leaseId: string;
  now: Date;
  /** When the stored response expires (the TTL, not a lease). */
  expiresAt: Date;
  status: number;
}

/**
 * The CTE `claimed`: the key inserted as 'done' with its response (`body`, SQL built from what the
 * statement reads), for a statement that makes its whole effect depend on it (`from claimed`).
 * It yields one row when the key was free or had expired (taken over, as takeOverExpiredKey does),
 * none when a live row holds it: then the statement must write nothing, and the caller reads that
 * row. On PostgreSQL a concurrent statement with the same key waits here until this one's
 * transaction ends, then finds the row (or, after a rollback, takes the key).
 */
export function keyInsertCte(key: DoneKey, body: RawBuilder<unknown>, from: RawBuilder<unknown>) {
  return sql`claimed as (
      insert into idempotency_keys as k (scope, key, fingerprint, status, lease_id, response_status, response_body, created_at, expires_at)
      select ${key.scope}::text, ${key.key}::text, ${key.fingerprint}::text, 'done', ${key.leaseId}::uuid, ${key.status}::int, ${body},
        ${key.now}::timestamptz, ${key.expiresAt}::timestamptz
      ${from}
      on conflict (scope, key) do update set fingerprint = excluded.fingerprint, status = 'done', lease_id = excluded.lease_id,
        response_status = excluded.response_status, response_body = excluded.response_body, created_at = excluded.created_at,
        expires_at = excluded.expires_at
      where k.expires_at <= ${key.now}::timestamptz
      returning response_body
    )`;
}

/** Takes over a row that has expired (a finished key past its TTL, or a lease a crash left). */
export async function takeOverExpiredKey(db: Kysely<DB>, claim: Claim): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      fingerprint: claim.fingerprint,
      status: 'in-progress',
      lease_id: claim.leaseId,
      response_status: null,
      response_body: null,
      created_at: claim.now,
      expires_at: claim.leaseUntil,
    })
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .where('expires_at', '<=', claim.now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findKey(db: Kysely<DB>, ref: KeyRef): Promise<StoredKey | undefined> {
  const row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', ref.scope).where('key', '=', ref.key).executeTakeFirst();
  if (!row) return undefined;
  return {
    fingerprint: row.fingerprint,
    status: row.status,
    leaseId: row.lease_id,
    response: row.response_status !== null && row.response_body !== null ? { status: row.response_status, body: row.response_body } : undefined,
    expiresAt: row.expires_at,
  };
}

/** Stores the response of the claim `leaseId`, in the effect's transaction. False if the lease was lost. */
export async function completeKey(
  db: Kysely<DB>,
  ref: KeyRef & { leaseId: string },
  response: { status: number; body: string },
  expiresAt: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ status: 'done', response_status: response.status, response_body: response.body, expires_at: expiresAt })
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('lease_id', '=', ref.leaseId)
    .where('status', '=', 'in-progress')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees the key of a request whose effect failed, so a retry runs it again. */
export async function releaseKey(db: Kysely<DB>, ref: KeyRef & { leaseId: string }): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('lease_id', '=', ref.leaseId)
    .where('status', '=', 'in-progress')
    .execute();
}

/** Deletes expired keys; returns how many. */
export async function deleteExpiredKeys(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Extends the lease `ref` while its request runs. False when the lease is no longer ours (taken over, completed or released). */
export async function renewLease(db: Kysely<DB>, ref: KeyRef & { leaseId: string }, leaseUntil: Date): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ expires_at: leaseUntil })
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('lease_id', '=', ref.leaseId)
    .where('status', '=', 'in-progress')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Makes every in-progress lease expire at `now`; returns how many. */
export async function expireInProgressKeys(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ expires_at: now })
    .where('status', '=', 'in-progress')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Claims free keys in the caller's transaction, in one statement, for a group of requests that
 * commit together (operations/move-groups.ts): each row is completed (completeKeys) or deleted
 * (releaseKeys) before that transaction commits, so none is ever seen 'in-progress'. Returns the
 * claims that took their key; a key held by a row (live or expired) is not taken here. Rows are
 * inserted in key order, so two groups never wait for each other in a circle; on PostgreSQL a
 * claim of a key another open transaction inserted waits for it to end.
 */
export async function claimKeys(db: Kysely<DB>, claims: readonly Claim[]): Promise<Set<Claim>> {
  if (claims.length === 0) return new Set();
  const sorted = [...claims].sort((a, b) => (a.scope === b.scope ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.scope < b.scope ? -1 : 1));
  const { rows } = await sql<{ scope: string; key: string }>`
    insert into idempotency_keys (scope, key, fingerprint, status, lease_id, created_at, expires_at)
    select c.scope, c.key, c.fingerprint, 'in-progress', c.lease_id, c.created_at, c.expires_at
    from unnest(${sorted.map((c) => c.scope)}::text[], ${sorted.map((c) => c.key)}::text[], ${sorted.map((c) => c.fingerprint)}::text[],
      ${sorted.map((c) => c.leaseId)}::uuid[], ${sorted.map((c) => c.now.toISOString())}::timestamptz[], ${sorted.map((c) => c.leaseUntil.toISOString())}::timestamptz[])
      with ordinality as c(scope, key, fingerprint, lease_id, created_at, expires_at, n)
    order by c.n
    on conflict (scope, key) do nothing
    returning scope, key`.execute(db);
  const taken = new Set(rows.map((r) => `${r.scope}\u0000${r.key}`));
  return new Set(claims.filter((c) => taken.has(`${c.scope}\u0000${c.key}`)));
}

/** Stores the responses of keys claimed by claimKeys, in the same transaction (one statement). */
export async function completeKeys(
  db: Kysely<DB>,
  done: readonly (KeyRef & { leaseId: string; response: { status: number; body: string }; expiresAt: Date })[],
): Promise<void> {
  if (done.length === 0) return;
  await sql`
    update idempotency_keys k set status = 'done', response_status = d.status, response_body = d.body, expires_at = d.expires_at
    from unnest(${done.map((d) => d.scope)}::text[], ${done.map((d) => d.key)}::text[], ${done.map((d) => d.leaseId)}::uuid[],
      ${done.map((d) => d.response.status)}::int[], ${done.map((d) => d.response.body)}::text[], ${done.map((d) => d.expiresAt.toISOString())}::timestamptz[])
      as d(scope, key, lease_id, status, body, expires_at)
    where k.scope = d.scope and k.key = d.key and k.lease_id = d.lease_id`.execute(db);
}

/** Deletes keys claimed by claimKeys whose request was refused, in the same transaction: a retry runs again. */
export async function releaseKeys(db: Kysely<DB>, refs: readonly (KeyRef & { leaseId: string })[]): Promise<void> {
  if (refs.length === 0) return;
  await sql`
    delete from idempotency_keys k
    using unnest(${refs.map((r) => r.scope)}::text[], ${refs.map((r) => r.key)}::text[], ${refs.map((r) => r.leaseId)}::uuid[]) as r(scope, key, lease_id)
    where k.scope = r.scope and k.key = r.key and k.lease_id = r.lease_id`.execute(db);
}
