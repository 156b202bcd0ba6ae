// Move the selected investors to one step. The dialog checks before it submits: a moment after the
// operator stops typing it sends the whole selection as a dry run (POST …/jump-to-step/bulk?dryRun=true,
// nothing written) and shows how many would move and why the others would not, in step and field
// labels. A field's value is the same for everyone or per investor (typed, filled from the table's
// columns, pasted as a column, or read from a CSV file). Required values missing block the submit.
// The target defaults to the step after the one most of the selection stands on. A move that
// passes over steps says which, and that their requirements are not checked (the jump rules check
// the target's only). Investors of one name are told apart by their e-mail.
import { StepOptions } from './SelectOptions.tsx';
import { useEffect, useMemo, useState, type ChangeEvent, type FormEvent } from 'react';
import { ApiError, call, type Workflow } from '../lib/api.ts';
import { defaultTarget, type Field, fromTable, type Preview, readCsv, type Selected } from '../lib/bulk-move-form.ts';
import { moveMany, type MoveResult } from '../lib/bulk.ts';
import { describeError } from '../lib/errors.ts';
import { fieldLabel, plural } from '../lib/format.ts';
import { useModal, useSubmission } from '../../../kit/hooks.ts';
import { FieldInput } from './FieldInput.tsx';
import { checkValue } from '../lib/field-values.ts';
import { passedOver } from '../lib/passed-over.ts';
import { BulkCheck, BulkMoveResults } from './BulkCheck.tsx';
import { FormStatus } from './ui.tsx';
import './BulkMoveDialog.css';

interface Props {
  dealId: string;
  dealCurrency: string | null;
  workflow: Workflow;
  cards: Selected[];
  onClose: (moved: boolean, batchId?: string) => void;
}

