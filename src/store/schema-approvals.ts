// Row types of four-eyes approvals, as schema.ts's: the rows as the drivers return them.
import type { ColumnType, Generated } from 'kysely';

/** Migration 0046: a deal's four-eyes rules; the newest row of a deal and action counts. */
export interface FourEyesRulesTable {
  /** bigint identity, read as text. */
  seq: Generated<string>;
  deal_id: string;
  action: string;
  enabled: boolean;
  min_investors: number | null;
  /** Migration 0054: numeric, read as text. */
  min_amount: ColumnType<string | null, string | null | undefined, never>;
  created_by: string;
  created_at: Date;
}

/** Migration 0046: a write held for a second person, with the input and the basis it was checked against. */
export interface ProposalsTable {
  id: string;
  seq: Generated<string>;
  action: string;
  deal_id: string;
  input: ColumnType<unknown, string, never>;
  basis: ColumnType<unknown, string, never>;
  proposed_by: string;
  proposed_by_name: string | null;
  proposed_at: Date;
}

/** Migration 0046: a proposal's one decision. */
export interface ProposalDecisionsTable {
  proposal_id: string;
  outcome: string;
  decided_by: string;
  decided_by_name: string | null;
  reason: string | null;
  decided_at: Date;
  result: ColumnType<unknown, string | null, never>;
}

/** The tables of migration 0046, as members of schema.ts's DB. */
export interface ApprovalTables {
  four_eyes_rules: FourEyesRulesTable;
  proposals: ProposalsTable;
  proposal_decisions: ProposalDecisionsTable;
}
