// The workflows the tests put on their deals: request bodies of PUT /deals/deal/{dealId}/workflow.
// Step ids are global, so every workflow's steps carry the deal's unique prefix: `${dealId}.payment`.
// createDeal (deals.ts) puts one of them on a new deal by its name.

//            ┌→ kyc (kyc-level ≥ 2) ─┐
// interest → commitment               → documents → payment → complete
//            └→ withdrawn
export function workflowBody(prefix: string) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Series A',
    description: 'Investor journey for the Series A round',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [{ fieldKey: 'note', required: false }] },
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
        ],
      },
      {
        id: s('kyc'),
        label: 'KYC',
        type: 'default',
        stepFields: [{ fieldKey: 'kyc_ref', required: true }],
        requirements: [{ kind: 'kyc-level', minimumLevel: 2 }],
      },
      {
        id: s('documents'),
        label: 'Documents',
        type: 'default',
        stepFields: [{ fieldKey: 'signed', required: true, kind: 'choice', options: ['yes', 'no'] }],
        formId: 'form-documents',
      },
      { id: s('payment'), label: 'Payment', type: 'default', stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }] },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
      { id: s('withdrawn'), label: 'Withdrawn', type: 'withdrawn', stepFields: [{ fieldKey: 'reason', required: false }] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commitment') },
      { fromStepId: s('commitment'), toStepId: s('kyc') },
      { fromStepId: s('kyc'), toStepId: s('documents') },
      { fromStepId: s('documents'), toStepId: s('payment') },
      { fromStepId: s('payment'), toStepId: s('complete') },
      { fromStepId: s('commitment'), toStepId: s('withdrawn') },
    ],
  };
}

/**
 * interest (note) → commit (committed_amount, currency; form) → pay (paid_on; requires no pending
 * edit requests) → done (complete), and a withdrawn step `out` reachable from commit and pay.
 * `withdrawn: false` leaves `out` out.
 */
export function subscriptionWorkflow(prefix: string, { withdrawn = true } = {}) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Subscription',
    description: 'From interest to payment',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [{ fieldKey: 'note', required: false }] },
      {
        id: s('commit'),
        label: 'Commitment',
        type: 'default',
        formId: 'form-commitment',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
        ],
      },
      {
        id: s('pay'),
        label: 'Payment',
        type: 'default',
        stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }],
        requirements: [{ kind: 'no-pending-edit-requests' }],
      },
      { id: s('done'), label: 'Complete', type: 'complete', stepFields: [] },
      ...(withdrawn ? [{ id: s('out'), label: 'Withdrawn', type: 'withdrawn', stepFields: [] }] : []),
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commit') },
      { fromStepId: s('commit'), toStepId: s('pay') },
      { fromStepId: s('pay'), toStepId: s('done') },
      ...(withdrawn
        ? [
            { fromStepId: s('commit'), toStepId: s('out') },
            { fromStepId: s('pay'), toStepId: s('out') },
          ]
        : []),
    ],
  };
}

/** A step that captures the commitment: committed_amount (amount) and currency, both required. */
export const commitmentStep = (id: string) => ({
  id,
  label: 'Commitment',
  type: 'default' as const,
  stepFields: [
    { fieldKey: 'committed_amount', required: true, kind: 'amount' as const },
    { fieldKey: 'currency', required: true, kind: 'currency' as const },
  ],
});

/** A deal whose investors pay by transfer: interest → commitment → payment (amount_received, received_on) → complete. */
export function payingWorkflow(prefix: string) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Harbour',
    description: 'pays by transfer',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [] },
      commitmentStep(s('commitment')),
      {
        id: s('payment'),
        label: 'Funds received',
        type: 'default',
        stepFields: [
          { fieldKey: 'amount_received', required: true, kind: 'amount' },
          { fieldKey: 'received_on', required: true, kind: 'date' },
        ],
      },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commitment') },
      { fromStepId: s('commitment'), toStepId: s('payment') },
      { fromStepId: s('payment'), toStepId: s('complete') },
    ],
  };
}

/** The workflows by name: the body, the name of a deal that has it, the names of its steps. */
export const workflows = {
  'series-a': { body: workflowBody, dealName: () => 'Series A', steps: ['interest', 'commitment', 'kyc', 'documents', 'payment', 'complete', 'withdrawn'] },
  subscription: { body: subscriptionWorkflow, dealName: (dealId: string) => `Deal ${dealId}`, steps: ['interest', 'commit', 'pay', 'done', 'out'] },
  paying: { body: payingWorkflow, dealName: () => 'Harbour', steps: ['interest', 'commitment', 'payment', 'complete'] },
} as const;

export type WorkflowName = keyof typeof workflows;
export type StepName<W extends WorkflowName> = (typeof workflows)[W]['steps'][number];

/**
 * interest → commitment (committed_amount, currency, address_line1; investors may move on) →
 * signing (the agreement is signed there) → closing (requires the signed and countersigned
 * subscription agreement; investors may move there themselves) → complete.
 */
export function agreementWorkflow(prefix: string, { requirement = true } = {}) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Closing with documents',
    description: 'Commit, sign the subscription agreement, close',
    investorEngagementEnabled: true,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [] },
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
          { fieldKey: 'address_line1', required: true, label: 'Address line 1' },
        ],
      },
      { id: s('signing'), label: 'Signing', type: 'default', stepFields: [] },
      { id: s('closing'), label: 'Closing', type: 'default', stepFields: [], requirements: requirement ? [{ kind: 'signed-agreement' }] : [] },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commitment') },
      { fromStepId: s('commitment'), toStepId: s('signing'), investorMay: true },
      { fromStepId: s('signing'), toStepId: s('closing'), investorMay: true },
      { fromStepId: s('closing'), toStepId: s('complete') },
    ],
  };
}
