// A deal's payment settings (management API, admin): the step a matched payment moves the investor
// to, the fields that receive the amount and the value date, the captured fields that hold the
// commitment and its currency, and the asset and price per unit booked on completion.
// Contract: unknown deal 404; unknown asset 404; a payment step that is not a step of the deal's
// workflow, or amount/date fields that are not fields of that step, 422; an asset without a price
// (or a price without an asset) 422; a beneficiary name, IBAN or BIC that is not one 400 naming it
// (domain/payee.ts). GET of a deal without settings answers the defaults. A PUT replaces the whole:
// a member left out takes its default (null for the payee).
import Big from 'big.js';
import { invalid, notFound, unprocessable } from '../domain/errors.ts';
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import { checkPayee } from '../domain/payee.ts';
import { findAsset } from '../store/assets.ts';
import { findDeal } from '../store/deals.ts';
import { findPaymentSettings, type PaymentSettings, upsertPaymentSettings } from '../store/payment-settings.ts';
import type { Deps } from './deps.ts';
import { defaultSettings } from './payment-decisions.ts';
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

export async function putPaymentSettings(deps: Deps, dealId: string, input: PaymentSettingsInput) {
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
  return upsertPaymentSettings(deps.db, settings, deps.clock());
}

export async function getPaymentSettings(deps: Deps, dealId: string): Promise<PaymentSettings> {
  if (!(await findDeal(deps.db, dealId))) throw notFound('deal', dealId);
  return (await findPaymentSettings(deps.db, [dealId])).get(dealId) ?? defaultSettings(dealId);
}
