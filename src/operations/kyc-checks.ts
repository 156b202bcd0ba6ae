// Checks of investors' identity by an external KYC provider (docs/reference/kyc-provider-contract.md):
// staff start one (the provider is asked first, then the check is recorded with its audit entry),
// anyone who may see the investor lists them, and the provider's signed result decides it: a clear
// result raises the investor's KYC level in the transaction that records it, with its audit entry.
// The move path is untouched: it reads the investor's KYC level as it always has.
import type { KycProviderConfig } from '../config.ts';
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import { AppError, conflict, forbidden, invalid, notFound, unprocessable } from '../domain/errors.ts';
import { isKycOutcome, judgeResult, type KycCheckState, type KycOutcome, levelAfter } from '../domain/kyc-check.ts';
import { actorOf, canActFor, isStaff, type Principal } from '../domain/principal.ts';
import { type SignedMessage, verifySignedMessage } from '../domain/signed-webhook.ts';
import { appendToChain } from '../store/audit.ts';
import { findDeal } from '../store/deals.ts';
import { isErased } from '../store/erasure.ts';
import { findInvestor } from '../store/investors.ts';
import * as store from '../store/kyc-checks.ts';
import type { Deps } from './deps.ts';
import type { KycProvider } from './kyc-provider.ts';
import { recordKycCheckDecided } from './outbox-events.ts';
import { type Answer, inOneTransaction, type WriteRequest, write } from './pipeline.ts';
import { forReading } from './reads.ts';

export interface KycCheck extends Omit<store.KycCheckRow, 'investorId' | 'result'> {
  investorUserId: string;
  state: KycCheckState;
  result: { outcome: KycOutcome; level: number | null; decidedAt: string; receivedAt: string } | null;
}

const toCheck = ({ investorId, result, ...row }: store.KycCheckRow): KycCheck => ({
  ...row,
  investorUserId: investorId,
  state: (result?.outcome as KycOutcome | undefined) ?? 'started',
  result: result ? { outcome: result.outcome as KycOutcome, level: result.level, decidedAt: result.decidedAt, receivedAt: result.receivedAt } : null,
});

export interface StartInput {
  level: number;
  dealId?: string | undefined;
}

/**
 * Asks the provider to check the investor for `level`, then records the check (state `started`)
 * with its audit entry in one transaction. The provider is asked outside any transaction: a slow
 * provider holds no database connection. A provider that refuses or does not answer: 422, nothing recorded.
 */
export async function startKycCheck(
  deps: Deps,
  kyc: { provider: KycProvider | undefined; callbackUrl: string },
  request: WriteRequest,
  investorUserId: string,
  input: StartInput,
): Promise<Answer> {
  const { principal } = request;
  if (!isStaff(principal)) throw forbidden('Only staff start a KYC check');
  const investor = await findInvestor(deps.db, investorUserId);
  if (!investor) throw notFound('investor', investorUserId);
  if (await isErased(deps.db, investorUserId)) throw conflict('The investor was erased: nothing more is recorded of them');
  if (input.dealId !== undefined && !(await findDeal(deps.db, input.dealId))) throw notFound('deal', input.dealId);
  if (!kyc.provider) throw unprocessable('No KYC provider is configured (KYC_PROVIDER): a check cannot be started');
  const { provider: asked } = kyc;
  const provider = asked.name;
  const id = deps.newId();
  let started: Awaited<ReturnType<KycProvider['startCheck']>> | undefined;
  // Asked before the transaction and outside it, once the Idempotency-Key (if any) is claimed: a
  // repeat answered from the key does not ask the provider for a second check.
  const ask = async () => {
    started = await asked.startCheck({
      reference: id,
      level: input.level,
      investor: {
        id: investor.id,
        fullName: investor.contact.fullName,
        email: investor.contact.contact.email,
        dateOfBirth: investor.contact.contact.dateOfBirth,
      },
      dealId: input.dealId ?? null,
      callbackUrl: kyc.callbackUrl,
    });
  };
  const record = async (tx: Deps) => {
    if (!started) throw new Error('the provider was not asked before the check is recorded');
    const at = tx.clock();
    const check = await store.insertKycCheck(tx.db, {
      id,
      investorId: investorUserId,
      dealId: input.dealId ?? null,
      level: input.level,
      provider,
      providerCheckId: started.providerCheckId,
      redirectUrl: started.redirectUrl ?? null,
      startedBy: actorOf(principal),
      startedAt: at,
    });
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'kyc.check-started',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: at.toISOString(),
      change: { checkId: id, investorUserId, dealId: input.dealId ?? null, level: input.level, provider, providerCheckId: started.providerCheckId },
    });
    return toCheck(check);
  };
  return write(deps, request, 201, record, { beforeWork: ask });
}

