// What the OpenAPI document says about each operation beyond its schemas: a stable verb-first
// operationId (generated clients name their methods after it, so it never changes once published),
// a description when the route gives none, and whether an optional body is optional. A route may set
// `operationId` and `description` in its own schema instead; the table fills in what it leaves out.
// test/http/openapi-contract.test.ts fails when an operation has no operationId, summary,
// description or declared tag, so a new route is added here (or documents itself) by construction.

/**
 * The document's `info.version` (semver), also the version of the client package: a breaking change
 * of the document needs a new major version and its CHANGELOG.md entry (scripts/check-openapi-compat.ts).
 */
export const apiVersion = '3.0.0';

export interface OperationDoc {
  operationId: string;
  description?: string;
  /** The route accepts no body at all (requestBody.required: false). */
  optionalBody?: boolean;
  /** The media types of a raw upload the route reads itself (no JSON body schema): its requestBody. */
  uploads?: { mediaTypes: string[]; description: string };
}

export const tagDescriptions: Record<string, string> = {
  access: 'Who the caller is.',
  management: 'Deals, workflows, the investor directory and event history: the platform sets these up.',
  journeys: 'Interface endpoints 1–5: the workflow, moves (jump-to-step), journeys and event edits.',
  'investor side': 'Interface endpoints 6–9 and around them: form implementations, active investors, payment references, edit requests.',
  portfolio: 'Assets and subscription transactions.',
  webhooks: 'Webhook deliveries and the pull feeds of domain events.',
  console: 'Read models of the web console; admin only.',
  reconciliation: 'Bank statements (camt.053, camt.054, CSV), the reconciliation queue, deal payment settings and bookings on completion.',
  checks:
    "Checks before money: sanctions list loads, the review queue of hits and its decisions, screens on demand; investors' category statements and their confirmation in the portal; KYC evidence: settings, documents, decisions, expiring levels (docs/reference/checks.md).",
  staff:
    "Staff people and the console's sign-in: invitations with a role, passkeys (WebAuthn), the session cookie, roles, deactivation. Behind the cookie, every route of the API is also served under /console/api (docs/reference/staff.md).",
  documents: "A deal's documents: PDFs uploaded, released to a step or an investor, opened, and who opened what (docs/reference/documents.md).",
  portal:
    "The investor portal's sign-in: invitations, passkeys (WebAuthn) and the session cookie. Behind the cookie, every route of the API is also served under /portal/api (docs/reference/portal-access.md).",
  approvals:
    "Four-eyes: writes held for a second person (a change of the payee's IBAN always; payment decisions, large bulk moves and workflow changes when a deal's rules say so), their approval or rejection, and a deal's rules (docs/reference/approvals.md).",
  probes: 'Liveness and readiness for load balancers and orchestrators; no token.',
};