export function BulkMoveDialog({ dealId, dealCurrency, workflow, cards, onClose }: Props) {
  const dialog = useModal();
  const nameOf = (c: Selected) => (cards.some((o) => o !== c && o.fullName === c.fullName) ? `${c.fullName} (${c.email ?? c.investorUserId})` : c.fullName);
  const [targetId, setTargetId] = useState(() => defaultTarget(workflow, cards));
  const [values, setValues] = useState<Record<string, string>>({});
  /** Per field key in per-investor mode: investor id → value. */
  const [perInvestor, setPerInvestor] = useState<Record<string, Record<string, string>>>({});
  const [paste, setPaste] = useState<Record<string, string>>({});
  const [progress, setProgress] = useState<number>();
  const [results, setResults] = useState<MoveResult[]>();
  const [preview, setPreview] = useState<Preview>({ state: 'idle' });
  const [fileNote, setFileNote] = useState<string>();
  const { error, run } = useSubmission();
  const target = workflow.steps.find((s) => s.id === targetId);
  const fields = target?.stepFields ?? [];

  const allFields = useMemo(() => workflow.steps.flatMap((s) => s.stepFields), [workflow]);
  const labelOfField = (key: string) => {
    const f = allFields.find((x) => x.fieldKey === key);
    return f ? fieldLabel(f) : key;
  };
  /** The service's words with step and field ids put as their labels. */
  const humanize = (text: string) => {
    let out = text;
    for (const s of [...workflow.steps].sort((a, b) => b.id.length - a.id.length)) out = out.split(`"${s.id}"`).join(`“${s.label}”`).split(s.id).join(s.label);
    for (const f of allFields) out = out.split(`"${f.fieldKey}"`).join(`“${fieldLabel(f)}”`);
    return out;
  };

  const fieldValueOf = (field: Field, card: Selected) =>
    perInvestor[field.fieldKey] ? (perInvestor[field.fieldKey]![card.investorUserId] ?? '') : (values[field.fieldKey] ?? '');
  const problems: string[] = [];
  for (const field of fields) {
    for (const card of perInvestor[field.fieldKey] ? cards : cards.slice(0, 1)) {
      const p = checkValue(field, fieldValueOf(field, card));
      if (p) problems.push(`${fieldLabel(field)}${perInvestor[field.fieldKey] ? ` of ${card.fullName}` : ''}: ${p}`);
    }
  }
  const moves = cards.map((c) => ({
    investorUserId: c.investorUserId,
    targetStepId: targetId,
    data: Object.fromEntries(fields.map((f) => [f.fieldKey, fieldValueOf(f, c)]).filter(([, v]) => v !== '')),
    expectedCurrentStepId: c.stepId,
  }));
  const key = problems.length === 0 && target ? JSON.stringify(moves) : '';

  // The dry run of the whole selection, a moment after the last keystroke.
  useEffect(() => {
    if (!key) {
      setPreview({ state: 'idle' });
      return;
    }
    let live = true;
    setPreview({ state: 'checking' });
    const timer = setTimeout(() => {
      type Item = { status: number; problem?: { detail?: string; missingFields?: string[]; failedRequirements?: { detail?: string }[]; status?: number } };
      call<{ results: Item[] }>('POST', `/deals/deal/${encodeURIComponent(dealId)}/jump-to-step/bulk?dryRun=true`, {
        moves: JSON.parse(key),
        atomic: false,
      }).then(
        ({ results: items }) => {
          if (!live) return;
          const groups = new Map<string, { reason: string; names: string[]; missing: boolean }>();
          let ok = 0;
          items.forEach((item, i) => {
            if (item.status === 201) {
              ok++;
              return;
            }
            const p = item.problem ?? {};
            const missing = Array.isArray(p.missingFields) && p.missingFields.length > 0;
            const reason = missing
              ? `${p.missingFields!.map(labelOfField).join(', ')} required and not given`
              : Array.isArray(p.failedRequirements) && p.failedRequirements.length > 0
                ? humanize(p.failedRequirements.map((f) => f.detail ?? '').join('; '))
                : humanize(describeError(new ApiError(item.status, p as Record<string, unknown>)));
            const group = groups.get(reason) ?? { reason, names: [], missing };
            group.names.push(cards[i] ? nameOf(cards[i]) : '');
            groups.set(reason, group);
          });
          setPreview({ state: 'ready', ok, reasons: [...groups.values()] });
        },
        () => live && setPreview({ state: 'idle' }),
      );
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `key` stands for the moves.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dealId, key]);

  const missing = preview.state === 'ready' ? preview.reasons.filter((r) => r.missing) : [];
  const blocked = problems.length > 0 || missing.length > 0 || (preview.state === 'ready' && preview.ok === 0) || preview.state !== 'ready';

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!target || blocked) return;
    setProgress(0);
    await run(async () => {
      setResults(await moveMany(dealId, moves, setProgress));
    });
    setProgress(undefined);
  }

  const setMode = (field: Field, each: boolean) =>
    setPerInvestor((all) => {
      const next = { ...all };
      if (each) next[field.fieldKey] = Object.fromEntries(cards.map((c) => [c.investorUserId, values[field.fieldKey] || fromTable(field, c)]));
      else delete next[field.fieldKey];
      return next;
    });
  const setOne = (field: Field, investorUserId: string, v: string) =>
    setPerInvestor((all) => ({ ...all, [field.fieldKey]: { ...all[field.fieldKey], [investorUserId]: v } }));
  const fillFromTable = (field: Field) =>
    setPerInvestor((all) => ({
      ...all,
      [field.fieldKey]: Object.fromEntries(cards.map((c) => [c.investorUserId, fromTable(field, c) || (all[field.fieldKey]?.[c.investorUserId] ?? '')])),
    }));
  const applyPaste = (field: Field) => {
    const lines = (paste[field.fieldKey] ?? '').split(/\r?\n/).map((l) => l.trim());
    setPerInvestor((all) => ({
      ...all,
      [field.fieldKey]: Object.fromEntries(cards.map((c, i) => [c.investorUserId, lines[i] ?? all[field.fieldKey]?.[c.investorUserId] ?? ''])),
    }));
  };
  async function readFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const [header = [], ...rows] = readCsv(await file.text());
    const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
    const idCol = header.findIndex((h) => ['investoruserid', 'id', 'investorid'].includes(norm(h)));
    const emailCol = header.findIndex((h) => ['email', 'emailaddress'].includes(norm(h)));
    const nameCol = header.findIndex((h) => ['name', 'fullname'].includes(norm(h)));
    const find = (row: string[]) =>
      cards.find(
        (c) =>
          (idCol >= 0 && row[idCol] === c.investorUserId) ||
          (emailCol >= 0 && c.email && row[emailCol]?.toLowerCase() === c.email.toLowerCase()) ||
          (nameCol >= 0 && row[nameCol] === c.fullName),
      );
    const used: string[] = [];
    let matched = 0;
    const next = { ...perInvestor };
    for (const field of fields) {
      const col = header.findIndex(
        (h) => norm(h) === norm(field.fieldKey) || norm(h) === norm(fieldLabel(field)) || (field.kind === 'amount' && norm(h) === 'amount'),
      );
      if (col < 0) continue;
      used.push(fieldLabel(field));
      next[field.fieldKey] = { ...(next[field.fieldKey] ?? Object.fromEntries(cards.map((c) => [c.investorUserId, values[field.fieldKey] ?? '']))) };
      for (const row of rows) {
        const card = find(row);
        if (card) next[field.fieldKey]![card.investorUserId] = row[col] ?? '';
      }
    }
    matched = rows.filter((r) => find(r)).length;
    setPerInvestor(next);
    setFileNote(
      used.length === 0
        ? `${file.name}: no column named after a field of ${target?.label}`
        : `${file.name}: ${used.join(', ')} for ${plural(matched, 'investor')} of ${rows.length} rows`,
    );
    event.target.value = '';
  }

  const name = (id: string) => {
    const card = cards.find((c) => c.investorUserId === id);
    return card ? nameOf(card) : id;
  };
  // Steps the move passes over for anyone of the selection, in the workflow's order.
  const skipped = workflow.steps.filter((s) => cards.some((c) => passedOver(workflow, c.stepId, targetId).some((p) => p.id === s.id)));
  const moved = results?.filter((r) => r.ok).length ?? 0;
  const close = () => onClose(moved > 0);

  return (
    <dialog ref={dialog} className="dialog bulk-dialog" aria-labelledby="bulk-title" onCancel={close} onClose={close}>
      {results ? (
        <BulkMoveResults
          results={results}
          count={cards.length}
          targetLabel={target?.label}
          nameOf={name}
          explain={humanize}
          onDone={() => dialog.current?.close()}
        />
      ) : (
        <form onSubmit={submit} noValidate>
          <header className="dialog-head">
            <h2 id="bulk-title">Move {plural(cards.length, 'investor')}</h2>
            <p className="muted small">Checked with the service as you type; each investor is moved on their own.</p>
          </header>
          <div className="dialog-body">
            <label className="field">
              <span className="field-label">Target step</span>
              <select name="targetStepId" value={targetId} onChange={(e) => setTargetId(e.target.value)}>
                <StepOptions steps={workflow.steps} />
              </select>
            </label>
            {fields.map((field) => {
              const id = `bulk-field-${field.fieldKey}`;
              const each = !!perInvestor[field.fieldKey];
              return (
                <fieldset className="bulk-field" key={field.fieldKey}>
                  <legend className="field-label">
                    {fieldLabel(field)}
                    {field.required && <span className="required"> (required)</span>}
                  </legend>
                  <div className="bulk-mode" role="radiogroup" aria-label={`${fieldLabel(field)}: values`}>
                    <label>
                      <input type="radio" name={`mode-${field.fieldKey}`} checked={!each} onChange={() => setMode(field, false)} /> Same for all
                    </label>
                    <label>
                      <input type="radio" name={`mode-${field.fieldKey}`} checked={each} onChange={() => setMode(field, true)} /> Per investor
                    </label>
                  </div>
                  {!each ? (
                    <>
                      <label htmlFor={id} className="visually-hidden">
                        {fieldLabel(field)} for all
                      </label>
                      <FieldInput
                        id={id}
                        field={field}
                        value={values[field.fieldKey] ?? ''}
                        invalid={false}
                        dealCurrency={dealCurrency}
                        onChange={(v) => setValues((all) => ({ ...all, [field.fieldKey]: v }))}
                      />
                    </>
                  ) : (
                    <>
                      <div className="bulk-tools">
                        {cards.some((c) => fromTable(field, c) !== '') && (
                          <button type="button" className="button button-small" onClick={() => fillFromTable(field)}>
                            Fill from the table
                          </button>
                        )}
                      </div>
                      <ul className="bulk-values" aria-label={`${fieldLabel(field)} per investor`}>
                        {cards.map((c) => {
                          const vid = `${id}-${c.investorUserId}`;
                          return (
                            <li key={c.investorUserId}>
                              <label htmlFor={vid}>{nameOf(c)}</label>
                              <FieldInput
                                id={vid}
                                field={field}
                                value={perInvestor[field.fieldKey]![c.investorUserId] ?? ''}
                                invalid={!!checkValue(field, perInvestor[field.fieldKey]![c.investorUserId] ?? '')}
                                dealCurrency={dealCurrency}
                                onChange={(v) => setOne(field, c.investorUserId, v)}
                              />
                            </li>
                          );
                        })}
                      </ul>
                      <details className="bulk-paste">
                        <summary>Paste a column</summary>
                        <label className="field">
                          <span className="field-label">One value a line, in the order above</span>
                          <textarea
                            rows={4}
                            value={paste[field.fieldKey] ?? ''}
                            onChange={(e) => setPaste((all) => ({ ...all, [field.fieldKey]: e.target.value }))}
                          />
                        </label>
                        <button type="button" className="button button-small" onClick={() => applyPaste(field)}>
                          Use pasted values
                        </button>
                      </details>
                    </>
                  )}
                </fieldset>
              );
            })}
            {fields.length > 0 && (
              <label className="field">
                <span className="field-label">Values from a CSV file</span>
                <input type="file" accept=".csv,text/csv" onChange={(e) => void readFile(e)} />
                <span className="muted small">A column naming the investor (id, email or name) and one per field (key or label).</span>
                {fileNote && (
                  <span className="small" role="status">
                    {fileNote}
                  </span>
                )}
              </label>
            )}
            {progress !== undefined && (
              <div className="progress" role="status">
                <progress max={cards.length} value={progress} aria-label="Moves done" /> {progress} of {cards.length}
              </div>
            )}
            <FormStatus error={error} />
          </div>
          <footer className="dialog-foot">
            <BulkCheck skipped={skipped} problems={problems} preview={preview} count={cards.length} targetLabel={target?.label} missing={missing.length > 0} />
            <button type="button" className="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className="button button-primary" disabled={progress !== undefined || blocked}>
              Move {plural(cards.length, 'investor')} to {target?.label ?? '…'}
            </button>
          </footer>
        </form>
      )}
    </dialog>
  );
}
