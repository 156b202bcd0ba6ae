// GET /deals/workflow/step/{stepId}/investor-form-implementation (getInvestorFormImplementation): the investor's form
// implementation for a step that names a form, created by the first request and the same ever after.
//
// 404 an investor token asking for another investor's, or for a step of a deal they are not in, as for an unknown one; 400 an admin token without investorUserId,
// or a dealId that is not the step's deal; 404 unknown (or retired) step, a step without a form,
// unknown investor.
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { canActFor, type Principal } from '../domain/principal.ts';
import * as forms from '../store/form-implementations.ts';
import { findInvestor } from '../store/investors.ts';
import { dealVisibleTo } from './investor-visibility.ts';
import type { Deps } from './deps.ts';

export async function getFormImplementation(
  deps: Deps,
  principal: Principal,
  stepId: string,
  query: { dealId?: string | undefined; investorUserId?: string | undefined },
) {
  const investorUserId = query.investorUserId ?? principal.investorUserId;
  if (investorUserId === undefined) {
    throw invalid([{ in: 'query', field: 'investorUserId', detail: 'is required with an admin token' }]);
  }
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const step = await forms.findStepForm(deps.db, stepId);
  // Investors see only deals they are in (their workflow, and so their steps and forms); a step
  // elsewhere is answered as an unknown one. Staff see all.
  if (!step || !(await dealVisibleTo(deps.db, principal, step.dealId))) throw notFound('step', stepId);
  if (query.dealId !== undefined && query.dealId !== step.dealId) {
    throw invalid([{ in: 'query', field: 'dealId', detail: `step "${stepId}" belongs to another deal` }]);
  }
  if (step.formId === null) throw new AppError('not-found', `Step "${stepId}" has no form`);
  if (!(await findInvestor(deps.db, investorUserId))) throw notFound('investor', investorUserId);
  return forms.getOrCreateFormImplementation(deps.db, { id: deps.newId(), stepId, investorUserId, formId: step.formId }, deps.clock());
}
