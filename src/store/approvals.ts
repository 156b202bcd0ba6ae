// Four-eyes approvals (migration 0046): a deal's rules (the newest row of each action counts), the
// proposals held for a second person, and their one decision each. Rows are only ever inserted.
import { type Kysely, sql } from 'kysely';
import type { DecisionOutcome, Proposal, ProposalAction, ProposalDecision } from '../domain/four-eyes.ts';
import { commitmentKeyOf } from './payment-settings.ts';
import type { DB } from './schema.ts';

export interface FourEyesRule {
  dealId: string;
  action: string;
  enabled: boolean;
  minInvestors: number | null;
  /** A decimal amount (numeric, read as text). */
  minAmount: string | null;
  createdBy: string;
  createdAt: string;
}

/** The rule in force for each deal of `dealIds` and `action` (deals without one are absent). */
export async function currentRules(db: Kysely<DB>, dealIds: readonly string[], action: string): Promise<Map<string, FourEyesRule>> {
  if (dealIds.length === 0) return new Map();
  type RuleRow = {
    deal_id: string;
    action: string;
    enabled: boolean;
    min_investors: number | null;
    min_amount: string | null;
    created_by: string;
    created_at: Date;
  };
  const { rows } = await sql<RuleRow>`
    select distinct on (deal_id) deal_id, action, enabled, min_investors, min_amount::text, created_by, created_at from four_eyes_rules
    where deal_id = any(${[...dealIds]}::text[]) and action = ${action}
    order by deal_id, seq desc`.execute(db);
  return new Map(
    rows.map((r) => [
      r.deal_id,
      {
        dealId: r.deal_id,
        action: r.action,
        enabled: r.enabled,
        minInvestors: r.min_investors,
        minAmount: r.min_amount,
        createdBy: r.created_by,
        createdAt: r.created_at.toISOString(),
      },
    ]),
  );
}

export async function insertRule(
  db: Kysely<DB>,
  rule: { dealId: string; action: string; enabled: boolean; minInvestors?: number | null; minAmount?: string | null; by: string; at: Date },
): Promise<void> {
  await db
    .insertInto('four_eyes_rules')
    .values({
      deal_id: rule.dealId,
      action: rule.action,
      enabled: rule.enabled,
      min_investors: rule.minInvestors ?? null,
      min_amount: rule.minAmount ?? null,
      created_by: rule.by,
      created_at: rule.at,
    })
    .execute();
}

type Row = {
  id: string;
  action: string;
  deal_id: string;
  input: Record<string, unknown>;
  basis: Record<string, unknown>;
  proposed_by: string;
  proposed_by_name: string | null;
  proposed_at: Date;
  outcome: string | null;
  decided_by: string | null;
  decided_by_name: string | null;
  reason: string | null;
  decided_at: Date | null;
  result: unknown;
};

const toProposal = (r: Row): Proposal => ({
  id: r.id,
  action: r.action as ProposalAction,
  dealId: r.deal_id,
  input: r.input,
  basis: r.basis,
  proposedBy: r.proposed_by,
  proposedByName: r.proposed_by_name,
  proposedAt: r.proposed_at.toISOString(),
  decision:
    r.outcome === null
      ? null
      : {
          outcome: r.outcome as DecisionOutcome,
          decidedBy: r.decided_by!,
          decidedByName: r.decided_by_name,
          reason: r.reason,
          decidedAt: r.decided_at!.toISOString(),
          result: r.result ?? null,
        },
});

const columns = sql`p.id, p.action, p.deal_id, p.input, p.basis, p.proposed_by, p.proposed_by_name, p.proposed_at,
  d.outcome, d.decided_by, d.decided_by_name, d.reason, d.decided_at, d.result`;

export async function insertProposal(db: Kysely<DB>, p: Omit<Proposal, 'decision'>): Promise<Proposal> {
  await sql`insert into proposals (id, action, deal_id, input, basis, proposed_by, proposed_by_name, proposed_at)
    values (${p.id}::uuid, ${p.action}, ${p.dealId}, ${JSON.stringify(p.input)}::jsonb, ${JSON.stringify(p.basis)}::jsonb,
      ${p.proposedBy}, ${p.proposedByName}, ${new Date(p.proposedAt)}::timestamptz)`.execute(db);
  return { ...p, decision: null };
}

