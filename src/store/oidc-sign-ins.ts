// Single sign-ons under way (migration 0045): what the identity provider's answer must match (the
// state, the nonce, the PKCE verifier), kept 10 minutes and spent once. Scratch, as WebAuthn
// challenges are: expired rows are deleted.
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Keeps what the identity provider's answer to a single sign-on must match, for 10 minutes. */
export async function insertOidcSignIn(db: Kysely<DB>, row: { state: string; nonce: string; codeVerifier: string; createdAt: Date; expiresAt: Date }) {
  await db.deleteFrom('oidc_sign_ins').where('expires_at', '<', row.createdAt).execute();
  await db
    .insertInto('oidc_sign_ins')
    .values({ state: row.state, nonce: row.nonce, code_verifier: row.codeVerifier, created_at: row.createdAt, expires_at: row.expiresAt })
    .execute();
}

/** Spends a single sign-on's state, once: its nonce and PKCE verifier, or undefined when unknown, spent or expired. */
export async function consumeOidcSignIn(db: Kysely<DB>, state: string, now: Date) {
  const row = await db
    .updateTable('oidc_sign_ins')
    .set({ used_at: now })
    .where('state', '=', state)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['nonce', 'code_verifier'])
    .executeTakeFirst();
  return row && { nonce: row.nonce, codeVerifier: row.code_verifier };
}
