// Staff roles below admin: an API key may carry `viewer`, `operator` or `approver` as well as
// `admin` and `investor`. Only investor keys are bound to an investor, as before.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_tokens drop constraint api_tokens_role_check`.execute(db);
  await sql`alter table api_tokens add constraint api_tokens_role_check
    check (role in ('viewer', 'operator', 'approver', 'admin', 'investor'))`.execute(db);
}
