// A deal's four-eyes rules (docs/reference/approvals.md): whether its payment decisions wait for a
// second person, from how many investors or what sum of commitments its bulk moves do, whether
// replacing its workflow and migrating its journeys do, and whether erasing one of its investors does. The payee's IBAN change always does, whatever the rules say (payment-settings.ts).
// A rule is replaced by a newer row, never changed; the newest counts.
// Contract: unknown deal 404; PUT admin, GET viewer.
import Big from 'big.js';
import { invalid, notFound } from '../domain/errors.ts';
import type { BulkMoveRule, FourEyesRuleAction } from '../domain/four-eyes.ts';
import { actorOf } from '../domain/principal.ts';
import { currentRules, insertRule } from '../store/approvals.ts';
import { findDeal } from '../store/deals.ts';
import type { Deps } from './deps.ts';
import { type Answer, type WriteRequest, write } from './pipeline.ts';
import { forReading } from './reads.ts';

export interface FourEyesRules {
  dealId: string;
  /** Payment decisions (assign, split, dismiss) on lines of the deal wait for a second person. */
  paymentDecisions: boolean;
  /** Always true: a change of the payee's IBAN waits for a second person. */
  payeeChange: true;
  /** Bulk moves of at least this many investors wait for a second person (null: none do). */
  bulkMovesFrom: number | null;
  /** Bulk moves whose investors' commitments add up to at least this amount (decimal, the deal's currency) wait for a second person (null: none do by amount). */
  bulkMovesFromAmount: string | null;
  /** Replacing the workflow (PUT, once it has one) and migrating journeys wait for a second admin. */
  workflowChanges: boolean;
  /** Erasing the personal data of an investor with a journey in the deal waits for a second admin. */
  erasure: boolean;
  setBy: string | null;
  setAt: string | null;
}

async function rulesOf(db: Deps['db'], dealId: string): Promise<FourEyesRules> {
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const rule = (await currentRules(db, [dealId], 'payment-decision')).get(dealId);
  const bulk = (await currentRules(db, [dealId], 'bulk-move')).get(dealId);
  const workflow = (await currentRules(db, [dealId], 'workflow-change')).get(dealId);
  const erasure = (await currentRules(db, [dealId], 'erasure')).get(dealId);
  const newest = [rule, bulk, workflow, erasure].filter((r) => r !== undefined).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0];
  return {
    dealId,
    paymentDecisions: rule?.enabled ?? false,
    payeeChange: true,
    bulkMovesFrom: bulk?.enabled ? bulk.minInvestors : null,
    bulkMovesFromAmount: bulk?.enabled ? bulk.minAmount : null,
    workflowChanges: workflow?.enabled ?? false,
    erasure: erasure?.enabled ?? false,
    setBy: newest?.createdBy ?? null,
    setAt: newest?.createdAt ?? null,
  };
}

export const getFourEyesRules = (deps: Deps, dealId: string): Promise<FourEyesRules> => rulesOf(forReading(deps).db, dealId);

/** PUT: the whole of the rules (`bulkMovesFrom` and `bulkMovesFromAmount` left out: null, `workflowChanges` and `erasure`: false); a rule that changes gets a new row. */
export function setFourEyesRules(
  deps: Deps,
  request: WriteRequest,
  dealId: string,
  input: {
    paymentDecisions: boolean;
    bulkMovesFrom?: number | null | undefined;
    bulkMovesFromAmount?: string | null | undefined;
    workflowChanges?: boolean | undefined;
    erasure?: boolean | undefined;
  },
): Promise<Answer> {
  if (input.bulkMovesFromAmount && new Big(input.bulkMovesFromAmount).lte(0)) {
    throw invalid([{ in: 'body', field: 'bulkMovesFromAmount', detail: 'must be greater than 0 (null: no bulk move waits by amount)' }]);
  }
  return write(deps, request, 200, async (tx) => {
    const current = await rulesOf(tx.db, dealId);
    const by = actorOf(request.principal);
    if (current.paymentDecisions !== input.paymentDecisions || current.setAt === null) {
      await insertRule(tx.db, { dealId, action: 'payment-decision', enabled: input.paymentDecisions, by, at: tx.clock() });
    }
    const from = input.bulkMovesFrom ?? null;
    const fromAmount = input.bulkMovesFromAmount === undefined || input.bulkMovesFromAmount === null ? null : new Big(input.bulkMovesFromAmount);
    const sameAmount =
      fromAmount === null ? current.bulkMovesFromAmount === null : current.bulkMovesFromAmount !== null && fromAmount.eq(current.bulkMovesFromAmount);
    if (current.bulkMovesFrom !== from || !sameAmount) {
      const enabled = from !== null || fromAmount !== null;
      await insertRule(tx.db, { dealId, action: 'bulk-move', enabled, minInvestors: from, minAmount: fromAmount?.toString() ?? null, by, at: tx.clock() });
    }
    const workflowChanges = input.workflowChanges ?? false;
    if (current.workflowChanges !== workflowChanges)
      await insertRule(tx.db, { dealId, action: 'workflow-change', enabled: workflowChanges, by, at: tx.clock() });
    const erasure = input.erasure ?? false;
    if (current.erasure !== erasure) await insertRule(tx.db, { dealId, action: 'erasure', enabled: erasure, by, at: tx.clock() });
    return rulesOf(tx.db, dealId);
  });
}

/** From how many investors, or what sum of commitments, the deal's bulk moves wait for a second person. */
export async function bulkMoveRule(deps: Deps, dealId: string): Promise<BulkMoveRule> {
  const rule = (await currentRules(deps.db, [dealId], 'bulk-move')).get(dealId);
  return rule?.enabled ? { fromInvestors: rule.minInvestors, fromAmount: rule.minAmount } : { fromInvestors: null, fromAmount: null };
}

/** The first of `dealIds` whose rule puts `action` under four-eyes, or undefined when none does. */
export async function fourEyesDeal(tx: Deps, dealIds: readonly (string | null)[], action: FourEyesRuleAction): Promise<string | undefined> {
  const ids = [...new Set(dealIds.filter((d): d is string => d !== null))].sort();
  const rules = await currentRules(tx.db, ids, action);
  return ids.find((id) => rules.get(id)?.enabled);
}
