// Investors' categories under the UK's financial promotion rules (domain/investor-category.ts): each
// signed statement as recorded (in order: `seq`), with what the investor confirmed, its evidence,
// the day it was signed and the day it lapses. History: rows are never changed nor deleted (the newest statement
// of an investor is the one that counts), except that an erasure clears the evidence, free text
// that may name the investor.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table investor_category_statements (
    id uuid primary key,
    seq bigint generated always as identity,
    investor_id text not null references investors (id),
    category text not null check (category in ('certified-high-net-worth', 'certified-sophisticated',
      'self-certified-sophisticated', 'elective-professional', 'professional')),
    statement_text text not null,
    evidence text,
    signed_on date not null,
    expires_on date not null check (expires_on > signed_on),
    recorded_by text not null,
    recorded_at timestamptz(3) not null
  )`.execute(db);
  await sql`create index investor_category_statements_newest on investor_category_statements (investor_id, seq desc)`.execute(db);
  await sql`create trigger investor_category_statements_no_delete before delete on investor_category_statements
    for each row execute function refuse_history_change()`.execute(db);
  await sql`create trigger investor_category_statements_no_truncate before truncate on investor_category_statements
    for each statement execute function refuse_history_change()`.execute(db);
  await sql`create function investor_category_statements_erase_evidence_only() returns trigger language plpgsql as $$
    begin
      if new.evidence is not null or (to_jsonb(new) - 'evidence') is distinct from (to_jsonb(old) - 'evidence') then
        raise exception 'history is append-only: a category statement may only have its evidence erased (set to null)' using errcode = '42501';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger investor_category_statements_append_only before update on investor_category_statements
    for each row execute function investor_category_statements_erase_evidence_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table investor_category_statements`.execute(db);
  await sql`drop function investor_category_statements_erase_evidence_only()`.execute(db);
}
