// The portal's shapes, generated from openapi.json (npm run client:types) into
// packages/client/src/openapi.ts: never restated by hand.
import type { components, operations } from '../../../../packages/client/src/openapi.ts';

type Schemas = components['schemas'];
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body an operation takes. */
export type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The JSON an operation answers with on success (200, else 201). */
export type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[Op]['responses'] extends { 201: infer R }
    ? Json<R>
    : never;

export type Session = Schemas['PortalSession'];
export type InvestorLanguage = Schemas['InvestorLanguage'];
export type RegistrationOptions = Ok<'createPasskeyRegistrationOptions'>;
export type AuthenticationOptions = Ok<'createSignInOptions'>;
export type InvestorDeal = Schemas['InvestorDeal'];
export type InvestorDeals = Ok<'listInvestorDeals'>;
export type NextStep = InvestorDeal['nextSteps'][number];
export type PortalField = NextStep['stepFields'][number];
export type FieldKind = PortalField['kind'];
export type JumpBody = Body<'jumpToStep'>;
export type EditRequestBody = Body<'createEditRequest'>;
export type EditRequestType = EditRequestBody['type'];
export type DealDocument = Ok<'listDealDocuments'>[number];
export type KycStatus = Ok<'getKycStatus'>;
export type KycDocument = KycStatus['documents'][number];
export type Agreement = Schemas['SubscriptionAgreement'];
export type SigningOptions = Schemas['SigningOptions'];
