// The pipeline board of one deal: a column per step in workflow order, a card per investor.
// Columns are virtualised and load their cards a page at a time from the rows endpoint, with the
// view's filters and sort (kept in the URL), so a deal of 10,000 investors renders a few dozen
// cards at any moment. Cards can be selected and moved together; the last move can be undone. On a
// phone it shows one step at a time, chosen with a step switcher, unless asked for every column.
import { useCallback, useState } from 'react';
import { api, consoleApi, type Card, type Workflow } from '../lib/api.ts';
import { BulkMoveDialog } from '../components/BulkMoveDialog.tsx';
import { PortalInviteDialog } from '../components/PortalInviteDialog.tsx';
import { DealHeader } from '../components/DealHeader.tsx';
import { SelectionBar, ViewToolbar } from '../components/ViewToolbar.tsx';
import { usePhoneBoard } from '../lib/board-layout.ts';
import { useFilteredView } from '../lib/filters.ts';
import { navigate, PHONE, useLoad, useMedia } from '../../../kit/hooks.ts';
import { useLiveFeed } from '../lib/live.ts';
import { LiveNote } from '../components/LiveNote.tsx';
import { InvestorDrawer } from '../components/InvestorDrawer.tsx';
import { MoveDialog } from '../components/MoveDialog.tsx';
import { UndoToast, type LastMove } from '../components/UndoToast.tsx';
import { Empty, ErrorState, Spinner } from '../components/ui.tsx';
import { Column } from '../components/BoardColumn.tsx';
import './BoardPage.css';

interface MoveRequest {
  card: Card;
  targetStepId?: string;
}

