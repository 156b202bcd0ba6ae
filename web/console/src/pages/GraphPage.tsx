// The deal's workflow as a graph, with the number of investors and the committed total per step;
// a step's name opens the board filtered to that step.
import { api } from '../lib/api.ts';
import { DealHeader } from '../components/DealHeader.tsx';
import { plural } from '../lib/format.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { Empty, ErrorState, Spinner } from '../components/ui.tsx';
import { WorkflowGraph } from '../components/WorkflowGraph.tsx';
import './GraphPage.css';

export function GraphPage({ dealId }: { dealId: string }) {
  const [data, reload] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId), api.board(dealId, '')]), [dealId]);
  if (data.status === 'loading') return <Spinner label="Loading the workflow…" />;
  if (data.status === 'error') return <ErrorState error={data.error} retry={reload} />;
  const [deal, workflow, board] = data.value;
  const columns = new Map(board.columns.map((c) => [c.stepId, c]));

  return (
    <section aria-labelledby="graph-title">
      <DealHeader dealId={dealId} name={deal.name} view="graph" />
      <div className="toolbar">
        <span className="muted" id="graph-title">
          {workflow.label || 'Workflow'} · {plural(workflow.steps.length, 'step')} · {plural(board.total, 'investor')}
        </span>
        <span className="legend muted small">
          <span className="badge badge-blue">field kind</span> <span className="required">*</span> required{' '}
          <span className="badge badge-amber">requirements</span> <span className="badge badge-violet">form</span>{' '}
          <span className="badge badge-green">trigger</span>
        </span>
      </div>
      {workflow.steps.length === 0 ? (
        <Empty title="This deal has no workflow yet">
          <a href={`#/deals/${encodeURIComponent(dealId)}/workflow`}>Set up its workflow</a>.
        </Empty>
      ) : (
        <WorkflowGraph
          steps={workflow.steps}
          label={`Workflow graph of ${deal.name}`}
          columns={columns}
          stepHref={(stepId) => `#/deals/${encodeURIComponent(dealId)}?step=${encodeURIComponent(stepId)}`}
        />
      )}
    </section>
  );
}
