// Four-eyes on workflow changes: a deal's rule may now hold the replacement of its workflow and the
// migration of its journeys for a second person (action 'workflow-change' of four_eyes_rules).
// The check listing the rules' actions is replaced by one that lists it too.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table four_eyes_rules drop constraint four_eyes_rules_action_check`.execute(db);
  await sql`alter table four_eyes_rules add constraint four_eyes_rules_action_check
    check (action in ('payment-decision', 'bulk-move', 'workflow-change'))`.execute(db);
}

/** Fails when a workflow-change rule was set: rules are history, never deleted. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table four_eyes_rules drop constraint four_eyes_rules_action_check`.execute(db);
  await sql`alter table four_eyes_rules add constraint four_eyes_rules_action_check check (action in ('payment-decision', 'bulk-move'))`.execute(db);
}