export function BoardPage({ dealId, investorUserId }: { dealId: string; investorUserId: string | undefined }) {
  const view = useFilteredView();
  const { params, key: paramsKey, filtered } = view;
  const [version, setVersion] = useState(0);
  const [move, setMove] = useState<MoveRequest>();
  const [lastMove, setLastMove] = useState<LastMove>();
  const [selected, setSelected] = useState<Map<string, Card>>(() => new Map());
  const [bulk, setBulk] = useState(false);
  const [inviting, setInviting] = useState(false);
  // On a phone the board shows one step at a time, chosen with the step switcher; "All steps" brings
  // back every column side by side, scrolling sideways (kept in this browser).
  const small = useMedia(PHONE);
  const [phoneLayout, setPhoneLayout] = usePhoneBoard();
  const phone = small && phoneLayout === 'one-step';
  const [phoneStepId, setPhoneStepId] = useState<string>();
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const [overall] = useLoad(() => consoleApi.rows(dealId, { ...params, limit: 1 }), [dealId, paramsKey, version]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  const live = useLiveFeed(dealId, refresh);
  const openInvestor = (id: string) => navigate('deals', dealId, 'investors', id);
  const closeInvestor = () => {
    const query = location.hash.split('?')[1];
    location.hash = `#/deals/${encodeURIComponent(dealId)}${query ? `?${query}` : ''}`;
  };
  const toggle = (card: Card) =>
    setSelected((current) => {
      const next = new Map(current);
      if (next.has(card.investorUserId)) next.delete(card.investorUserId);
      else next.set(card.investorUserId, card);
      return next;
    });

  if (meta.status === 'loading') return <Spinner label="Loading the deal…" />;
  if (meta.status === 'error') return <ErrorState error={meta.error} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const total = overall.status === 'ready' ? overall.value.total : undefined;
  const shownStepId = workflow.steps.some((s) => s.id === phoneStepId) ? phoneStepId : workflow.steps[0]?.id;

  return (
    <section className="board-page" aria-labelledby="board-title">
      <DealHeader dealId={dealId} name={deal.name} view="board" />
      <LiveNote move={live} stepLabel={(id) => workflow.steps.find((s) => s.id === id)?.label} />
      <ViewToolbar view={view} dealId={dealId} dealName={deal.name} workflow={workflow} total={total} titleId="board-title">
        <a className="button" href={`#/investors/import?deal=${encodeURIComponent(dealId)}`}>
          Import investors
        </a>
      </ViewToolbar>
      <SelectionBar count={selected.size} onMove={() => setBulk(true)} onInvite={() => setInviting(true)} onClear={() => setSelected(new Map())} />
      {lastMove && <UndoToast move={lastMove} onDone={() => (setLastMove(undefined), refresh())} onUndone={refresh} />}
      {workflow.steps.length === 0 ? (
        <Empty title="This deal has no workflow yet">
          <a href={`#/deals/${encodeURIComponent(dealId)}/workflow`}>Set up its workflow</a> to start placing investors.
        </Empty>
      ) : (
        <>
          {small &&
            !params.stepId &&
            (phone ? (
              <StepSwitcher workflow={workflow} stepId={shownStepId} onStep={setPhoneStepId} onAll={() => setPhoneLayout('all-steps')} />
            ) : (
              <div className="step-switcher">
                <button type="button" className="button" onClick={() => setPhoneLayout('one-step')}>
                  One step at a time
                </button>
              </div>
            ))}
          <div className={phone ? 'board board-one' : 'board'} role="list" aria-label="Steps" tabIndex={phone ? undefined : 0}>
            {workflow.steps
              .filter((step) => (params.stepId ? step.id === params.stepId : !phone || step.id === shownStepId))
              .map((step) => (
                <Column
                  key={`${step.id}:${paramsKey}:${version}`}
                  dealId={dealId}
                  step={step}
                  params={params}
                  filtered={!!filtered}
                  selected={selected}
                  onToggle={toggle}
                  onOpen={openInvestor}
                  onMove={(card, targetStepId) => setMove({ card, ...(targetStepId ? { targetStepId } : {}) })}
                  workflow={workflow}
                />
              ))}
          </div>
        </>
      )}
      {move && (
        <MoveDialog
          dealId={dealId}
          dealCurrency={deal.currency}
          workflow={workflow}
          card={move.card}
          initialTargetStepId={move.targetStepId}
          onClose={() => setMove(undefined)}
          onMoved={(target, event) => {
            setMove(undefined);
            setLastMove({
              eventId: event.id,
              investorUserId: move.card.investorUserId,
              fullName: move.card.fullName,
              fromStepId: move.card.stepId,
              toStepId: target.id,
              workflow,
            });
            refresh();
          }}
        />
      )}
      {inviting && <PortalInviteDialog investors={[...selected.values()]} onClose={() => setInviting(false)} />}
      {bulk && (
        <BulkMoveDialog
          dealId={dealId}
          dealCurrency={deal.currency}
          workflow={workflow}
          cards={[...selected.values()]}
          onClose={(moved) => {
            setBulk(false);
            if (moved) {
              setSelected(new Map());
              refresh();
            }
          }}
        />
      )}
      {investorUserId && (
        <InvestorDrawer
          dealId={dealId}
          investorUserId={investorUserId}
          workflow={workflow}
          version={version}
          onClose={closeInvestor}
          onChanged={refresh}
          onMove={(card) => setMove({ card })}
        />
      )}
    </section>
  );
}

/** The phone's step switcher: the previous and next step on either side of a list of every step. */
function StepSwitcher({
  workflow,
  stepId,
  onStep,
  onAll,
}: {
  workflow: Workflow;
  stepId: string | undefined;
  onStep: (id: string) => void;
  onAll: () => void;
}) {
  const index = workflow.steps.findIndex((s) => s.id === stepId);
  const previous = workflow.steps[index - 1];
  const next = workflow.steps[index + 1];
  return (
    <div className="step-switcher" role="group" aria-label="Step shown">
      <button
        type="button"
        className="button"
        disabled={!previous}
        onClick={() => previous && onStep(previous.id)}
        aria-label={previous ? `Previous step: ${previous.label}` : 'No previous step'}
      >
        ‹
      </button>
      <label className="step-switcher-select">
        <span className="visually-hidden">Step</span>
        <select value={stepId} onChange={(e) => onStep(e.target.value)}>
          {workflow.steps.map((s, i) => (
            <option key={s.id} value={s.id}>
              {i + 1}/{workflow.steps.length} · {s.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="button"
        disabled={!next}
        onClick={() => next && onStep(next.id)}
        aria-label={next ? `Next step: ${next.label}` : 'No next step'}
      >
        ›
      </button>
      <button type="button" className="button" onClick={onAll}>
        All steps
      </button>
    </div>
  );
}
