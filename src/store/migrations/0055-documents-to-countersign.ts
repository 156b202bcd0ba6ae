// What waits for staff's countersignature: one row per subscription agreement the investor has
// signed and no approver has countersigned yet (migration 0053's signatures), counted by the staff
// digest (store/mail-digest.ts). A view, so it is never out of step with the signatures.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An anti-join of two relations (as counted_events), so that PostgreSQL 15 and 16+ print the
  // definition alike, qualified (db/schema.sql is compared on both); it reads the unique index of
  // agreement_signatures (deal_id, investor_user_id, role).
  await sql`create view documents_to_countersign as
    select s.deal_id, s.investor_user_id, s.id as signature_id, s.signed_at
    from agreement_signatures s
    left join agreement_signatures c on c.deal_id = s.deal_id and c.investor_user_id = s.investor_user_id and c.role = 'countersigner'
    where s.role = 'investor' and c.id is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view documents_to_countersign`.execute(db);
}
