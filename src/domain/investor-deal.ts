// What an investor sees of one of their deals (the InvestorDeal resource): where they stand, where
// they have been, where they may go next (and whether they may go there themselves), what they
// committed and how that changed, how to pay and what has arrived, and their edit requests. Pure:
// the store reads the facts in one statement, this puts them together.
import Big from 'big.js';
import { remainingOf } from './commitment.ts';
import { minorUnitsOf } from './currency.ts';
import { epcQrPayload } from './epc-qr.ts';
import { type AgreementState, requiresSignedAgreement, type StepField, type StepType, type Workflow } from './workflow.ts';

export interface InvestorDealFacts {
  dealId: string;
  dealName: string;
  dealCurrency: string | null;
  currentStepId: string;
  paymentReference: string;
  /** The structure of the version the journey moves on. */
  workflow: Workflow | null;
  commitmentFieldKey: string;
  currencyFieldKey: string | null;
  beneficiaryName: string | null;
  iban: string | null;
  bic: string | null;
  /** When the deal's bank details last changed after being set first (ISO), or null. */
  payeeChangedAt: string | null;
  /** Money allocated to the journey by reconciliation, signed, summed (decimal text). */
  received: string;
  /** Every event, oldest first, with the step it entered (label and type as the step has them now). */
  events: { eventId: string; stepId: string; label: string | null; type: string | null; at: string; data: Record<string, string> }[];
  /** Revisions of events that hold the commitment field, in the order they were set. */
  revisions: { eventId: string; seq: number; revision: number; data: Record<string, string>; at: string; byInvestor: boolean }[];
  editRequests: {
    requestId: string;
    eventId: string;
    type: string;
    status: string;
    newData: Record<string, string> | null;
    reason: string;
    createdAt: string;
    decidedAt: string | null;
    decisionNote: string | null;
  }[];
  /** Where the investor's subscription agreement stands; read only when a step of the workflow requires it signed. */
  agreement?: AgreementState;
}

/** What a next step waits for before the investor's move there is accepted, and who is to act. */
export type StepWait = 'investor-signature' | 'countersignature';
export const stepWaits: readonly StepWait[] = ['investor-signature', 'countersignature'];

export interface InvestorDeal {
  dealId: string;
  dealName: string;
  workflowLabel: string;
  investorEngagementEnabled: boolean;
  currentStep: { id: string; label: string; type: StepType; enteredAt: string } | null;
  pastSteps: { stepId: string; label: string; enteredAt: string }[];
  nextSteps: {
    id: string;
    label: string;
    type: StepType;
    investorMay: boolean;
    waitingFor: StepWait[];
    stepFields: Pick<StepField, 'fieldKey' | 'label' | 'kind' | 'required' | 'options'>[];
  }[];
  commitment: { eventId: string; fieldKey: string; amount: string; currency: string | null } | null;
  commitmentHistory: { eventId: string; amount: string; currency: string | null; at: string; changedBy: 'investor' | 'staff'; revision: number }[];
  payment: {
    reference: string;
    currency: string | null;
    amountDue: string;
    received: string;
    remaining: string;
    beneficiaryName: string | null;
    iban: string | null;
    bic: string | null;
    /** When the bank details last changed after being set first: the portal warns the investor. */
    payeeChangedAt: string | null;
    epcQr: string | null;
  } | null;
  editRequests: {
    requestId: string;
    eventId: string;
    type: string;
    status: string;
    newAmount: string | null;
    reason: string;
    createdAt: string;
    decidedAt: string | null;
    decisionNote: string | null;
  }[];
}

const isAmount = (value: string | undefined): value is string => value !== undefined && /^\d+(\.\d+)?$/.test(value.trim());

/** Money in its currency's minor units when it has them exactly, else as it is. */
export function money(value: Big, currency: string | null): string {
  const units = currency === null ? null : minorUnitsOf(currency);
  if (units === null) return value.toFixed();
  return value.round(units, Big.roundDown).eq(value) ? value.toFixed(units) : value.toFixed();
}

