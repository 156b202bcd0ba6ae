// Row types of the mail outbox (migration 0052): facts only, never updated.
import type { ColumnType } from 'kysely';

/** jsonb: written as a JSON string, read back parsed. */
type Json<T = unknown> = ColumnType<T, string, string>;

export interface MailsTable {
  id: string;
  kind: string;
  /** The cause, unique: enqueuing the same cause again adds nothing. */
  dedupe_key: string;
  deal_id: string | null;
  /** The investor the mail is for; null for staff. */
  investor_user_id: string | null;
  recipient_address: string;
  recipient_name: string;
  language: string;
  /** The name in the From header (the deal's name); null: SMTP_FROM's own. */
  sender_name: string | null;
  /** What the templates render. */
  variables: Json<Record<string, string>>;
  enqueued_at: Date;
  /** When the investor's erasure blanked it; an erased mail is not sent. */
  erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MailAttemptsTable {
  mail_id: string;
  attempt: number;
  claim_id: string;
  started_at: Date;
  /** Until when no other dispatcher may claim the mail. */
  lease_until: Date;
}

export interface MailOutcomesTable {
  mail_id: string;
  attempt: number;
  outcome: string;
  at: Date;
  /** The server's answer, or what failed. */
  detail: string | null;
  /** When a failed or interrupted mail is due again. */
  retry_at: Date | null;
}

export interface StaffDigestSettingsTable {
  id: string;
  person_id: string;
  daily_digest: boolean;
  set_by: string;
  set_at: Date;
}

export interface MailTables {
  mails: MailsTable;
  mail_attempts: MailAttemptsTable;
  mail_outcomes: MailOutcomesTable;
  staff_digest_settings: StaffDigestSettingsTable;
}
