// A check of an investor's identity run by an external KYC provider
// (docs/reference/kyc-provider-contract.md): started by staff, decided once by the provider's
// signed result. Pure rules: what a result does to a check and to the investor's KYC level.

/** What a provider decides: clear (the level it carries is reached), refer (a person must look), failed, expired (never completed). */
export const kycOutcomes = ['clear', 'refer', 'failed', 'expired'] as const;
export type KycOutcome = (typeof kycOutcomes)[number];
/** A check's state: started until its one result arrives, then that result's outcome, for good. */
export const kycCheckStates = ['started', ...kycOutcomes] as const;
export type KycCheckState = (typeof kycCheckStates)[number];

export const isKycOutcome = (value: unknown): value is KycOutcome => (kycOutcomes as readonly unknown[]).includes(value);

/** The highest level a check may ask for: the same bound as a workflow's `kyc-level` requirement. */
export const MAX_KYC_LEVEL = 100;

export interface KycResult {
  outcome: KycOutcome;
  /** The level reached; only a clear result carries one. */
  level: number | null;
}

export interface RecordedResult extends KycResult {
  webhookId: string;
}

/**
 * What an incoming result does to a check that already has `recorded` (or none):
 * - record: the first result; the check is decided by it.
 * - duplicate: the same outcome and level again (a redelivery, with its webhook-id or a new one): nothing changes.
 * - replayed-id: a webhook-id already used for another result: refused, nothing changes.
 * - contradicts: another outcome or level for a decided check: refused, the first result stands.
 */
export type ResultVerdict = 'record' | 'duplicate' | 'replayed-id' | 'contradicts';

export function judgeResult(recorded: RecordedResult | undefined, incoming: RecordedResult, idUsedElsewhere: boolean): ResultVerdict {
  const same = recorded !== undefined && recorded.outcome === incoming.outcome && recorded.level === incoming.level;
  if (recorded?.webhookId === incoming.webhookId) return same ? 'duplicate' : 'replayed-id';
  if (idUsedElsewhere) return 'replayed-id';
  if (recorded === undefined) return 'record';
  return same ? 'duplicate' : 'contradicts';
}

/** The investor's KYC level after a result: a clear result raises it to the level it carries, never lowers it; any other outcome leaves it. */
export function levelAfter(current: number | null, result: KycResult): number | null {
  if (result.outcome !== 'clear' || result.level === null) return current;
  return current === null ? result.level : Math.max(current, result.level);
}