export function investorDealOf(facts: InvestorDealFacts): InvestorDeal {
  const workflow = facts.workflow;
  const engagement = workflow?.investorEngagementEnabled === true;
  const stepsById = new Map((workflow?.steps ?? []).map((s) => [s.id, s]));

  // One stay per change of step: a migration's event keeps the step and starts no new stay.
  const stays: { stepId: string; label: string; type: StepType; enteredAt: string }[] = [];
  for (const event of facts.events) {
    if (stays.at(-1)?.stepId === event.stepId) continue;
    const step = stepsById.get(event.stepId);
    stays.push({
      stepId: event.stepId,
      label: step?.label ?? event.label ?? event.stepId,
      type: (step?.type ?? event.type ?? 'default') as StepType,
      enteredAt: event.at,
    });
  }
  const current = stays.at(-1);
  const nextSteps = (workflow?.links ?? [])
    .filter((l) => l.fromStepId === facts.currentStepId)
    .flatMap((l) => {
      const step = stepsById.get(l.toStepId);
      return step
        ? [
            {
              id: step.id,
              label: step.label,
              type: step.type,
              investorMay: engagement && l.investorMay,
              waitingFor: requiresSignedAgreement(step) ? agreementWaits(facts.agreement ?? 'to-sign') : [],
              stepFields: step.stepFields.map(({ fieldKey, label, kind, required, options }) => ({ fieldKey, label, kind, required, options })),
            },
          ]
        : [];
    });

  // The commitment: the latest event that captured the commitment field, in the latest captured currency.
  const key = facts.commitmentFieldKey;
  const carrying = [...facts.events].reverse().find((e) => e.data[key] !== undefined);
  const currencyKey = facts.currencyFieldKey;
  const capturedCurrency = currencyKey === null ? undefined : [...facts.events].reverse().find((e) => e.data[currencyKey] !== undefined)?.data[currencyKey];
  const currency = capturedCurrency ?? facts.dealCurrency;
  const commitment =
    carrying && isAmount(carrying.data[key]) ? { eventId: carrying.eventId, fieldKey: key, amount: carrying.data[key]!.trim(), currency } : null;

  // Its history: each revision that set a new value of the field (the first one of each event too).
  const history: InvestorDeal['commitmentHistory'] = [];
  const lastOf = new Map<string, string>();
  for (const r of facts.revisions) {
    const amount = r.data[key];
    if (amount === undefined || lastOf.get(r.eventId) === amount) continue;
    lastOf.set(r.eventId, amount);
    const at = currencyKey === null ? undefined : r.data[currencyKey];
    history.push({ eventId: r.eventId, amount, currency: at ?? currency, at: r.at, changedBy: r.byInvestor ? 'investor' : 'staff', revision: r.revision });
  }

  let payment: InvestorDeal['payment'] = null;
  if (commitment) {
    const due = new Big(commitment.amount);
    const received = new Big(facts.received);
    const remaining = remainingOf(commitment.amount, facts.received) ?? due;
    payment = {
      reference: facts.paymentReference,
      currency,
      amountDue: money(due, currency),
      received: money(received, currency),
      remaining: money(remaining, currency),
      beneficiaryName: facts.beneficiaryName,
      iban: facts.iban,
      bic: facts.bic,
      payeeChangedAt: facts.payeeChangedAt,
      epcQr: epcQrPayload({
        beneficiaryName: facts.beneficiaryName,
        iban: facts.iban,
        bic: facts.bic,
        currency,
        amount: remaining.toFixed(),
        reference: facts.paymentReference,
      }),
    };
  }

  return {
    dealId: facts.dealId,
    dealName: facts.dealName,
    workflowLabel: workflow?.label ?? '',
    investorEngagementEnabled: engagement,
    currentStep: current ? { id: current.stepId, label: current.label, type: current.type, enteredAt: current.enteredAt } : null,
    pastSteps: stays.slice(0, -1).map(({ stepId, label, enteredAt }) => ({ stepId, label, enteredAt })),
    nextSteps,
    commitment,
    commitmentHistory: history,
    payment,
    editRequests: facts.editRequests.map((q) => ({
      requestId: q.requestId,
      eventId: q.eventId,
      type: q.type,
      status: q.status,
      newAmount: q.newData?.[key] ?? null,
      reason: q.reason,
      createdAt: q.createdAt,
      decidedAt: q.decidedAt,
      decisionNote: q.decisionNote,
    })),
  };
}

/** A step that requires the signed agreement waits for the investor's signature, then the countersignature. */
const agreementWaits = (state: AgreementState): StepWait[] =>
  state === 'countersigned' ? [] : state === 'signed' ? ['countersignature'] : ['investor-signature', 'countersignature'];
