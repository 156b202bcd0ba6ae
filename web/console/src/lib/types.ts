// The service's shapes, generated from openapi.json (npm run client:types) into
// packages/client/src/openapi.ts: never restated by hand. Closed vocabularies the editor offers are listed
// here once and checked against the generated unions, so a value the service adds fails typecheck.
import type { components, operations } from '../../../../packages/client/src/openapi.ts';

type Schemas = components['schemas'];
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON an operation answers with on success (200, else 201). */
export type Ok<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[Op]['responses'] extends { 201: infer R }
    ? Json<R>
    : never;
/** The JSON body an operation takes. */
export type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The query parameters an operation takes. */
export type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Link = Schemas['Link'];
export type StepField = Schemas['StepField'];
export type FieldKind = StepField['kind'];
export type Step = Schemas['Step'];
export type StepType = Step['type'];
export type Requirement = Step['requirements'][number];
export type RequirementKind = Requirement['kind'];
/** A requirement as a workflow document states it (its kind not yet checked). */
export type RequirementBody = NonNullable<WorkflowDocument['steps'][number]['requirements']>[number];
export type Workflow = Schemas['Workflow'];
export type WorkflowEvent = Schemas['WorkflowEvent'];
export type Journey = Schemas['InvestorJourney'];
export type Revision = Ok<'listEventRevisions'>[number];
export type EditRequest = Schemas['EventEditRequest'];
/** A write held for a second person (four-eyes): a 202's answer, and the Inbox's approvals. */
export type Approval = Schemas['Approval'];
export type ApprovalPage = Ok<'listApprovals'>;
export type DealSummary = Ok<'listConsoleDeals'>[number];
export type Money = DealSummary['committed'][number];
export type Board = Ok<'getDealBoard'>;
export type BoardColumn = Board['columns'][number];
export type CardPage = Ok<'listBoardCards'>;
export type Card = CardPage['output'][number];
export type InvestorSummary = Ok<'getConsoleInvestor'>;
export type Whoami = Ok<'getCaller'>;
export type Deal = Ok<'getDeal'>;
export type DealBody = Body<'upsertDeal'>;
export type Directory = Ok<'listDirectoryInvestors'>;
export type DirectoryEntry = Directory['output'][number];
export type Inbox = Ok<'listPendingEditRequests'>;
export type PendingRequest = Inbox['output'][number];
export type DealRows = Ok<'listDealRows'>;
export type DealRow = DealRows['output'][number];
export type RowParams = Query<'listDealRows'>;
export type PersonName = Ok<'listPeopleNames'>[number];
/** The workflow document PUT /deals/deal/{dealId}/workflow takes (and the check reads). */
export type WorkflowDocument = Body<'setWorkflow'>;
export type WorkflowCheck = Ok<'previewWorkflow'>;
export type FeedEntry = Ok<'listDealEvents'>['output'][number];
export type Activity = Ok<'listDealActivity'>;
export type UndoResult = Ok<'undoBatch'>;
export type Deliveries = Ok<'listWebhookDeliveries'>;
export type Delivery = Deliveries['output'][number];
export type SanctionsHitPage = Ok<'listSanctionsHits'>;
export type SanctionsHit = SanctionsHitPage['output'][number];
export type SanctionsList = Ok<'listSanctionsLists'>[number];
export type DealDocument = Ok<'listDealDocuments'>[number];
export type Agreement = Schemas['SubscriptionAgreement'];
export type AgreementTemplate = Schemas['AgreementTemplate'];
export type SigningOptions = Schemas['SigningOptions'];
export type ExpiringCategories = Ok<'listExpiringCategoryStatements'>;
export type KycChecks = Ok<'listInvestorKycChecks'>;
export type KycCheck = KycChecks['checks'][number];
export type KycReviews = Ok<'listKycReviews'>;
export type KycReview = KycReviews['output'][number];
export type ExpiringKyc = Ok<'listExpiringKycLevels'>;
export type DocumentRead = Ok<'listDocumentReads'>[number];
export type DocumentRelease = Body<'createDocumentRelease'>;
export type Subscriptions = Ok<'listSubscriptions'>;
export type Subscription = Subscriptions['output'][number];
export type SubscriptionBody = Body<'createSubscription'>;
export type Asset = Ok<'getAsset'>;
export type AssetBody = Body<'upsertAsset'>;
export type PaymentLines = Ok<'listPaymentLines'>;
export type PaymentLine = PaymentLines['output'][number];
export type PaymentLineWithDecisions = Ok<'getPaymentLine'>;
export type PaymentProposal = Ok<'listPaymentLineCandidates'>['output'][number];
export type PaymentSettings = Ok<'getPaymentSettings'>;
export type PaymentSettingsBody = Body<'setPaymentSettings'>;
export type Investor = Schemas['Investor'];
/** The investor directory entry as PUT /investors/{id} takes it (the document's Investor without its id). */
export type InvestorRecord = Omit<Investor, 'id'>;
export type ImportReport = Ok<'importInvestors'>;
export type ImportJob = Ok<'getImportJob'>;
export type FieldError = Schemas['FieldError'];
/** POST /investors/portal-invitations: a link to the investor portal per investor, and whether it was e-mailed. */
export type PortalInvitations = Ok<'createPortalInvitations'>;
export type Funnel = Schemas['Funnel'];
export type FunnelDays = Schemas['FunnelDays'];

/** Every value of a generated union, once: a value missing from the list fails typecheck. */
const every =
  <U extends string>() =>
  <const T extends readonly U[]>(values: T & ([Exclude<U, T[number]>] extends [never] ? unknown : { missing: Exclude<U, T[number]> })) =>
    values;

export const stepTypes = every<StepType>()(['default', 'complete', 'withdrawn']);
export const fieldKinds = every<FieldKind>()(['text', 'amount', 'currency', 'date', 'email', 'choice', 'number']);
/** A field kind as the workflow editor names it. */
export const fieldKindLabels: Record<FieldKind, string> = {
  text: 'Text',
  amount: 'Amount',
  currency: 'Currency',
  date: 'Date',
  email: 'E-mail',
  choice: 'Choice',
  number: 'Number',
};
export const requirementKinds = every<RequirementKind>()([
  'kyc-level',
  'classification',
  'investor-category',
  'no-pending-edit-requests',
  'previous-fields-complete',
  'signed-agreement',
]);

/** The value of a closed list that a `<select>` of that list chose (its first value if none matches). */
export const oneOf = <T extends string>(values: readonly T[], chosen: string): T => values.find((v) => v === chosen) ?? values[0]!;
// Staff people and the console's sign-in (docs/reference/staff.md).
export type StaffSession = Schemas['StaffSession'];
export type StaffRole = StaffSession['role'];
export type StaffPerson = Schemas['StaffPerson'];
export type StaffInvitation = Schemas['StaffInvitation'];
export type StaffRegistrationOptions = Ok<'createStaffPasskeyRegistrationOptions'>;
export type StaffSignInOptions = Ok<'createStaffSignInOptions'>;
