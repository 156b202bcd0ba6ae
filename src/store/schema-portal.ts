// Row types of the investor portal's tables and the documents' contents, as schema.ts's: the rows as the drivers return them.
import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

/** Portal invitations (migration 0026): single use, expiring; only the token's SHA-256 is kept. */
export interface PortalInvitationsTable {
  id: string;
  investor_user_id: string;
  token_hash: string;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

/** Portal passkeys (WebAuthn credentials); a new registration replaces the investor's earlier ones. */
export interface PortalPasskeysTable {
  credential_id: string;
  investor_user_id: string;
  public_key: Uint8Array;
  counter: ColumnType<string, number, number>;
  transports: string[];
  invitation_id: string;
  created_at: Date;
  last_used_at: Date | null;
  replaced_at: Date | null;
}

/** Portal sessions: the cookie's token as SHA-256; renewed on use up to a fixed end. */
export interface PortalSessionsTable {
  id: string;
  investor_user_id: string;
  token_hash: string;
  credential_id: string;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
  revoked_at: Date | null;
}

/** WebAuthn challenges between the options and the answer: single use, expiring. */
export interface PortalChallengesTable {
  challenge: string;
  /** registration (with its invitation) or authentication */
  purpose: string;
  invitation_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface DocumentChunksTable {
  upload_id: string;
  seq: number;
  bytes: Uint8Array;
  written_at: CreatedAt;
}

export interface DocumentBlobsTable {
  /** SHA-256 of the content, hex. */
  content_hash: string;
  upload_id: string;
  size: string;
  chunk_count: number;
  created_at: CreatedAt;
}