/** The proposal with its decision; `lock` takes its row lock, so decisions on it take turns. */
export async function findProposal(db: Kysely<DB>, id: string, options: { lock?: boolean } = {}): Promise<Proposal | undefined> {
  if (options.lock) await sql`select 1 from proposals where id = ${id}::uuid for update`.execute(db);
  const { rows } = await sql<Row>`select ${columns} from proposals p left join proposal_decisions d on d.proposal_id = p.id
    where p.id = ${id}::uuid`.execute(db);
  return rows[0] ? toProposal(rows[0]) : undefined;
}

/** Proposals newest first: pending ones (no decision) or decided ones, optionally of one deal. */
export async function pageProposals(
  db: Kysely<DB>,
  filter: { status?: 'pending' | 'decided' | undefined; dealId?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ items: Proposal[]; total: number }> {
  const status = filter.status === 'pending' ? sql`and d.proposal_id is null` : filter.status === 'decided' ? sql`and d.proposal_id is not null` : sql``;
  const deal = filter.dealId === undefined ? sql`` : sql`and p.deal_id = ${filter.dealId}`;
  const { rows } = await sql<Row & { total: string }>`select ${columns}, count(*) over () as total
    from proposals p left join proposal_decisions d on d.proposal_id = p.id
    where true ${status} ${deal} order by p.seq desc limit ${page.limit} offset ${page.offset}`.execute(db);
  return { items: rows.map(toProposal), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** Records the decision; false when the proposal already has one. */
export async function insertDecision(db: Kysely<DB>, proposalId: string, d: ProposalDecision): Promise<boolean> {
  const { rows } = await sql`insert into proposal_decisions (proposal_id, outcome, decided_by, decided_by_name, reason, decided_at, result)
    values (${proposalId}::uuid, ${d.outcome}, ${d.decidedBy}, ${d.decidedByName}, ${d.reason}, ${new Date(d.decidedAt)}::timestamptz,
      ${d.result === null || d.result === undefined ? null : JSON.stringify(d.result)}::jsonb)
    on conflict (proposal_id) do nothing returning 1`.execute(db);
  return rows.length === 1;
}

/** Where each of `investorUserIds` stands in the deal (absent: not in its workflow yet). */
export async function journeyPositions(db: Kysely<DB>, dealId: string, investorUserIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await sql<{ investor_user_id: string; current_step_id: string }>`select investor_user_id, current_step_id from journeys
    where deal_id = ${dealId} and investor_user_id = any(${[...investorUserIds]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.investor_user_id, r.current_step_id]));
}

/**
 * The field that holds a commitment in the deal (its payment settings', else the default) and the
 * value each of `investorUserIds` has captured there (investors without a journey are absent).
 */
export async function capturedCommitments(
  db: Kysely<DB>,
  dealId: string,
  investorUserIds: readonly string[],
): Promise<{ key: string; captured: Map<string, string | null> }> {
  const { rows } = await sql<{ key: string; investor_user_id: string | null; amount: string | null }>`
    select ${commitmentKeyOf} as key, j.investor_user_id, j.captured ->> ${commitmentKeyOf} as amount
    from (select ${dealId}::text as deal_id) d
    left join deal_payment_settings ps on ps.deal_id = d.deal_id
    left join journeys j on j.deal_id = d.deal_id and j.investor_user_id = any(${[...investorUserIds]}::text[])`.execute(db);
  const captured = new Map(rows.flatMap((r) => (r.investor_user_id === null ? [] : [[r.investor_user_id, r.amount] as const])));
  return { key: rows[0]!.key, captured };
}

/** The deals in which the investor has a journey, by id. */
export async function dealsOfInvestor(db: Kysely<DB>, investorUserId: string): Promise<string[]> {
  const { rows } = await sql<{ deal_id: string }>`select deal_id from journeys where investor_user_id = ${investorUserId} order by deal_id`.execute(db);
  return rows.map((r) => r.deal_id);
}

/** An API key's name, for showing who proposed or decided (null for a JWT's subject, or a key gone). */
export async function tokenName(db: Kysely<DB>, tokenId: string): Promise<string | null> {
  const { rows } = await sql<{ name: string }>`select name from api_tokens where id::text = ${tokenId}`.execute(db);
  return rows[0]?.name ?? null;
}
