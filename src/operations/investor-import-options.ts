// The options of an investor import, as POST /investors/import takes them in its query and
// `dealflow import investors` as flags (docs/reference/imports.md): the column map, the forms the
// file is written in (separator, numbers, dates), what rows with the same e-mail do, and the step
// the rows are placed in. Checked before any row is read: a 400 names the option at fault, a deal
// or step that does not exist is a 404.
import { AppError, type FieldError, notFound } from '../domain/errors.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { type DateStyle, type NumberStyle, type SeparatorName, separatorNames } from '../domain/written-forms.ts';
import type { FieldKind } from '../domain/workflow.ts';
import { getDeal } from './deals.ts';
import type { Deps } from './deps.ts';
import type { Placement } from './imports.ts';
import { dataKeyOf, parseColumnMap } from './import-readers/column-map.ts';
import type { DuplicatePolicy } from './import-readers/duplicates.ts';
import type { InvestorFileOptions } from './import-readers/rows.ts';
import { loadWorkflow } from './workflows.ts';

export interface InvestorImportQuery {
  columns?: string;
  separator?: SeparatorName;
  numbers?: NumberStyle;
  dates?: DateStyle;
  duplicates?: DuplicatePolicy;
  dealId?: string;
  stepId?: string;
}

/** The reader's options and the placement; `name` spells an option as the caller wrote it (`columns`, `--columns`). */
export async function investorImportOptions(
  deps: Deps,
  principal: Principal,
  query: InvestorImportQuery,
  name: (option: keyof InvestorImportQuery) => string = (option) => option,
  where: FieldError['in'] = 'query',
): Promise<{ reader: InvestorFileOptions; placement?: Placement }> {
  const columns = query.columns === undefined ? undefined : parseColumnMap(query.columns, name('columns'));
  const reader: InvestorFileOptions = {
    ...(columns ? { columns } : {}),
    ...(query.separator ? { separator: separatorNames[query.separator] } : {}),
    ...(query.numbers ? { numbers: query.numbers } : {}),
    ...(query.dates ? { dates: query.dates } : {}),
    ...(query.duplicates ? { duplicates: query.duplicates } : {}),
  };
  const dataColumns = Object.entries(columns ?? {}).flatMap(([header, target]) => {
    const key = dataKeyOf(target);
    return key === undefined ? [] : [{ header, key }];
  });
  const refuse = (option: keyof InvestorImportQuery, detail: string) => {
    throw new AppError('validation', `${name(option)} ${detail}`, { errors: [{ in: where, field: name(option), detail }] });
  };
  if (query.stepId !== undefined && query.dealId === undefined) refuse('dealId', 'is needed with a step to place the rows in');
  if (query.dealId === undefined) {
    if (dataColumns.length > 0)
      refuse('dealId', `and a step are needed for the columns mapped to step fields (${dataColumns.map((c) => c.header).join(', ')})`);
    return { reader };
  }
  if (!isStaff(principal)) throw new AppError('forbidden', 'Only staff import investors');
  const deal = await getDeal(deps, query.dealId);
  const workflow = (await loadWorkflow(deps, query.dealId))?.workflow;
  if (query.stepId === undefined) refuse('stepId', 'is needed with a deal: the step the rows are placed in');
  const step = workflow?.steps.find((s) => s.id === query.stepId);
  if (!step) throw notFound('step', query.stepId!);
  const fields = new Map<string, FieldKind>(step.stepFields.map((f) => [f.fieldKey, f.kind]));
  const unknown = dataColumns.filter((c) => !fields.has(c.key));
  if (unknown.length > 0) {
    throw new AppError(
      'validation',
      `The column map names fields that are not fields of step ${JSON.stringify(step.id)}: ${unknown.map((c) => c.key).join(', ')}`,
      {
        errors: unknown.map((c) => ({ in: where, field: `${name('columns')}.${c.header}`, detail: `data.${c.key} is not a field of step ${step.id}` })),
      },
    );
  }
  // A file with amounts but no currency column: its currency fields get the deal's currency.
  const given = new Set(dataColumns.map((c) => c.key));
  const hasAmount = dataColumns.some((c) => fields.get(c.key) === 'amount');
  const fill =
    hasAmount && deal.currency
      ? Object.fromEntries(step.stepFields.filter((f) => f.kind === 'currency' && !given.has(f.fieldKey)).map((f) => [f.fieldKey, deal.currency!]))
      : {};
  return { reader: { ...reader, fields, fill }, placement: { dealId: query.dealId, stepId: step.id } };
}
