// An investor's erasure reaches their evidence (docs/reference/audit.md, "Erasure"): their KYC
// documents' file names, the reasons staff gave for rejecting one, the IP address of their category
// confirmations and of their signature of an agreement are blanked; the contents (identity
// documents, proofs of address, their filled and signed agreements) are deleted when no record of
// an investor not erased, of a deal or of a template names them (a content is kept once per
// SHA-256, and the same bytes may be another's document).
//
// So that a record may name a content that is gone, the foreign keys from kyc_documents and
// agreement_signatures to document_blobs become a check when the row is written (the content is
// there, locked as the foreign key locked it), and a content row may be deleted only when no live
// record names it: the check runs with the statement's own snapshot, so a record another
// transaction committed meanwhile is seen, and the erasure is refused as a serialization failure
// (retried by the write pipeline, which then keeps that content).
// The history tables stay append-only but for these blanks, made only of an erased investor's rows
// (the pattern of mails_erase_only, migration 0052).
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

/** The tables whose rows the erasure blanks: the column blanked, and how a row names its investor. */
const blanked = [
  { table: 'kyc_documents', column: 'file_name', investor: 'new.investor_id' },
  { table: 'kyc_document_reviews', column: 'reason', investor: '(select d.investor_id from kyc_documents d where d.id = new.document_id)' },
  { table: 'category_confirmations', column: 'ip', investor: 'new.investor_id' },
  { table: 'agreement_signatures', column: 'ip', investor: 'new.investor_user_id' },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, column, investor } of blanked) {
    await sql.raw(`drop trigger ${table}_append_only on ${table}`).execute(db);
    await sql.raw(`create trigger ${table}_append_only before delete on ${table} for each row execute function refuse_history_change()`).execute(db);
    await sql
      .raw(`create function ${table}_erase_only() returns trigger language plpgsql as $$
    begin
      if new.${column} is distinct from (case when old.${column} is null then null else '' end)
        or (to_jsonb(new) - '${column}') is distinct from (to_jsonb(old) - '${column}')
        or not exists (select 1 from investors i where i.id = ${investor} and i.erased_at is not null) then
        raise exception 'history is append-only: % of an erased investor may only be blanked', '${table}.${column}' using errcode = '42501';
      end if;
      return new;
    end $$`)
      .execute(db);
    await sql.raw(`create trigger ${table}_erase_only before update on ${table} for each row execute function ${table}_erase_only()`).execute(db);
  }

  await sql`alter table kyc_documents drop constraint kyc_documents_content_hash_fkey`.execute(db);
  await sql`alter table agreement_signatures drop constraint agreement_signatures_signed_hash_fkey`.execute(db);
  await sql`alter table agreement_signatures drop constraint agreement_signatures_sealed_hash_fkey`.execute(db);
  // What the foreign key checked when a row is written: the content is stored, and stays while the
  // writing transaction runs (FOR KEY SHARE, the lock a foreign key takes). SQLSTATE as a foreign key's.
  await sql`create function content_is_stored() returns trigger language plpgsql as $$
    declare
      hash text;
    begin
      foreach hash in array tg_argv loop
        perform 1 from document_blobs b where b.content_hash = to_jsonb(new) ->> hash for key share;
        if not found then
          raise exception 'no stored content % for %.%', to_jsonb(new) ->> hash, tg_table_name, hash using errcode = '23503';
        end if;
      end loop;
      return new;
    end $$`.execute(db);
  await sql`create trigger kyc_documents_content_is_stored before insert on kyc_documents
    for each row execute function content_is_stored('content_hash')`.execute(db);
  await sql`create trigger agreement_signatures_content_is_stored before insert on agreement_signatures
    for each row execute function content_is_stored('signed_hash', 'sealed_hash')`.execute(db);

  // A content goes only when no live record names it. Deal documents, templates and challenges keep
  // their foreign keys; the records of erased investors no longer count.
  await sql`create function document_blobs_delete_unnamed() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from kyc_documents d join investors i on i.id = d.investor_id
                 where d.content_hash = old.content_hash and i.erased_at is null)
        or exists (select 1 from agreement_signatures s join investors i on i.id = s.investor_user_id
                 where old.content_hash in (s.signed_hash, s.sealed_hash) and i.erased_at is null) then
        raise exception 'content % is named by a live record; it is kept', old.content_hash using errcode = '40001';
      end if;
      return old;
    end $$`.execute(db);
  await sql`create trigger document_blobs_delete_unnamed before delete on document_blobs
    for each row execute function document_blobs_delete_unnamed()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0056-erasure-of-evidence cannot be undone: restore a backup taken before it');
}
