// Descriptions of the named components of the OpenAPI document (schemas titled in schemas/ and
// routes/), in the words of the interface document (/work/shared/spec/interface.md). Applied by
// finishDocument; naming a component property that does not exist is an error, so this stays true.

interface ComponentDoc {
  description?: string;
  properties?: Record<string, string>;
}

export const componentDescriptions: Record<string, ComponentDoc> = {
  Workflow: {
    description: "A deal's Workflow: a graph of Steps linked to each other, the basis for building jump requests.",
    properties: {
      id: 'identifier of the Workflow',
      label: 'name',
      description: 'text',
      steps: 'the Steps, entry steps first, then by depth, then by label',
      investorEngagementEnabled: 'as set by the workflow document',
    },
  },
  Step: {
    description: 'A stage of the journey: the fields it captures and the links arriving at it and leaving it.',
    properties: {
      type: 'default, complete or withdrawn',
      previousStepLinks: 'links arriving at this Step',
      nextStepLinks: 'links leaving this Step',
      stepFields: 'fields the Step captures',
      requirements: 'what must hold for an investor to enter this Step',
      formId: 'the form an investor opens at this Step (GET /deals/workflow/step/{stepId}/investor-form-implementation), if any',
    },
  },
  Link: { description: 'A link of the Workflow graph, from one Step to another.' },
  StepField: {
    description: 'A field a Step captures.',
    properties: {
      fieldKey: 'key that is also used as a key inside a Workflow Event `data` object',
      required: 'whether the field must be populated',
      kind: 'text, amount, currency, date, email or choice: what values the field accepts',
    },
  },
  WorkflowEvent: {
    description: 'One move of one investor (one entry of a journey), with the data captured for it. Never deleted; edits keep every earlier version.',
    properties: {
      fromStepId: 'null for the first event of an investor',
      toStepId: 'Step moved to',
      data: 'keys are Step field keys; values are strings (money as decimal strings, e.g. "25000.00")',
      createdByUserId: 'user that made the move',
      createdAt: 'ISO 8601 UTC with milliseconds',
    },
  },
  JourneyEntry: {
    description: 'A Workflow Event in the abbreviated form of the all-investor-workflows list.',
    properties: { toStepId: 'Step moved to', data: 'keys are Step field keys; values are strings' },
  },
  InvestorJourney: {
    description: "An investor's journey in one deal: their Workflow Events, oldest first.",
    properties: { investor: 'the investor (`id`)', journey: 'the Workflow Events, oldest first' },
  },
  InvestorJourneySummary: {
    description: "An element of the all-investor-workflows page: an investor and their journey's abbreviated events.",
  },
  InvestorJourneyPage: {
    description: 'Page wrapper of the all-investor-workflows list.',
    properties: { output: 'the investors of this page', page: 'current page (from 1)', totalPages: 'number of pages' },
  },
  ActiveInvestor: {
    description: 'Active investor entry of the all-transactions list, with counts of their deals.',
    properties: {
      dealsCompletedCount: 'numeric text: journeys standing at a step of type complete',
      dealsInProgressCount: 'numeric text: journeys standing at a step of type default',
      dealsTotal: 'numeric text: all journeys (withdrawn ones included)',
    },
  },
  ActiveInvestorPage: {
    description: 'Page wrapper of the all-transactions list.',
    properties: { output: 'the active investors of this page', page: 'current page (from 1)', totalPages: 'number of pages' },
  },
  Investor: {
    description: 'An investor of the directory, shaped as the interface shows it.',
    properties: { teamUserId: 'string or null', kycCheckLevel: 'KYC level reached, or null', contact: 'the contact of the investor' },
  },
  PaymentReference: {
    description: 'Payment reference entry: the reference an investor quotes when paying for a deal. One per investor per deal.',
    properties: { paymentReference: 'ISO 11649 RF creditor reference, compact (no spaces)' },
  },
  EventEditRequest: {
    description: "An investor's request to change a captured event: `Investment Amount` or `Withdraw Investment`.",
    properties: {
      dateRecieved: 'when the request was made (spelled exactly so, as in the interface)',
      reason: 'free text',
      type: '`Investment Amount` or `Withdraw Investment`',
      status: 'pending until decided',
      newData: 'for `Investment Amount`: the new values of the event’s amount fields',
    },
  },
  InvestorFormImplementation: {
    description: "The investor's form implementation for a Step with a form: created by the first call, the same id ever after.",
  },
  Portfolio_CreateSubscriptionRequest: {
    description:
      'Request body of POST /portfolio/transactions/subscriptions: the booking of an investment into a portfolio. Amounts are JSON numbers, exact to 15 significant digits.',
    properties: { funding_source: 'cash_account, bank_transfer, card or other' },
  },
  SubscriptionTransaction: {
    description: 'A stored subscription transaction. Amounts print as the exact decimals that were booked.',
    properties: { currency: "the asset's ISO 4217 currency", created_by_user_id: 'user that booked it' },
  },
};
