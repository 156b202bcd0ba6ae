// Row types of the credentials (API keys) and the sign-in tables (investors in the portal, staff in
// the console), as schema.ts's: the rows as the drivers return them.
import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface ApiTokensTable {
  id: string;
  name: string;
  role: string;
  investor_user_id: string | null;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** The staff person the key belongs to (deactivating them revokes it), or null. */
  person_id: string | null;
  /** The integration that uses the key, when it is a machine's. */
  integration: string | null;
  expires_at: Date | null;
}

/** Sign-in invitations (migrations 0026, 0045): single use, expiring; only the token's SHA-256 is kept. */
export interface SignInInvitationsTable {
  id: string;
  /** 'investor' (the portal) or 'staff' (the console). */
  audience: ColumnType<string, string | undefined, never>;
  /** The investor's id, or the staff person's. */
  subject_id: string;
  token_hash: string;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

/** Passkeys (WebAuthn credentials); a new registration replaces the subject's earlier ones. */
export interface PasskeysTable {
  credential_id: string;
  audience: ColumnType<string, string | undefined, never>;
  subject_id: string;
  public_key: Uint8Array;
  counter: ColumnType<string, number, number>;
  transports: string[];
  invitation_id: string;
  created_at: Date;
  last_used_at: Date | null;
  replaced_at: Date | null;
}

/** Sign-in sessions: the cookie's token as SHA-256; renewed on use up to a fixed end. */
export interface SignInSessionsTable {
  id: string;
  audience: ColumnType<string, string | undefined, never>;
  subject_id: string;
  token_hash: string;
  /** The passkey signed in with; null for a single sign-on. */
  credential_id: string | null;
  /** 'passkey' or 'oidc'. */
  method: ColumnType<string, string | undefined, never>;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
  revoked_at: Date | null;
}

/** WebAuthn challenges between the options and the answer: single use, expiring. */
export interface WebauthnChallengesTable {
  challenge: string;
  /** registration (with its invitation) or authentication */
  purpose: string;
  invitation_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** Staff people (migration 0045): who signs in to the console, with their role. */
export interface StaffPeopleTable {
  id: string;
  name: string;
  email: string;
  role: string;
  created_by: string;
  created_at: Date;
  deactivated_at: Date | null;
  deactivated_by: string | null;
}

/** A single sign-on under way: what the identity provider's answer must match (migration 0045). */
export interface OidcSignInsTable {
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}
