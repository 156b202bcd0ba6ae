// The portal's shapes. Bodies of existing operations come from the generated
// packages/client/src/openapi.ts; the portal's own resources are written here as the contract
// states them until the service documents them.
import type { operations } from '../../../../packages/client/src/openapi.ts';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body an operation takes. */
export type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The JSON an operation answers with on success (200, else 201). */
export type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R } ? Json<R> : operations[Op]['responses'] extends { 201: infer R } ? Json<R> : never;

export type JumpBody = Body<'jumpToStep'>;
export type EditRequestBody = Body<'createEditRequest'>;
export type EditRequestType = EditRequestBody['type'];

export interface Session {
  investorUserId: string;
  name: string;
  csrfToken: string;
  expiresAt: string;
}

export interface RegistrationOptions {
  investor: { investorUserId: string; name: string };
  options: PublicKeyCredentialCreationOptionsJSON;
}

export interface AuthenticationOptions {
  options: PublicKeyCredentialRequestOptionsJSON;
}

export type FieldKind = 'text' | 'amount' | 'currency' | 'date' | 'email' | 'choice';
export type StepType = 'default' | 'complete' | 'withdrawn';

export interface PortalField {
  fieldKey: string;
  label?: string | null;
  kind?: FieldKind | null;
  required: boolean;
  options?: string[] | null;
}

export interface NextStep {
  id: string;
  label: string;
  type: StepType;
  investorMay: boolean;
  stepFields: PortalField[];
}

export interface InvestorDeal {
  dealId: string;
  dealName: string;
  workflowLabel: string;
  investorEngagementEnabled: boolean;
  currentStep: { id: string; label: string; type: StepType } | null;
  pastSteps: { stepId: string; label: string; enteredAt: string }[];
  nextSteps: NextStep[];
  commitment: null | { eventId: string; amount: string | null; currency: string | null; fieldKey?: string };
  commitmentHistory: { amount: string | null; currency: string | null; at: string; changedBy: 'investor' | 'staff'; revision: number }[];
  payment: null | {
    reference: string;
    currency: string | null;
    amountDue: string | null;
    received: string;
    remaining: string | null;
    beneficiaryName: string | null;
    iban: string | null;
    bic: string | null;
    epcQr: string | null;
  };
  editRequests: {
    requestId: string;
    type: EditRequestType;
    status: 'pending' | 'approved' | 'rejected';
    newAmount: string | null;
    reason: string;
    createdAt: string;
    decidedAt: string | null;
    decisionNote: string | null;
  }[];
}
