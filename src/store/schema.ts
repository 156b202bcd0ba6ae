// Row types of every table, as the drivers return them (see database.ts: numeric and int8 come back
// as strings, timestamptz as Date). Row ↔ domain mapping happens in the store module of each table.
import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface ApiTokensTable {
  id: string;
  name: string;
  role: string;
  investor_user_id: string | null;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface DealsTable {
  id: string;
  name: string;
  description: string | null;
  currency: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface InvestorsTable {
  id: string;
  remote_id: string;
  data_source: string;
  team_user_id: string | null;
  kyc_check_level: number | null;
  /** The investor's contact object as in the interface (endpoint 7), whole. */
  contact: ColumnType<unknown, string, string>;
  full_name: string;
  email: string | null;
  status: string;
  created_at: Date;
  updated_at: Date;
}

export interface DB {
  api_tokens: ApiTokensTable;
  deals: DealsTable;
  investors: InvestorsTable;
}

export type { Generated };
