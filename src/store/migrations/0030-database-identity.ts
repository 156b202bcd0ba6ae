// What this database is, held in the database itself, for two checks that do not depend on the
// server's transaction counter:
// - `instance_id`, drawn once when this migration runs: every copy of the data (a base backup, a
//   point-in-time restore, a dump loaded elsewhere) carries it, so audit checkpoints that name it
//   tie the chain to the database that sealed it.
// - `system_identifier`, the cluster's (pg_control_system()), as it was when recorded: a physical
//   copy (pg_basebackup, pgBackRest, a promoted standby) keeps the cluster's, a logical dump loaded
//   into another cluster does not, and `dealflow verify` then says the data is a copy.
// - `heartbeat_at`: the readiness probe's write, a commit that proves writes complete.
// Audit checkpoints record the instance, the system identifier, the timeline and the server (address
// and port) they were sealed on.
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table database_identity (
    one boolean primary key default true check (one),
    instance_id uuid not null,
    system_identifier text not null,
    recorded_at timestamptz(3) not null,
    heartbeat_at timestamptz(3)
  )`.execute(db);
  await sql`insert into database_identity (instance_id, system_identifier, recorded_at)
    select gen_random_uuid(), system_identifier::text, now() from pg_control_system()`.execute(db);
  await sql`alter table audit_checkpoints
    add column instance_id uuid,
    add column system_identifier text,
    add column timeline integer,
    add column server text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table audit_checkpoints drop column instance_id, drop column system_identifier, drop column timeline, drop column server`.execute(db);
  await sql`drop table database_identity`.execute(db);
}
