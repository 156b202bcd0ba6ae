// The JSON report of an investor or move import (the synchronous answer, and an import job's).
import { Type } from 'typebox';
import { importOutcomes } from '../../operations/imports.ts';
import { MoveProblem } from './bulk-moves.ts';

export const RowReportSchema = Type.Object({
  row: Type.Integer({ description: 'data row, from 1' }),
  id: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union(importOutcomes.map((o) => Type.Literal(o))),
  errors: Type.Optional(Type.Array(Type.Object({ in: Type.String(), field: Type.String(), detail: Type.String() }))),
  problem: Type.Optional(MoveProblem),
  eventId: Type.Optional(Type.String()),
});

export const ImportReport = Type.Object({
  dryRun: Type.Boolean(),
  rows: Type.Array(RowReportSchema, { description: 'every row (synchronous answer); an import job keeps only the refused rows, at most 1,000' }),
  summary: Type.Object({ rows: Type.Integer(), created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), refused: Type.Integer() }),
  error: Type.Optional(MoveProblem),
});
