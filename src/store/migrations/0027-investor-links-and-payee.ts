// Investors acting for themselves, and the payee of a deal's payment instructions.
//
// - workflow_links.investor_may: the investor may move themselves along this link (when the
//   workflow has investorEngagementEnabled). Versions keep their links inside
//   workflow_versions.structure (append-only): a link recorded there before this column has no
//   `investorMay` member, and is read as closed (false).
// - deal_payment_settings.beneficiary_name, iban, bic: whom an investor pays, shown with the amount
//   due and their RF reference (and in the EPC QR code for EUR). The IBAN is kept compact, upper case.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table workflow_links add column investor_may boolean not null default false`.execute(db);
  await sql`alter table deal_payment_settings
    add column beneficiary_name text check (char_length(beneficiary_name) between 1 and 70),
    add column iban text check (iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$'),
    add column bic text check (bic ~ '^[A-Z0-9]{8}([A-Z0-9]{3})?$')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table deal_payment_settings drop column beneficiary_name, drop column iban, drop column bic`.execute(db);
  await sql`alter table workflow_links drop column investor_may`.execute(db);
}
