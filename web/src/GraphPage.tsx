// The deal's workflow as a graph, laid out by dagre (left to right), with each step's fields,
// requirements, form and triggers as badges and the number of investors standing on it.
import dagre from '@dagrejs/dagre';
import { useMemo } from 'react';
import { api, type Step, type Workflow } from './api.ts';
import { DealHeader } from './BoardPage.tsx';
import { fieldLabel, formatTotals, plural } from './format.ts';
import { useLoad } from './hooks.ts';
import { describeRequirement } from './MoveDialog.tsx';
import { Empty, ErrorState, Spinner } from './ui.tsx';

const NODE_WIDTH = 220;
const MAX_FIELDS = 4;
/** Height of a node: title and totals, a line per field (up to MAX_FIELDS), and a row of badges. */
const nodeHeight = (step: Step) => {
  const badges = (step.requirements ?? []).length + (step.formId ? 1 : 0) + (triggersOf(step).length > 0 ? 1 : 0);
  return 72 + Math.min(step.stepFields.length, MAX_FIELDS + 1) * 20 + (badges === 0 ? 0 : badges === 1 ? 30 : 56);
};
const triggersOf = (step: Step) => step.workflowCustomStepTriggers ?? [];
const hasBadges = (step: Step) => (step.requirements ?? []).length > 0 || !!step.formId || triggersOf(step).length > 0;

interface Placed {
  step: Step;
  x: number;
  y: number;
  height: number;
}

function layout(workflow: Workflow) {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const step of workflow.steps) graph.setNode(step.id, { width: NODE_WIDTH, height: nodeHeight(step) });
  for (const step of workflow.steps) for (const link of step.nextStepLinks) graph.setEdge(link.fromStepId, link.toStepId);
  dagre.layout(graph);
  const nodes: Placed[] = workflow.steps.map((step) => {
    const node = graph.node(step.id);
    const height = nodeHeight(step);
    return { step, x: node.x - NODE_WIDTH / 2, y: node.y - height / 2, height };
  });
  const edges = graph.edges().map((e) => ({ id: `${e.v}->${e.w}`, points: graph.edge(e).points ?? [] }));
  const { width = 0, height = 0 } = graph.graph();
  return { nodes, edges, width, height };
}

const path = (points: { x: number; y: number }[]) =>
  points.length === 0 ? '' : `M${points[0]!.x},${points[0]!.y}` + points.slice(1).map((p) => ` L${p.x},${p.y}`).join('');

export function GraphPage({ dealId }: { dealId: string }) {
  const [data, reload] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId), api.board(dealId, '')]), [dealId]);
  const placed = useMemo(() => (data.status === 'ready' ? layout(data.value[1]) : undefined), [data]);

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
          <span className="badge badge-blue">field kind</span> <span className="required">*</span> required <span className="badge badge-amber">requirements</span> <span className="badge badge-violet">form</span>{' '}
          <span className="badge badge-green">trigger</span>
        </span>
      </div>
      {!placed || workflow.steps.length === 0 ? (
        <Empty title="This deal has no workflow yet" />
      ) : (
        <div className="graph-wrap">
          <svg className="graph" width={placed.width} height={placed.height} viewBox={`0 0 ${placed.width} ${placed.height}`} role="img" aria-label={`Workflow graph of ${deal.name}`}>
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M0,0 L10,5 L0,10 z" fill="#94a3b8" />
              </marker>
            </defs>
            {placed.edges.map((edge) => (
              <path key={edge.id} d={path(edge.points)} className="graph-edge" markerEnd="url(#arrow)" />
            ))}
            {placed.nodes.map(({ step, x, y, height }) => {
              const column = columns.get(step.id);
              const required = step.stepFields.filter((f) => f.required).length;
              const triggers = triggersOf(step);
              const shown = step.stepFields.length > MAX_FIELDS + 1 ? step.stepFields.slice(0, MAX_FIELDS) : step.stepFields;
              return (
                <foreignObject key={step.id} x={x} y={y} width={NODE_WIDTH} height={height}>
                  <div className={`node node-${step.type}`} data-step-id={step.id}>
                    <div className="node-head">
                      <span className="node-title">{step.label}</span>
                      <span className="node-count" title="Investors at this step">
                        {(column?.count ?? 0).toLocaleString('en-GB')}
                      </span>
                    </div>
                    <div className="node-sub muted small">
                      {step.type !== 'default' ? `${step.type} · ` : ''}
                      {column && column.committed.length > 0 ? formatTotals(column.committed) : 'no commitments'}
                    </div>
                    {step.stepFields.length > 0 && (
                      <ul className="node-fields" aria-label={`${plural(step.stepFields.length, 'field')}, ${required} required`}>
                        {shown.map((f) => (
                          <li key={f.fieldKey}>
                            <span className="badge badge-blue">{f.kind ?? 'text'}</span> {fieldLabel(f)}
                            {f.required && <span className="required"> *</span>}
                          </li>
                        ))}
                        {shown.length < step.stepFields.length && <li className="muted">+ {step.stepFields.length - shown.length} more</li>}
                      </ul>
                    )}
                    <div className="node-badges">
                      {(step.requirements ?? []).map((r, i) => (
                        <span key={i} className="badge badge-amber" title="Requirement to enter this step">
                          {describeRequirement(r)}
                        </span>
                      ))}
                      {step.formId && (
                        <span className="badge badge-violet" title={`Form ${step.formId}`}>
                          form
                        </span>
                      )}
                      {triggers.length > 0 && <span className="badge badge-green">{plural(triggers.length, 'trigger')}</span>}
                    </div>
                  </div>
                </foreignObject>
              );
            })}
          </svg>
        </div>
      )}
    </section>
  );
}
