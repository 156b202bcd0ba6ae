// A deal's recent activity from its event feed, newest first (GET /console/deals/{dealId}/activity,
// a page at a time: the newest entries, then older ones on request, never the whole feed): moves,
// edits and edit-request decisions, each with who, what and when, linking to the investor. The moves
// of one write (a bulk move, an import) show as one entry with the count the service gives for the
// whole write (never the rows of this page), and a write can be undone from its entry, after a
// confirmation, while the service says its undo would be accepted (`batch.undoable`, POST
// /console/batches/{batchId}/undo).
import { type ReactNode, useEffect, useState } from 'react';
import { type Activity, api, consoleApi, type Workflow } from '../lib/api.ts';
import { describeError } from '../lib/errors.ts';
import { DealHeader } from '../components/DealHeader.tsx';
import { fieldLabel, formatMoney, plural } from '../lib/format.ts';
import { href, useLoad } from '../../../kit/hooks.ts';
import { Person } from '../components/Person.tsx';
import { Empty, ErrorState, FormStatus, Pending, Spinner, When } from '../components/ui.tsx';
import './ActivityPage.css';

/** Entries per page: the newest first, then older ones on request (never the whole feed). */
const PAGE = 50;

type Entry = Activity['output'][number];

/** Entries in order, the moves of one batch of several investors put together at its newest entry. */
function grouped(entries: readonly Entry[]): Entry[][] {
  const groups: Entry[][] = [];
  const byBatch = new Map<string, Entry[]>();
  for (const entry of entries) {
    const batch = entry.batch;
    const group = batch && batch.size > 1 && entry.type === 'journey.step-entered' ? byBatch.get(batch.id) : undefined;
    if (group) group.push(entry);
    else {
      groups.push([entry]);
      if (batch && batch.size > 1 && entry.type === 'journey.step-entered') byBatch.set(batch.id, groups.at(-1)!);
    }
  }
  return groups;
}

function UndoButton({ batch, onDone }: { batch: NonNullable<Entry['batch']>; onDone: () => void }) {
  const [state, setState] = useState<{ busy: boolean; confirming?: boolean; error?: string }>({ busy: false });
  if (!batch.undoable) return null;
  const label = batch.size > 1 ? `Undo all ${batch.size}` : 'Undo';
  const undo = async () => {
    setState({ busy: true, confirming: true });
    try {
      await consoleApi.undoBatch(batch.id);
      onDone();
    } catch (error) {
      setState({ busy: false, confirming: true, error: describeError(error) });
    }
  };
  if (state.confirming) {
    // Asked first: an undo moves every investor of the write back (by new events, itself undoable).
    const who = batch.size > 1 ? `these ${batch.size} investors` : 'this investor';
    return (
      <span className="activity-undo" role="group" aria-label="Confirm the undo">
        <span className="small">Move {who} back to where they were? What the write captured stops counting.</span>
        <button type="button" className="button button-small button-danger" disabled={state.busy} onClick={undo}>
          {state.busy ? 'Undoing…' : `Yes, ${label.toLowerCase()}`}
        </button>
        <button type="button" className="button button-small" disabled={state.busy} onClick={() => setState({ busy: false })}>
          Keep
        </button>
        {state.error && (
          <span className="field-error small" role="alert">
            {state.error}
          </span>
        )}
      </span>
    );
  }
  return (
    <span className="activity-undo">
      <button type="button" className="button button-small" onClick={() => setState({ busy: false, confirming: true })}>
        {label}
      </button>
    </span>
  );
}

