// The pure parts of the bulk move dialog (components/BulkMoveDialog.tsx): which investors are
// selected, the default target step, values taken from the table's columns, and a small CSV reader
// for a pasted or dropped column of values.
import type { Card, Workflow } from './api.ts';

export type Selected = Pick<Card, 'investorUserId' | 'fullName' | 'stepId'> & {
  committedAmount?: string | null;
  currency?: string | null;
  email?: string | null;
};

export type Field = Workflow['steps'][number]['stepFields'][number];

/** The step after the one most of the selection stands on (its first link), else the next in order. */
export function defaultTarget(workflow: Workflow, cards: readonly Pick<Card, 'stepId'>[]): string {
  const counts = new Map<string, number>();
  for (const c of cards) counts.set(c.stepId, (counts.get(c.stepId) ?? 0) + 1);
  const common = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const index = workflow.steps.findIndex((s) => s.id === common);
  const step = workflow.steps[index];
  return step?.nextStepLinks[0]?.toStepId ?? workflow.steps[index + 1]?.id ?? workflow.steps.find((s) => s.id !== common)?.id ?? workflow.steps[0]?.id ?? '';
}

/** A value from the table's columns for a field, when the table has one (amount, currency). */
export function fromTable(field: Field, card: Selected): string {
  if (field.kind === 'amount' || /amount/.test(field.fieldKey)) return card.committedAmount ?? '';
  if (field.kind === 'currency' || field.fieldKey === 'currency') return card.currency ?? '';
  return '';
}

/** Rows of a small CSV file (a header, commas, optional double quotes): enough for a column of values. */
export function readCsv(text: string): string[][] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) =>
      (line.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? [])
        .filter((cell, i, all) => i < all.length - 1 || cell !== '')
        .map((cell) =>
          cell
            .replace(/,$/, '')
            .replace(/^"(.*)"$/, '$1')
            .replace(/""/g, '"')
            .trim(),
        ),
    );
}

/** The dry run's answer: how many would move, and why the others would not (grouped by reason). */
export type Preview = { state: 'idle' | 'checking' } | { state: 'ready'; ok: number; reasons: { reason: string; names: string[]; missing: boolean }[] };
