// Wire shapes of reconciliation: deal payment settings, statement imports, lines and bookings.
import { Type } from 'typebox';
import { paymentLineStatuses, paymentOutcomes } from '../../domain/payment-line.ts';
import { ExternalId, StrictObject, Timestamp } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
export const DecimalText = Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,10})?$', description: 'decimal amount as text, e.g. "25000.00"' });
const FieldKey = Type.String({ minLength: 1, maxLength: 64 });

export const PaymentSettingsBody = StrictObject({
  paymentStepId: Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'the step a matched payment moves the investor to' })),
  amountFieldKey: Type.Optional(Nullable(FieldKey)),
  dateFieldKey: Type.Optional(Nullable(FieldKey)),
  commitmentFieldKey: Type.Optional(FieldKey),
  currencyFieldKey: Type.Optional(Nullable(FieldKey)),
  assetId: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 }))),
  pricePerUnit: Type.Optional(Nullable(DecimalText)),
  unitDecimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 12 })),
  beneficiaryName: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 70, description: 'whom investors pay, as on the account (one line, at most 70 characters)' })),
  ),
  iban: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'the account investors pay into; spaces and case as typed, kept compact and upper case (ISO 13616, check digits verified)',
      }),
    ),
  ),
  bic: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 14, description: "the account's bank: 8 or 11 letters and digits (ISO 9362)" }))),
});

export const PaymentSettings = Type.Object({
  dealId: Type.String(),
  paymentStepId: Nullable(Type.String()),
  amountFieldKey: Nullable(Type.String()),
  dateFieldKey: Nullable(Type.String()),
  commitmentFieldKey: Type.String(),
  currencyFieldKey: Nullable(Type.String()),
  assetId: Nullable(Type.Integer()),
  pricePerUnit: Nullable(Type.String()),
  unitDecimals: Type.Integer(),
  beneficiaryName: Nullable(Type.String()),
  iban: Nullable(Type.String({ description: 'compact, upper case' })),
  bic: Nullable(Type.String()),
  updatedAt: Timestamp,
});

export const Advice = Type.Object(
  {
    summary: Type.String({ description: 'why the investor was not moved, in plain words' }),
    action: Type.String({ description: 'the way forward' }),
    fields: Type.Array(Type.Object({ key: Type.String(), label: Type.String() }), { description: 'fields to fill, with their labels' }),
  },
  { title: 'PaymentLineAdvice', description: 'a line whose move was refused: the reason and what to do' },
);

export const Proposal = Type.Object(
  {
    dealId: Type.String(),
    dealName: Type.String(),
    investorUserId: Type.String(),
    fullName: Type.String(),
    email: Nullable(Type.String()),
    companies: Type.Array(Type.String(), { description: "the organisations of the investor's classifications" }),
    paymentReference: Type.String(),
    stillOwed: Nullable(Type.String({ description: 'commitment minus what was received, decimal text; null when no commitment is captured' })),
    currency: Nullable(Type.String()),
    score: Type.Number({ description: 'higher is likelier; compare within one line only' }),
    reasons: Type.Array(
      Type.Object({
        kind: Type.String({ description: 'amount-owed, name, company, reference' }),
        detail: Type.String(),
      }),
    ),
  },
  { title: 'PaymentLineProposal' },
);

export const PaymentLine = Type.Object({
  id: Type.String(),
  statementId: Type.String(),
  direction: Type.String({ description: 'credit or debit' }),
  reversal: Type.Boolean(),
  amount: Type.String(),
  currency: Type.String(),
  bookingDate: Nullable(Type.String()),
  valueDate: Nullable(Type.String()),
  account: Nullable(Type.String()),
  entryReference: Nullable(Type.String()),
  endToEndId: Nullable(Type.String()),
  debtorName: Nullable(Type.String()),
  debtorAccount: Nullable(Type.String()),
  structuredReference: Nullable(Type.String()),
  remittance: Nullable(Type.String()),
  reference: Nullable(Type.String({ description: 'the RF reference found' })),
  dealId: Nullable(Type.String()),
  investorUserId: Nullable(Type.String()),
  outcome: Type.String({ description: paymentOutcomes.join(', ') }),
  status: Type.String({ description: `${paymentLineStatuses.join(', ')} (pending: matching not finished)` }),
  detail: Nullable(Type.String()),
  refusal: Type.Unknown({ description: 'the refused move (problem kind, detail, extensions), or null' }),
  eventId: Nullable(Type.String({ description: 'the workflow event of the move this line made' })),
  reversedByLineId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  investorName: Type.Optional(Nullable(Type.String({ description: 'the full name of the investor the line points at' }))),
  dealName: Type.Optional(Nullable(Type.String({ description: 'the name of the deal the line points at' }))),
  advice: Type.Optional(Nullable(Advice)),
  proposals: Type.Optional(Type.Array(Proposal, { description: 'queued credits: the likeliest investors (at most 3), with the reasons' })),
});

export const Decision = Type.Object({
  id: Type.String(),
  action: Type.String(),
  outcome: Nullable(Type.String()),
  status: Type.String(),
  allocations: Type.Unknown(),
  reason: Nullable(Type.String()),
  refusal: Type.Unknown(),
  eventId: Nullable(Type.String()),
  decidedBy: Type.String(),
  decidedAt: Timestamp,
});

export const PaymentLineWithDecisions = Type.Intersect([PaymentLine, Type.Object({ decisions: Type.Array(Decision) })]);

export const StatementImport = Type.Object({
  statement: Type.Object({
    id: Type.String(),
    format: Type.String(),
    messageId: Nullable(Type.String()),
    lineCount: Type.Integer(),
    newLineCount: Type.Integer(),
    importedBy: Type.String(),
    importedAt: Timestamp,
  }),
  duplicate: Type.Boolean(),
  outcomes: Type.Record(Type.String(), Type.Integer()),
  statuses: Type.Record(Type.String(), Type.Integer()),
});

export const StatementQuery = Type.Object(
  {
    dateColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    valueDateColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    amountColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    currencyColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    referenceColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    counterpartyColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    counterpartyAccountColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    bankReferenceColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    delimiter: Type.Optional(Type.Union([Type.Literal('comma'), Type.Literal('semicolon'), Type.Literal('tab')])),
    decimalSeparator: Type.Optional(Type.Union([Type.Literal('point'), Type.Literal('comma')])),
    account: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const Share = StrictObject({ dealId: ExternalId, investorUserId: ExternalId, amount: DecimalText });

export const JourneyBooking = Type.Object({
  dealId: Type.String(),
  investorUserId: Type.String(),
  status: Type.String({ description: 'booked or queued' }),
  subscriptionId: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  eventId: Type.String(),
  createdAt: Timestamp,
});
