// Checks by an external KYC provider (migration 0051): started, listed newest first with their
// result, found by the id the provider's webhook names, and decided once. The investor's KYC level
// is raised here, in the decision's transaction; the move path reads it as before (store/moves.ts).
import type { Db } from './schema.ts';

export interface KycCheckRow {
  id: string;
  investorId: string;
  dealId: string | null;
  level: number;
  provider: string;
  providerCheckId: string;
  redirectUrl: string | null;
  startedBy: string;
  startedAt: string;
  result: { webhookId: string; outcome: string; level: number | null; decidedAt: string; receivedAt: string } | null;
}

export interface NewKycCheck {
  id: string;
  investorId: string;
  dealId: string | null;
  level: number;
  provider: string;
  providerCheckId: string;
  redirectUrl: string | null;
  startedBy: string;
  startedAt: Date;
}

const checksWithResults = (db: Db) =>
  db
    .selectFrom('kyc_checks as c')
    .leftJoin('kyc_check_results as r', 'r.check_id', 'c.id')
    .select([
      'c.id',
      'c.investor_id',
      'c.deal_id',
      'c.level',
      'c.provider',
      'c.provider_check_id',
      'c.redirect_url',
      'c.started_by',
      'c.started_at',
      'r.webhook_id',
      'r.outcome',
      'r.level as result_level',
      'r.decided_at',
      'r.received_at',
    ]);

type Joined = Awaited<ReturnType<ReturnType<typeof checksWithResults>['executeTakeFirstOrThrow']>>;

const toRow = (r: Joined): KycCheckRow => ({
  id: r.id,
  investorId: r.investor_id,
  dealId: r.deal_id,
  level: r.level,
  provider: r.provider,
  providerCheckId: r.provider_check_id,
  redirectUrl: r.redirect_url,
  startedBy: r.started_by,
  startedAt: r.started_at.toISOString(),
  result:
    r.webhook_id === null || r.outcome === null || r.decided_at === null || r.received_at === null
      ? null
      : { webhookId: r.webhook_id, outcome: r.outcome, level: r.result_level, decidedAt: r.decided_at.toISOString(), receivedAt: r.received_at.toISOString() },
});

export async function insertKycCheck(db: Db, check: NewKycCheck): Promise<KycCheckRow> {
  await db
    .insertInto('kyc_checks')
    .values({
      id: check.id,
      investor_id: check.investorId,
      deal_id: check.dealId,
      level: check.level,
      provider: check.provider,
      provider_check_id: check.providerCheckId,
      redirect_url: check.redirectUrl,
      started_by: check.startedBy,
      started_at: check.startedAt,
    })
    .execute();
  return (await findKycCheck(db, check.id))!;
}

export async function findKycCheck(db: Db, id: string): Promise<KycCheckRow | undefined> {
  const row = await checksWithResults(db).where('c.id', '=', id).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/** The check whose row this is, locked until the transaction ends, so two deliveries of its result take turns. */
export async function lockKycCheck(db: Db, id: string): Promise<void> {
  await db.selectFrom('kyc_checks').select('id').where('id', '=', id).forUpdate().execute();
}

/** An investor's checks, newest first. */
export async function kycChecksOf(db: Db, investorId: string): Promise<KycCheckRow[]> {
  const rows = await checksWithResults(db).where('c.investor_id', '=', investorId).orderBy('c.seq', 'desc').execute();
  return rows.map(toRow);
}

/** Whether a result with this webhook-id was recorded for a check other than `checkId`. */
export async function webhookIdUsedElsewhere(db: Db, webhookId: string, checkId: string): Promise<boolean> {
  const row = await db
    .selectFrom('kyc_check_results')
    .select('check_id')
    .where('webhook_id', '=', webhookId)
    .where('check_id', '<>', checkId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertKycResult(
  db: Db,
  result: { checkId: string; webhookId: string; outcome: string; level: number | null; decidedAt: Date; receivedAt: Date },
): Promise<void> {
  await db
    .insertInto('kyc_check_results')
    .values({
      check_id: result.checkId,
      webhook_id: result.webhookId,
      outcome: result.outcome,
      level: result.level,
      decided_at: result.decidedAt,
      received_at: result.receivedAt,
    })
    .execute();
}

/** Sets the investor's KYC level (store/investors.ts's column), as a decision computed it. */
export async function setKycLevel(db: Db, investorId: string, level: number | null, at: Date): Promise<void> {
  await db.updateTable('investors').set({ kyc_check_level: level, updated_at: at }).where('id', '=', investorId).execute();
}
