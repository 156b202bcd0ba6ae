// Row types of checks by an external KYC provider, as schema.ts's: the rows as the drivers return them.
import type { Generated } from 'kysely';

/** Migration 0051: a check as started; never changed. */
export interface KycChecksTable {
  id: string;
  /** bigint identity, read as text. */
  seq: Generated<string>;
  investor_id: string;
  deal_id: string | null;
  level: number;
  provider: string;
  provider_check_id: string;
  redirect_url: string | null;
  started_by: string;
  started_at: Date;
}

/** Migration 0051: a check's one result, as the provider's signed webhook delivered it. */
export interface KycCheckResultsTable {
  check_id: string;
  webhook_id: string;
  outcome: string;
  level: number | null;
  decided_at: Date;
  received_at: Date;
}

export interface KycCheckTables {
  kyc_checks: KycChecksTable;
  kyc_check_results: KycCheckResultsTable;
}