export const operationDocs: Record<string, OperationDoc> = {
  'GET /approvals': {
    operationId: 'listApprovals',
    description: 'Staff, viewer and up. `status=pending`: awaiting a second person; `decided`: approved, rejected or refused.',
  },
  'GET /approvals/{proposalId}': {
    operationId: 'getApproval',
    description: 'The exact input held, the basis it was checked against, who proposed it and its decision.',
  },
  'POST /approvals/{proposalId}/approve': {
    operationId: 'approveProposal',
    description:
      'Needs the role the held write needs (operator for a bulk move, approver for a payment decision, admin for a payee change or a workflow change) and another person than the proposer (403). ' +
      'The stored input is applied by the same operation as the direct write, in one transaction with the decision. When what it was checked against ' +
      'moved meanwhile (the line was decided, the IBAN changed): 409 naming it in `changed`, the decision recorded as refused. Decided already: 409.',
    optionalBody: true,
  },
  'POST /approvals/{proposalId}/reject': {
    operationId: 'rejectProposal',
    description: 'Same roles and second-person rule as approving; records the reason, applies nothing.',
  },
  'GET /deals/deal/{dealId}/four-eyes': {
    operationId: 'getFourEyesRules',
    description: 'Defaults (payment decisions direct) when never set; the payee change is always four-eyes.',
  },
  'PUT /deals/deal/{dealId}/four-eyes': { operationId: 'setFourEyesRules', description: 'Admin. A new rule row replaces the previous one; history is kept.' },
  'POST /investors/portal-invitations': { operationId: 'createPortalInvitations' },
  'POST /portal/api/passkeys/registration-options': { operationId: 'createPasskeyRegistrationOptions' },
  'POST /portal/api/passkeys': { operationId: 'createPasskey' },
  'POST /portal/api/sessions/options': { operationId: 'createSignInOptions', optionalBody: true },
  'POST /portal/api/sessions': { operationId: 'createPortalSession' },
  'GET /portal/api/session': { operationId: 'getPortalSession' },
  'POST /portal/api/sign-out': { operationId: 'deletePortalSession', optionalBody: true },
  'POST /console/api/passkeys/registration-options': { operationId: 'createStaffPasskeyRegistrationOptions' },
  'POST /console/api/passkeys': { operationId: 'createStaffPasskey' },
  'POST /console/api/sessions/options': { operationId: 'createStaffSignInOptions', optionalBody: true },
  'POST /console/api/sessions': { operationId: 'createStaffSession' },
  'GET /console/api/session': { operationId: 'getStaffSession' },
  'POST /console/api/sign-out': { operationId: 'deleteStaffSession', optionalBody: true },
  'PUT /deals/deal/{dealId}/payment-settings': {
    operationId: 'setPaymentSettings',
    description: 'Payment step, the fields reconciliation fills and reads, and the asset and price booked on completion. 201 the first time, 200 after.',
  },
  'GET /deals/deal/{dealId}/payment-settings': {
    operationId: 'getPaymentSettings',
    description: 'The settings, or the defaults when never set; 404 for an unknown deal.',
  },
  'POST /payments/statements': {
    operationId: 'importStatement',
    uploads: {
      mediaTypes: ['application/xml', 'text/xml', 'text/csv'],
      description: 'The statement file as it came from the bank: camt.053 or camt.054 XML, or CSV',
    },
  },
  'POST /sanctions/lists': {
    operationId: 'importSanctionsList',
    uploads: {
      mediaTypes: ['application/xml', 'text/xml', 'text/csv'],
      description: 'The list file as downloaded: EU FSF XML, UK OFSI CSV, OFAC sdn.xml or the UN consolidated XML',
    },
  },
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/documents': {
    operationId: 'createKycDocument',
    uploads: { mediaTypes: ['application/pdf', 'image/jpeg', 'image/png'], description: 'The file itself: a PDF, JPEG or PNG' },
  },
  'POST /deals/deal/{dealId}/documents': {
    operationId: 'createDealDocument',
    uploads: { mediaTypes: ['application/pdf'], description: 'The PDF itself' },
  },
  'POST /deals/deal/{dealId}/agreement-template': {
    operationId: 'createAgreementTemplate',
    uploads: { mediaTypes: ['application/pdf'], description: 'The template PDF, with form fields named after the data they take' },
  },
  'POST /investors/import': {
    operationId: 'importInvestors',
    uploads: { mediaTypes: ['text/csv', 'application/x-ndjson'], description: 'The investor file: CSV with a header row, or one JSON investor per line' },
  },
  'POST /deals/deal/{dealId}/jump-to-step/import': {
    operationId: 'importMoves',
    uploads: { mediaTypes: ['text/csv'], description: 'The moves file: CSV with a header row' },
  },
  'GET /payments/lines': {
    operationId: 'listPaymentLines',
    description: 'Lines of imported statements in import order, filtered by status (queued: the reconciliation queue), outcome, deal and statement.',
  },
  'GET /payments/lines/{lineId}': { operationId: 'getPaymentLine', description: 'The line and every decision about it, oldest first.' },
  'GET /payments/lines/{lineId}/candidates': { operationId: 'listPaymentLineCandidates' },
  'POST /payments/lines/{lineId}/assign': {
    operationId: 'reconcileLineToInvestor',
    description: 'Only a queued credit (409 otherwise); 404 when the investor has no journey in the deal; 422 for another currency than the commitment.',
  },
  'POST /payments/lines/{lineId}/split': {
    operationId: 'reconcileLineAcrossInvestors',
    description: 'The shares must add up to the line (422); one share per investor.',
  },
  'POST /payments/lines/{lineId}/dismiss': {
    operationId: 'setPaymentLineDismissed',
    description: 'Only a queued line (409 otherwise); money the line had allocated is taken back.',
  },
  'GET /payments/bookings': {
    operationId: 'listCompletionBookings',
    description: 'One row per journey that completed in a deal booking on completion: booked (with the subscription) or queued (with the reason).',
  },
  'GET /healthz': { operationId: 'getHealth', description: 'Answers 200 while the process serves requests; it does not touch the database.' },
  'GET /readyz': { operationId: 'getReadiness', description: 'Answers 200 when the database answers a query, 503 (with Retry-After) when it does not.' },
  'GET /whoami': { operationId: 'getCaller', description: 'Resolves the bearer token and answers who it stands for; useful to check a token.' },
  'PUT /deals/deal/{dealId}': { operationId: 'upsertDeal', description: 'The deal id comes from the platform. 201 when created, 200 when updated.' },
  'GET /deals/deal/{dealId}': { operationId: 'getDeal', description: 'The deal as stored; 404 when unknown.' },
  'PUT /investors/{investorUserId}': {
    operationId: 'upsertInvestor',
    description: 'The investor object of the interface without `id` (the path gives it). 201 when created, 200 when updated.',
  },
  'GET /investors/{investorUserId}': { operationId: 'getInvestor', description: 'The directory entry, shaped as in the active-investors list.' },
  'PUT /deals/deal/{dealId}/workflow': { operationId: 'setWorkflow' },
  'GET /deals/deal/{dealId}/workflow-status': { operationId: 'getWorkflowStatus' },
  'POST /deals/deal/{dealId}/workflow/migrate': { operationId: 'migrateWorkflow', optionalBody: true },
  'POST /deals/deal/{dealId}/jump-to-step': { operationId: 'jumpToStep' },
  'GET /deals/deal/{dealId}/investor-data/{investorUserId}': {
    operationId: 'getInvestorJourney',
    description: "The investor's Workflow Events in the deal, oldest first; an empty journey when the investor has not moved in it yet.",
  },
  'GET /deals/deal/{dealId}/all-investor-workflows': {
    operationId: 'listAllInvestorWorkflows',
    description: 'Investors with a journey in the deal, paged, with abbreviated events; `query` filters by name or e-mail.',
  },
  'POST /deals/event/{eventId}/edit': { operationId: 'editWorkflowEvent' },
  'GET /deals/event/{eventId}/revisions': {
    operationId: 'listEventRevisions',
    description: 'Revision 1 is what the move captured; every edit adds one. Nothing is ever overwritten.',
  },
  'GET /deals/workflow/step/{stepId}/investor-form-implementation': { operationId: 'getInvestorFormImplementation' },
  'POST /deals/deal/all-transactions': { operationId: 'listActiveInvestors', optionalBody: true },
  'GET /deals/deal/{dealId}/all-payment-refernces': {
    operationId: 'listPaymentReferences',
    description: 'One ISO 11649 reference per investor of the deal, assigned with their first move; the path is spelled as in the interface.',
  },
  'GET /payments/references/{reference}': { operationId: 'resolvePaymentReference' },
  'POST /deals/request-to-edit': { operationId: 'createEditRequest' },
  'GET /deals/request-to-edit/filtered': {
    operationId: 'listInvestorEditRequests',
    description: "The investor's requests in the deal, newest first; both query parameters are required.",
  },
  'GET /deals/request-to-edit/{requestId}': { operationId: 'getEditRequest', description: 'One edit request with its decision, if any.' },
  'POST /deals/request-to-edit/{requestId}/approve': {
    operationId: 'approveEditRequest',
    description: 'Applies the request in the same transaction as the decision; a request whose effect fails stays pending.',
    optionalBody: true,
  },
  'POST /deals/request-to-edit/{requestId}/reject': {
    operationId: 'rejectEditRequest',
    description: 'Records the decision; nothing else changes.',
    optionalBody: true,
  },
  'PUT /portfolio/assets/{assetId}': { operationId: 'upsertAsset', description: 'Assets carry the platform ids (positive integers) and an ISO 4217 currency.' },
  'GET /portfolio/assets/{assetId}': { operationId: 'getAsset', description: 'The asset as stored; 404 when unknown.' },
  'POST /portfolio/transactions/subscriptions': { operationId: 'createSubscription' },
  'GET /portfolio/transactions/subscriptions': {
    operationId: 'listSubscriptions',
    description: 'Paged, oldest first; every filter optional; unknown query parameters are a 400.',
  },
  'GET /portfolio/transactions/subscriptions/{id}': { operationId: 'getSubscription', description: 'The stored record; 404 when unknown.' },
  'GET /webhooks/deliveries': { operationId: 'listWebhookDeliveries', description: 'Filtered by status and deal; paged.' },
  'POST /webhooks/deliveries/{deliveryId}/retry': { operationId: 'retryWebhookDelivery', description: '409 once the delivery was delivered.' },
  'GET /deals/deal/{dealId}/events': {
    operationId: 'listDealEvents',
    description: 'Gap-free sequence numbers per deal; ask again with `after=lastSequence` until `hasMore` is false.',
  },
  'GET /webhooks/events': { operationId: 'listPlatformEvents', description: 'Numbered in one platform-wide stream, read like the deal feed.' },
  'POST /console/live/tickets': { operationId: 'createLiveTicket' },
  'GET /console/live': { operationId: 'getDealLiveStream' },
  'GET /console/deals': { operationId: 'listConsoleDeals', description: 'Investors in progress, complete and withdrawn, and committed totals per currency.' },
  'GET /console/deals/{dealId}/board': { operationId: 'getDealBoard', description: 'Counts and committed totals per step; `query` filters by name or e-mail.' },
  'GET /console/deals/{dealId}/board/cards': { operationId: 'listBoardCards', description: 'Cards of the board, ordered by name, paged.' },
  'GET /console/deals/{dealId}/investors/{investorUserId}': {
    operationId: 'getConsoleInvestor',
    description: "The investor drawer's summary: step, committed amount, payment reference, pending edit requests.",
  },
  'GET /audit/checkpoints': {
    operationId: 'listAuditCheckpoints',
    description:
      'Each checkpoint is an RFC 9162 Merkle root over the audit entries after the previous one, chained to it by hash: anchor the latest hash elsewhere.',
  },
  'GET /deals/deal/{dealId}/audit': {
    operationId: 'listDealAuditEntries',
    description:
      'Moves, edits, edit-request decisions, reconciliation decisions and workflow changes of the deal; an entry not yet sealed has no inclusion proof.',
  },
  'POST /investors/{investorUserId}/erasure': {
    operationId: 'eraseInvestor',
    description:
      '409 while the retention period runs (ERASURE_RETENTION_YEARS after the last event) unless overrideRetention with a reason; ids, amounts and audit chains are kept.',
    optionalBody: true,
  },
};
