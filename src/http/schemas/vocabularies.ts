// The closed vocabularies of the domain as named enums (`{ type: string, enum }`), so generated
// clients type them as unions of literals. Their lists stay in domain/; this file only names them.
// In request bodies they are checked by domain/workflow-graph.ts with the graph rules, so one 400
// names every problem of a workflow document at once: there the schema is a plain string whose
// `x-document` the document shows instead (openapi-document.ts): the enum, with the same meaning, as
// any other value is refused with a 400.
import { Type } from 'typebox';
import { fieldKinds, requirementKinds, stepTypes } from '../../domain/workflow.ts';

const Vocabulary = (values: readonly string[], title: string, description: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], title, description });

export const StepType = Vocabulary(stepTypes, 'StepType', 'default, complete or withdrawn');
export const FieldKind = Vocabulary(
  fieldKinds,
  'FieldKind',
  'the kind of value a field holds (values are strings on the wire); text when absent in a workflow document',
);
export const RequirementKind = Vocabulary(
  requirementKinds,
  'RequirementKind',
  'kyc-level (minimumLevel), classification (classes), investor-category (categories), no-pending-edit-requests, previous-fields-complete or signed-agreement',
);

/** A request member of a vocabulary: validated by the domain, shown as the enum in the document. */
export const vocabularyText = (vocabulary: 'StepType' | 'FieldKind' | 'RequirementKind') =>
  Type.String({ 'x-document': { $ref: `#/components/schemas/${vocabulary}` } });

export const vocabularies = { StepType, FieldKind, RequirementKind };