export function ActivityPage({ dealId }: { dealId: string }) {
  const [version, setVersion] = useState(0);
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const [activity, reload] = useLoad(() => consoleApi.activity(dealId, undefined, PAGE), [dealId, version]);
  // Older pages, read with the sequence of the last entry shown (GET …/activity?before=).
  const [older, setOlder] = useState<{ entries: Entry[]; hasMore: boolean; loading: boolean; error?: unknown }>();
  useEffect(() => setOlder(undefined), [activity]);
  if (meta.status === 'loading') return <Spinner label="Loading the deal…" />;
  if (meta.status === 'error') return <ErrorState error={meta.error} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const entries: Entry[] = activity.status === 'ready' ? [...activity.value.output, ...(older?.entries ?? [])] : [];
  const hasMore = older ? older.hasMore : activity.status === 'ready' && activity.value.hasMore;
  const showOlder = async () => {
    const last = entries.at(-1);
    if (!last) return;
    setOlder((o) => ({ entries: o?.entries ?? [], hasMore: true, loading: true }));
    try {
      const page = await consoleApi.activity(dealId, last.sequence, PAGE);
      setOlder((o) => ({ entries: [...(o?.entries ?? []), ...page.output], hasMore: page.hasMore, loading: false }));
    } catch (error) {
      setOlder((o) => ({ entries: o?.entries ?? [], hasMore: true, loading: false, error }));
    }
  };
  const step = (id: unknown) => (typeof id === 'string' ? (workflow.steps.find((s) => s.id === id)?.label ?? id) : 'start');

  return (
    <section aria-labelledby="activity-title">
      <DealHeader dealId={dealId} name={deal.name} view="activity" />
      <div className="toolbar">
        <h2 id="activity-title" className="toolbar-title">
          Recent activity
        </h2>
        <button type="button" className="button" onClick={() => setVersion((v) => v + 1)}>
          Refresh
        </button>
      </div>
      <Pending state={activity} retry={reload} label="Reading the event feed…" />
      {activity.status === 'ready' && entries.length === 0 && <Empty title="No activity yet">Moves, edits and decisions appear here.</Empty>}
      {activity.status === 'ready' && entries.length > 0 && (
        <>
          <p className="muted small">The {plural(entries.length, 'latest event')}, newest first.</p>
          <ol className="activity">
            {grouped(entries).map((group) => {
              const entry = group[0]!;
              // The whole write's count, from the service: its entries may run onto older pages.
              const count = Math.max(entry.batch?.size ?? group.length, group.length);
              const data = entry.data as Record<string, any>;
              const investorId = String(data.investorUserId ?? '');
              const investor = <a href={href('deals', dealId, 'investors', investorId)}>{entry.investorName ?? investorId}</a>;
              let who: string | undefined;
              let what: ReactNode;
              switch (entry.type) {
                case 'journey.step-entered': {
                  who = data.event?.createdByUserId;
                  const kind = entry.batch?.kind === 'undo' ? 'undid a move, moving' : 'moved';
                  if (count > 1) {
                    const froms = [...new Set(group.map((e) => step((e.data as Record<string, unknown>).fromStepId)))];
                    const tos = [...new Set(group.map((e) => step((e.data as Record<string, unknown>).toStepId)))];
                    const source = entry.batch?.kind === 'import' ? ' by an import' : '';
                    what = (
                      <>
                        {kind} {plural(count, 'investor')}
                        {source} from {froms.join(', ')} to {tos.join(', ')}
                        <details className="activity-batch">
                          <summary>Who</summary>
                          <ul>
                            {group.map((e) => {
                              const id = String((e.data as Record<string, unknown>).investorUserId ?? '');
                              return (
                                <li key={e.id}>
                                  <a href={href('deals', dealId, 'investors', id)}>{e.investorName ?? id}</a>
                                </li>
                              );
                            })}
                            {count > group.length && <li className="muted">and {count - group.length} more among the older events</li>}
                          </ul>
                        </details>
                      </>
                    );
                  } else {
                    what = (
                      <>
                        {kind} {investor} from {step(data.fromStepId)} to {step(data.toStepId)}
                      </>
                    );
                  }
                  break;
                }
                case 'event.edited':
                  who = data.editedByUserId;
                  what = (
                    <>
                      edited {investor}’s data at {step(data.stepId)}
                      {changedKeys(data.oldData, data.newData, workflow, deal.currency)}
                    </>
                  );
                  break;
                case 'edit-request.created':
                  who = data.editRequest?.createdByUserId;
                  what = (
                    <>
                      asked for a change for {investor}: {data.editRequest?.type} (“{data.editRequest?.reason}”)
                    </>
                  );
                  break;
                case 'edit-request.approved':
                case 'edit-request.rejected':
                  who = data.decidedByUserId;
                  what = (
                    <>
                      {entry.type.endsWith('approved') ? 'approved' : 'rejected'} {investor}’s {data.editRequest?.type} request
                      {data.editRequest?.decisionReason ? ` (“${data.editRequest.decisionReason}”)` : ''}
                    </>
                  );
                  break;
                default:
                  what = entry.type;
              }
              return (
                <li key={entry.id} className="activity-item" data-type={entry.type} data-batch-size={count}>
                  <span className="activity-who">{who ? <Person id={who} /> : 'Someone'}</span> {what}
                  <div className="muted small">
                    <When iso={entry.timestamp} />
                    {entry.batch?.undoneBy && ' · undone'}
                  </div>
                  {entry.type === 'journey.step-entered' && entry.batch && <UndoButton batch={entry.batch} onDone={() => setVersion((v) => v + 1)} />}
                </li>
              );
            })}
          </ol>
          <FormStatus error={older?.error} />
          {hasMore && (
            <div className="row-actions">
              <button type="button" className="button" disabled={older?.loading} onClick={showOlder}>
                {older?.loading ? 'Reading…' : 'Show older events'}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function changedKeys(before: unknown, after: unknown, workflow: Workflow, dealCurrency: string | null) {
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object') return null;
  const old = before as Record<string, unknown>;
  const next = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].filter((k) => old[k] !== next[k]);
  if (keys.length === 0) return null;
  // Field labels, not keys; amounts with their currency (the event's, else the deal's).
  const fields = new Map(workflow.steps.flatMap((s) => s.stepFields.map((f) => [f.fieldKey, f] as const)));
  const show = (key: string, data: Record<string, unknown>) => {
    const value = data[key];
    if (value === undefined || value === null || value === '') return '—';
    const currency = typeof data.currency === 'string' ? data.currency : dealCurrency;
    return fields.get(key)?.kind === 'amount' && typeof value === 'string' ? formatMoney(value, currency) : String(value);
  };
  return `: ${keys.map((k) => `${fieldLabel(fields.get(k) ?? { fieldKey: k })} ${show(k, old)} → ${show(k, next)}`).join(', ')}`;
}