/** An investor's checks, newest first: staff, or the investor themself (404 for anyone else). */
export async function kycChecksOf(deps: Deps, principal: Principal, investorUserId: string): Promise<{ investorUserId: string; checks: KycCheck[] }> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const { db } = forReading(deps);
  if (!(await findInvestor(db, investorUserId))) throw notFound('investor', investorUserId);
  return { investorUserId, checks: (await store.kycChecksOf(db, investorUserId)).map(toCheck) };
}

/** The provider's result as its webhook's body carries it (the route's schema holds its shape). */
export interface KycResultPayload {
  reference: string;
  checkId: string;
  /** One of kycOutcomes (the route's schema holds it to them; checked again here). */
  outcome: string;
  level?: number | null | undefined;
  decidedAt: string;
}

export interface ReceivedResult {
  checkId: string;
  state: KycCheckState;
  /** True when this delivery repeated a result already recorded: nothing changed. */
  duplicate: boolean;
}

/**
 * A result from the provider's webhook: the signature and its timestamp first (401), then the
 * check it names (404), then the result judged against what the check has (domain/kyc-check.ts):
 * the first one recorded, a repeat answered as the first without a change, a contradiction or a
 * reused webhook-id refused (409). Recording it, raising the level and the audit entry are one transaction.
 */
export async function receiveKycResult(deps: Deps, config: KycProviderConfig | undefined, message: SignedMessage, payload: KycResultPayload) {
  if (!config) throw notFound('KYC provider', 'none is configured');
  const verdict = verifySignedMessage(config.secret, message, Math.floor(deps.clock().getTime() / 1000), config.toleranceSeconds);
  if (!verdict.ok) throw new AppError('unauthenticated', verdict.detail);
  const level = payload.level ?? null;
  const outcome = payload.outcome;
  if (!isKycOutcome(outcome)) throw invalid([{ in: 'body', field: 'outcome', detail: 'must be clear, refer, failed or expired' }]);
  if ((outcome === 'clear') !== (level !== null)) {
    throw invalid([{ in: 'body', field: 'level', detail: 'a clear result carries the level reached; any other outcome carries none' }]);
  }
  return inOneTransaction(async (tx): Promise<ReceivedResult> => {
    await store.lockKycCheck(tx.db, payload.reference);
    const check = await store.findKycCheck(tx.db, payload.reference);
    if (!check || check.provider !== config.name || check.providerCheckId !== payload.checkId) throw notFound('KYC check', payload.reference);
    const incoming = { webhookId: verdict.id, outcome, level };
    const recorded = check.result ? { webhookId: check.result.webhookId, outcome: check.result.outcome as KycOutcome, level: check.result.level } : undefined;
    const judged = judgeResult(recorded, incoming, await store.webhookIdUsedElsewhere(tx.db, verdict.id, check.id));
    if (judged === 'duplicate') return { checkId: check.id, state: recorded!.outcome, duplicate: true };
    if (judged === 'replayed-id') throw conflict(`webhook-id ${JSON.stringify(verdict.id)} was already used for another result; nothing changed`);
    if (judged === 'contradicts') throw conflict(`The check was already decided (${recorded!.outcome}); the first result stands and nothing changed`);
    const at = tx.clock();
    await store.insertKycResult(tx.db, { checkId: check.id, webhookId: verdict.id, outcome, level, decidedAt: new Date(payload.decidedAt), receivedAt: at });
    const investor = await findInvestor(tx.db, check.investorId);
    const before = investor?.kycCheckLevel ?? null;
    const after = levelAfter(before, incoming);
    if (after !== before) await store.setKycLevel(tx.db, check.investorId, after, at);
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'kyc.check-decided',
      principal: `kyc-provider:${config.name}`,
      tokenId: null,
      at: at.toISOString(),
      change: { checkId: check.id, investorUserId: check.investorId, outcome, level, kycCheckLevel: { before, after }, webhookId: verdict.id },
    });
    await recordKycCheckDecided(tx, { checkId: check.id, investorUserId: check.investorId, dealId: check.dealId, outcome, level, kycCheckLevel: after });
    return { checkId: check.id, state: outcome, duplicate: false };
  })(deps);
}
