// When a deal's bank details last changed (the beneficiary, the IBAN or the BIC, once set): the
// portal tells investors that the instructions changed, since a change of account is how payments
// are diverted. Null until they change after being set first.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table deal_payment_settings add column payee_changed_at timestamptz(3)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table deal_payment_settings drop column payee_changed_at`.execute(db);
}
