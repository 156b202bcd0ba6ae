// The JSON report of an investor or move import (the synchronous answer, and an import job's).
import { Type } from 'typebox';
import { importOutcomes } from '../../operations/imports.ts';
import { MoveProblem } from '../schemas/moves.ts';

export const RowReportSchema = Type.Object({
  row: Type.Integer({ description: 'data row, from 1' }),
  id: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union(importOutcomes.map((o) => Type.Literal(o))),
  errors: Type.Optional(Type.Array(Type.Object({ in: Type.String(), field: Type.String(), detail: Type.String() }))),
  problem: Type.Optional(MoveProblem),
  eventId: Type.Optional(Type.String()),
  placement: Type.Optional(
    Type.Union([Type.Literal('placed'), Type.Literal('unchanged')], {
      description: 'an investor import with dealId and stepId: placed in the step (eventId), or already there with the same data',
    }),
  ),
  duplicateRows: Type.Optional(
    Type.Array(Type.Integer(), { description: "every data row of the file with this row's e-mail (?duplicates= says which counts)" }),
  ),
});

export const ImportReport = Type.Object({
  dryRun: Type.Boolean(),
  rows: Type.Array(RowReportSchema, { description: 'every row (synchronous answer); an import job keeps only the refused rows, at most 1,000' }),
  summary: Type.Object({
    rows: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer(),
    refused: Type.Integer(),
    placed: Type.Optional(Type.Integer({ description: 'rows placed in the step, or already there (an investor import with dealId and stepId)' })),
    duplicates: Type.Optional(Type.Integer({ description: 'rows whose e-mail is on another row of the file' })),
  }),
  error: Type.Optional(MoveProblem),
});
