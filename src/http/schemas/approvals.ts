// Four-eyes approvals on the wire: a proposal (a write held for a second person) with its decision,
// and a deal's four-eyes rules.
import { Type } from 'typebox';
import { decisionOutcomes, proposalActions, proposalStatuses } from '../../domain/four-eyes.ts';
import { staffRoles } from '../../domain/principal.ts';
import { Timestamp } from './common.ts';

const literals = <T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));
const open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const nullableText = Type.Union([Type.String(), Type.Null()]);

export const Approval = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    action: literals(proposalActions),
    dealId: Type.String(),
    status: literals(proposalStatuses),
    neededRole: literals(staffRoles),
    input: open('the exact input of the held write; approving applies it as given'),
    basis: open('what the input was checked against; an approval is refused when it moved'),
    proposedBy: Type.String({ description: 'the actor: JWT sub or API key id' }),
    proposedByName: nullableText,
    proposedAt: Timestamp,
    decision: Type.Union([
      Type.Object({
        outcome: literals(decisionOutcomes),
        decidedBy: Type.String(),
        decidedByName: nullableText,
        reason: nullableText,
        decidedAt: Timestamp,
        result: Type.Unknown({ description: 'approved: what the write returned; refused: what changed (`changed`); rejected: null' }),
      }),
      Type.Null(),
    ]),
  },
  { title: 'Approval', description: 'A write held for a second person (four-eyes), with its decision once made' },
);

export const FourEyesRules = Type.Object(
  {
    dealId: Type.String(),
    paymentDecisions: Type.Boolean({ description: 'assign, split and dismiss on lines of the deal wait for a second person (an approver)' }),
    payeeChange: Type.Literal(true, { description: "always: replacing or removing the payee's IBAN waits for a second admin" }),
    bulkMovesFrom: Type.Union([Type.Integer(), Type.Null()], {
      description: 'bulk moves of at least this many investors wait for a second person (an operator); null: none do',
    }),
    bulkMovesFromAmount: Type.Union([Type.String(), Type.Null()], {
      description:
        "bulk moves whose investors' commitments add up to at least this amount (decimal text, the deal's currency) wait for a second person (an operator); null: none do by amount",
    }),
    workflowChanges: Type.Boolean({
      description: 'replacing the workflow (once the deal has one) and migrating its journeys wait for a second person (an admin)',
    }),
    erasure: Type.Boolean({ description: 'erasing the personal data of an investor with a journey in the deal waits for a second admin' }),
    setBy: nullableText,
    setAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'FourEyesRules' },
);
