// A deal's payment settings (management API, admin): the step a matched payment moves the investor
// to, the fields that receive the amount and the value date, the captured fields that hold the
// commitment and its currency, and the asset and price per unit booked on completion.
// Contract: unknown deal 404; unknown asset 404; a payment step that is not a step of the deal's
// workflow, or amount/date fields that are not fields of that step, 422; an asset without a price
// (or a price without an asset) 422; a beneficiary name, IBAN or BIC that is not one 400 naming it
// (domain/payee.ts). Replacing or removing the payee's IBAN is held for a second admin: 202 with the
// proposal (docs/reference/approvals.md). GET of a deal without settings answers the defaults. A PUT replaces the whole:
// a member left out takes its default (null for the payee).
import Big from 'big.js';
import { invalid, notFound, unprocessable } from '../domain/errors.ts';
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import { payeeChangeNeedsSecondPerson } from '../domain/four-eyes.ts';
import { checkPayee } from '../domain/payee.ts';
import { findAsset } from '../store/assets.ts';
import { findDeal } from '../store/deals.ts';
import { findPaymentSettings, type PaymentSettings, upsertPaymentSettings } from '../store/payment-settings.ts';
import type { Deps } from './deps.ts';
import { defaultSettings } from './payment-decisions.ts';
import { type Answer, type WriteRequest, writeOutcome } from './pipeline.ts';
import { propose } from './proposals.ts';
import { loadWorkflow } from './workflows.ts';

export interface PaymentSettingsInput {
  paymentStepId: string | null;
  amountFieldKey?: string | null | undefined;
  dateFieldKey?: string | null | undefined;
  commitmentFieldKey?: string | undefined;
  currencyFieldKey?: string | null | undefined;
  assetId?: number | null | undefined;
  pricePerUnit?: string | null | undefined;
  unitDecimals?: number | undefined;
  beneficiaryName?: string | null | undefined;
  iban?: string | null | undefined;
  bic?: string | null | undefined;
}

/**
 * PUT: the settings applied (201 created, 200 replaced), or, when the payee's IBAN set is replaced
 * or removed, held for a second admin (202 with the proposal, docs/reference/approvals.md): the
 * settings checked as for applying, nothing changed.
 */
export function putPaymentSettings(deps: Deps, request: WriteRequest, dealId: string, input: PaymentSettingsInput): Promise<Answer> {
  return writeOutcome(deps, request, async (tx) => {
    const settings = await checkPaymentSettings(tx, dealId, input);
    const current = (await findPaymentSettings(tx.db, [dealId])).get(dealId);
    if (payeeChangeNeedsSecondPerson(current?.iban ?? null, settings.iban)) {
      const basis = { iban: current?.iban ?? null, updatedAt: current?.updatedAt ?? null };
      return { status: 202, value: await propose(tx, request.principal, { action: 'payee-change', dealId, input: { ...input }, basis }) };
    }
    const { settings: stored, created } = await upsertPaymentSettings(tx.db, settings, tx.clock());
    return { status: created ? 201 : 200, value: stored };
  });
}

/** The settings applied as given (an approved payee change: approvals.ts), in the caller's transaction. */
export async function applyPaymentSettings(tx: Deps, dealId: string, input: PaymentSettingsInput) {
  return upsertPaymentSettings(tx.db, await checkPaymentSettings(tx, dealId, input), tx.clock());
}

/** The settings a PUT would store, every rule checked (400, 404, 422 as the contract says); nothing written. */
async function checkPaymentSettings(deps: Deps, dealId: string, input: PaymentSettingsInput): Promise<Omit<PaymentSettings, 'updatedAt'>> {
  const { payee, errors } = checkPayee({ beneficiaryName: input.beneficiaryName ?? null, iban: input.iban ?? null, bic: input.bic ?? null });
  if (errors.length > 0) throw invalid(errors, `The payee is not valid: ${errors.map((e) => `${e.field} ${e.detail}`).join('; ')}`);
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  const settings: Omit<PaymentSettings, 'updatedAt'> = {
    dealId,
    paymentStepId: input.paymentStepId,
    amountFieldKey: input.amountFieldKey ?? null,
    dateFieldKey: input.dateFieldKey ?? null,
    commitmentFieldKey: input.commitmentFieldKey ?? DEFAULT_COMMITMENT_FIELD_KEY,
    currencyFieldKey: input.currencyFieldKey === undefined ? DEFAULT_CURRENCY_FIELD_KEY : input.currencyFieldKey,
    assetId: input.assetId ?? null,
    pricePerUnit: input.pricePerUnit == null ? null : new Big(input.pricePerUnit).toFixed(),
    unitDecimals: input.unitDecimals ?? 0,
    ...payee,
  };
  if (settings.paymentStepId !== null) {
    const step = (await loadWorkflow(deps, dealId))?.workflow.steps.find((s) => s.id === settings.paymentStepId);
    if (!step)
      throw unprocessable(`"${settings.paymentStepId}" is not a step of deal ${dealId}'s workflow`, {
        errors: [{ in: 'body', field: 'paymentStepId', detail: 'is not a step of the deal' }],
      });
    for (const field of ['amountFieldKey', 'dateFieldKey'] as const) {
      const key = settings[field];
      if (key !== null && !step.stepFields.some((f) => f.fieldKey === key)) {
        throw unprocessable(`"${key}" is not a field of step "${step.id}"`, { errors: [{ in: 'body', field, detail: `is not a field of step "${step.id}"` }] });
      }
    }
  }
  if ((settings.assetId === null) !== (settings.pricePerUnit === null)) {
    throw unprocessable('assetId and pricePerUnit go together: both to book on completion, neither not to');
  }
  if (settings.pricePerUnit !== null && new Big(settings.pricePerUnit).lte(0)) {
    throw unprocessable('pricePerUnit must be positive', { errors: [{ in: 'body', field: 'pricePerUnit', detail: 'must be positive' }] });
  }
  if (settings.assetId !== null && !(await findAsset(deps.db, settings.assetId))) throw notFound('asset', String(settings.assetId));
  return settings;
}

export async function getPaymentSettings(deps: Deps, dealId: string): Promise<PaymentSettings> {
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  return (await findPaymentSettings(deps.db, [dealId])).get(dealId) ?? defaultSettings(dealId);
}
