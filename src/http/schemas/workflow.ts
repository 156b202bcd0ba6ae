// Workflow (getWorkflowStatus), the workflow document of the management API, and Workflow Events.
// Closed vocabularies (step types, field kinds, requirement kinds) are enums of the domain's lists,
// so generated clients type them; domain/workflow-graph.ts checks them again with the graph rules.
import { type Static, Type } from 'typebox';
import { FieldKind, RequirementKind, StepType, vocabularyText } from './vocabularies.ts';
import { StrictObject, Timestamp } from './common.ts';
import { StepTriggersBody, WorkflowCustomStepTriggers } from './step-trigger.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const StepId = Type.String({ minLength: 1, maxLength: 64, description: 'letters, digits, "-", "_", "." and ":"' });

/** Event data: field keys to string values (money as decimal strings). */
export const EventData = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 10_000 }), { maxProperties: 200 });

const Requirement = Type.Object({
  kind: RequirementKind,
  minimumLevel: Type.Optional(Type.Integer()),
  classes: Type.Optional(Type.Array(Type.String())),
  categories: Type.Optional(Type.Array(Type.String(), { description: 'investor-category: the categories of which a current statement lets the investor in' })),
});

/** Old step id → new step id: where a migration puts the investors standing on a step. */
export const StepMapping = Type.Record(StepId, StepId, {
  maxProperties: 200,
  description: 'old step id → step id of the new version; needed for every removed step investors stand on',
});

export const WorkflowBody = StrictObject({
  label: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 10_000 }),
  investorEngagementEnabled: Type.Boolean(),
  steps: Type.Array(
    StrictObject({
      id: StepId,
      label: Type.String({ minLength: 1, maxLength: 200 }),
      type: vocabularyText('StepType'),
      stepFields: Type.Array(
        StrictObject({
          fieldKey: Type.String({ minLength: 1, maxLength: 64 }),
          required: Type.Boolean(),
          kind: Type.Optional(vocabularyText('FieldKind')),
          label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
          options: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }))),
        }),
        { maxItems: 100 },
      ),
      requirements: Type.Optional(
        Type.Array(
          StrictObject({
            kind: vocabularyText('RequirementKind'),
            minimumLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
            classes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
            categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 10 })),
          }),
          { maxItems: 20 },
        ),
      ),
      formId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
      triggers: Type.Optional(StepTriggersBody),
    }),
    { maxItems: 200 },
  ),
  links: Type.Array(
    StrictObject({
      fromStepId: StepId,
      toStepId: StepId,
      investorMay: Type.Optional(
        Type.Boolean({ default: false, description: 'the investor may move themselves along this link, when investorEngagementEnabled' }),
      ),
    }),
    { maxItems: 1000 },
  ),
  stepMapping: Type.Optional(StepMapping),
});
export type WorkflowBody = Static<typeof WorkflowBody>;

const Link = Type.Object(
  {
    fromStepId: Type.String(),
    toStepId: Type.String(),
    // Always sent; optional in the schema only because Link is a shared component, where a new
    // required member counts as a breaking change for clients generated from the document.
    investorMay: Type.Optional(
      Type.Boolean({
        description: 'the investor may move themselves along this link (only when the workflow has investorEngagementEnabled); always present since 2.2.0',
      }),
    ),
  },
  { title: 'Link' },
);

export const Workflow = Type.Object(
  {
    id: Type.String(),
    dealId: Type.String(),
    label: Type.String(),
    description: Type.String(),
    investorEngagementEnabled: Type.Boolean(),
    version: Type.Integer({ description: 'incremented every time the workflow is set' }),
    steps: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          label: Type.String(),
          type: StepType,
          previousStepLinks: Type.Array(Link),
          nextStepLinks: Type.Array(Link),
          stepFields: Type.Array(
            Type.Object(
              {
                fieldKey: Type.String(),
                required: Type.Boolean(),
                kind: FieldKind,
                label: Nullable(Type.String()),
                options: Nullable(Type.Array(Type.String())),
              },
              { title: 'StepField' },
            ),
          ),
          requirements: Type.Array(Requirement),
          formId: Nullable(Type.String()),
          workflowCustomStepTriggers: WorkflowCustomStepTriggers,
        },
        { title: 'Step' },
      ),
    ),
  },
  { title: 'Workflow' },
);

export const WorkflowEvent = Type.Object(
  {
    id: Type.String(),
    fromStepId: Nullable(Type.String()),
    toStepId: Type.String(),
    data: Type.Record(Type.String(), Type.String()),
    createdByUserId: Type.String(),
    createdAt: Timestamp,
  },
  { title: 'WorkflowEvent' },
);

export const AbbreviatedEvent = Type.Object(
  {
    id: Type.String(),
    toStepId: Type.String(),
    data: Type.Record(Type.String(), Type.String()),
    createdAt: Timestamp,
  },
  { title: 'JourneyEntry' },
);

export const EventRevision = Type.Object({
  revision: Type.Integer({ description: '1 is the data the move captured' }),
  data: Type.Record(Type.String(), Type.String()),
  setByUserId: Type.String(),
  setAt: Timestamp,
  reason: Nullable(Type.String()),
});
