// Checks of investors' identity by an external KYC provider (docs/reference/kyc-provider-contract.md):
// each check as started (who asked, for which level, the provider's id for it), and its one result
// as the provider's signed webhook delivered it. History: rows are never changed nor deleted; a
// check's state is its result's outcome, or `started` while it has none. Neither table holds
// personal data (the provider holds the documents; we keep ids, levels and outcomes).
// Frozen in time: migrations never import application code.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table kyc_checks (
    id uuid primary key,
    seq bigint generated always as identity,
    investor_id text not null references investors (id),
    deal_id text references deals (id),
    level integer not null check (level between 1 and 100),
    provider text not null,
    provider_check_id text not null,
    redirect_url text,
    started_by text not null,
    started_at timestamptz(3) not null,
    unique (provider, provider_check_id)
  )`.execute(db);
  await sql`create index kyc_checks_investor on kyc_checks (investor_id, seq desc)`.execute(db);
  await sql`create table kyc_check_results (
    check_id uuid primary key references kyc_checks (id),
    webhook_id text not null unique,
    outcome text not null check (outcome in ('clear', 'refer', 'failed', 'expired')),
    level integer check (level between 1 and 100),
    decided_at timestamptz(3) not null,
    received_at timestamptz(3) not null,
    check ((outcome = 'clear') = (level is not null))
  )`.execute(db);
  for (const table of ['kyc_checks', 'kyc_check_results']) {
    await sql`create trigger ${sql.raw(`${table}_no_change`)} before update or delete on ${sql.table(table)}
      for each row execute function refuse_history_change()`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
      for each statement execute function refuse_history_change()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table kyc_check_results`.execute(db);
  await sql`drop table kyc_checks`.execute(db);
}
