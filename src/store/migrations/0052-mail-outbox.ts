// The mail outbox: a transactional e-mail is enqueued in the transaction of the action that causes
// it, and dispatchers send it later. Each table holds facts only (append-only, as the audit chain):
// `mails` what to send (its kind, recipient, language, the variables its templates render, and
// the mail's id, from which its Message-ID is made, the same on every attempt), `mail_attempts`
// each claim of a mail by a dispatcher (with a lease), `mail_outcomes` how an attempt ended. `dedupe_key` is unique: the same cause enqueued
// twice (a retried request, two instances writing one day's digest) is one mail.
// `staff_digest_settings` holds each change of a person's daily digest; the latest one counts.
// An investor's erasure blanks the recipient and variables of their mails (`erased_at`); an erased
// mail not yet sent is never sent. `investors.language`: the language an investor's e-mails are written in where a translation exists.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table mails (
    id uuid primary key,
    kind text not null check (kind in ('invitation', 'document-to-sign', 'countersigned-copy', 'payment-instructions', 'payment-received', 'edit-request-decided', 'staff-digest')),
    dedupe_key text not null unique check (length(dedupe_key) between 1 and 500),
    deal_id text,
    investor_user_id text,
    recipient_address text not null check (length(recipient_address) between 3 and 254),
    recipient_name text not null,
    language text not null check (language in ('en', 'de', 'fr')),
    sender_name text,
    variables jsonb not null,
    enqueued_at timestamptz(3) not null,
    erased_at timestamptz(3)
  )`.execute(db);
  await sql`create index mails_investor on mails (investor_user_id) where investor_user_id is not null`.execute(db);
  await sql`create index mails_enqueued on mails (enqueued_at, id)`.execute(db);
  await sql`create table mail_attempts (
    mail_id uuid not null references mails (id),
    attempt integer not null check (attempt >= 1),
    claim_id uuid not null,
    started_at timestamptz(3) not null,
    lease_until timestamptz(3) not null,
    primary key (mail_id, attempt)
  )`.execute(db);
  await sql`create table mail_outcomes (
    mail_id uuid not null,
    attempt integer not null,
    outcome text not null check (outcome in ('sent', 'failed', 'interrupted', 'dead')),
    at timestamptz(3) not null,
    detail text,
    retry_at timestamptz(3),
    primary key (mail_id, attempt),
    foreign key (mail_id, attempt) references mail_attempts (mail_id, attempt),
    check ((outcome in ('failed', 'interrupted')) = (retry_at is not null))
  )`.execute(db);
  await sql`create index mail_outcomes_final on mail_outcomes (mail_id) where outcome in ('sent', 'dead')`.execute(db);
  await sql`create table staff_digest_settings (
    id uuid primary key,
    person_id uuid not null references staff_people (id),
    daily_digest boolean not null,
    set_by text not null,
    set_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index staff_digest_settings_person on staff_digest_settings (person_id, set_at desc, id)`.execute(db);
  for (const table of ['mails', 'mail_attempts', 'mail_outcomes', 'staff_digest_settings']) {
    const change = table === 'mails' ? 'delete' : 'update or delete';
    await sql.raw(`create trigger ${table}_append_only before ${change} on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql.raw(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_history_change()`).execute(db);
  }
  // An investor's erasure blanks who a mail was for and what it said, once; nothing else changes.
  await sql`create function mails_erase_only() returns trigger language plpgsql as $$
    begin
      if old.erased_at is not null or new.erased_at is null or new.recipient_address <> 'erased@invalid' or new.recipient_name <> ''
        or new.variables <> '{}'::jsonb
        or (to_jsonb(new) - array['recipient_address', 'recipient_name', 'variables', 'erased_at'])
          is distinct from (to_jsonb(old) - array['recipient_address', 'recipient_name', 'variables', 'erased_at']) then
        raise exception 'history is append-only: a mail may only be erased (its recipient and variables blanked, once)' using errcode = '42501';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger mails_erase_only before update on mails for each row execute function mails_erase_only()`.execute(db);
  await sql`alter table investors add column language text check (language in ('en', 'de', 'fr'))`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0052-mail-outbox cannot be undone: restore a backup taken before it');
}
