// A deal's four-eyes rules (docs/reference/approvals.md): whether its payment decisions wait for a
// second person. The payee's IBAN change always does, whatever the rules say (payment-settings.ts).
// A rule is replaced by a newer row, never changed; the newest counts.
// Contract: unknown deal 404; PUT admin, GET viewer.
import { notFound } from '../domain/errors.ts';
import type { FourEyesRuleAction } from '../domain/four-eyes.ts';
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
  setBy: string | null;
  setAt: string | null;
}

async function rulesOf(db: Deps['db'], dealId: string): Promise<FourEyesRules> {
  if (!(await findDeal(db, dealId))) throw notFound('deal', dealId);
  const rule = (await currentRules(db, [dealId], 'payment-decision')).get(dealId);
  return { dealId, paymentDecisions: rule?.enabled ?? false, payeeChange: true, setBy: rule?.createdBy ?? null, setAt: rule?.createdAt ?? null };
}

export const getFourEyesRules = (deps: Deps, dealId: string): Promise<FourEyesRules> => rulesOf(forReading(deps).db, dealId);

export function setFourEyesRules(deps: Deps, request: WriteRequest, dealId: string, input: { paymentDecisions: boolean }): Promise<Answer> {
  return write(deps, request, 200, async (tx) => {
    const current = await rulesOf(tx.db, dealId);
    if (current.paymentDecisions !== input.paymentDecisions || current.setAt === null) {
      await insertRule(tx.db, { dealId, action: 'payment-decision', enabled: input.paymentDecisions, by: actorOf(request.principal), at: tx.clock() });
    }
    return rulesOf(tx.db, dealId);
  });
}

/** The first of `dealIds` whose rule puts `action` under four-eyes, or undefined when none does. */
export async function fourEyesDeal(tx: Deps, dealIds: readonly (string | null)[], action: FourEyesRuleAction): Promise<string | undefined> {
  const ids = [...new Set(dealIds.filter((d): d is string => d !== null))].sort();
  const rules = await currentRules(tx.db, ids, action);
  return ids.find((id) => rules.get(id)?.enabled);
}
