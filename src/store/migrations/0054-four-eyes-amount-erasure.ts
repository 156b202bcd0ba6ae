// Four-eyes by amount and for erasure: a deal's bulk-move rule may also hold a batch by the sum of
// the commitments it moves (`min_amount`, in the deal's currency), and a deal's rule 'erasure' holds
// the erasure of any investor with a journey in the deal for a second admin.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table four_eyes_rules add column min_amount numeric check (min_amount is null or min_amount > 0)`.execute(db);
  await sql`alter table four_eyes_rules drop constraint four_eyes_rules_action_check`.execute(db);
  await sql`alter table four_eyes_rules add constraint four_eyes_rules_action_check
    check (action in ('payment-decision', 'bulk-move', 'workflow-change', 'erasure'))`.execute(db);
}

/** Fails when an erasure rule was set: rules are history, never deleted. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table four_eyes_rules drop constraint four_eyes_rules_action_check`.execute(db);
  await sql`alter table four_eyes_rules add constraint four_eyes_rules_action_check
    check (action in ('payment-decision', 'bulk-move', 'workflow-change'))`.execute(db);
  await sql`alter table four_eyes_rules drop column min_amount`.execute(db);
}
