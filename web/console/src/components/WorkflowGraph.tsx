// A workflow drawn as a graph, laid out by dagre (left to right): each step with its investors,
// committed total, fields, requirements, form and triggers. Fits the screen when it opens; zoom with
// the buttons or Ctrl+wheel, pan by dragging or scrolling. Long names wrap and have a tooltip;
// steps can link somewhere (the board filtered to the step). Used by the graph page and as the
// workflow editor's live preview.
import dagre from '@dagrejs/dagre';
import { useCallback, useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { BoardColumn } from '../lib/api.ts';
import type { GraphStep } from '../lib/workflow-doc.ts';
import { fieldLabel, formatTotals, plural } from '../lib/format.ts';
import { describeRequirement } from '../lib/field-values.ts';
import './WorkflowGraph.css';

const NODE_WIDTH = 220;
const MAX_FIELDS = 4;
const LINE = 18;
const charsPerLine = 24;

const triggersOf = (step: GraphStep) => step.workflowCustomStepTriggers ?? [];
const titleLines = (label: string) => Math.min(3, Math.max(1, Math.ceil(label.length / charsPerLine)));
/** Height of a node: title (wrapped), totals, a line per field (up to MAX_FIELDS), and badges. */
const nodeHeight = (step: GraphStep) => {
  const badges = (step.requirements ?? []).length + (step.formId ? 1 : 0) + (triggersOf(step).length > 0 ? 1 : 0);
  return 56 + titleLines(step.label) * LINE + Math.min(step.stepFields.length, MAX_FIELDS + 1) * 20 + (badges === 0 ? 0 : Math.ceil(badges / 2) * 28);
};

function layout(steps: GraphStep[], direction: 'LR' | 'TB') {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: direction, nodesep: 24, ranksep: direction === 'TB' ? 36 : 56, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(steps.map((s) => s.id));
  for (const step of steps) graph.setNode(step.id, { width: NODE_WIDTH, height: nodeHeight(step) });
  for (const step of steps)
    for (const link of step.nextStepLinks) if (ids.has(link.toStepId) && link.toStepId !== step.id) graph.setEdge(step.id, link.toStepId);
  dagre.layout(graph);
  const nodes = steps.map((step) => {
    const node = graph.node(step.id);
    const height = nodeHeight(step);
    return { step, x: node.x - NODE_WIDTH / 2, y: node.y - height / 2, height };
  });
  const edges = graph.edges().map((e) => ({ id: `${e.v}->${e.w}`, points: graph.edge(e).points ?? [] }));
  const { width = 0, height = 0 } = graph.graph();
  return { nodes, edges, width, height };
}

const path = (points: { x: number; y: number }[]) =>
  points.length === 0
    ? ''
    : `M${points[0]!.x},${points[0]!.y}${points
        .slice(1)
        .map((p) => ` L${p.x},${p.y}`)
        .join('')}`;

interface Props {
  steps: GraphStep[];
  label: string;
  columns?: Map<string, BoardColumn>;
  stepHref?: (stepId: string) => string;
  /** Steps to mark as having problems (the editor's validation). */
  flagged?: Set<string>;
  height?: number;
  /**
   * TB lays the steps top to bottom and fits the graph to the frame's width only, the frame growing
   * to the graph's height up to `height` (the editor's narrow side panel: readable rather than tiny).
   */
  direction?: 'LR' | 'TB';
}

export function WorkflowGraph({ steps, label, columns, stepHref, flagged, height: boxHeight = 560, direction = 'LR' }: Props) {
  // dagre throws on some malformed graphs while a workflow is being edited: draw nothing then.
  const placed = useMemo(() => {
    try {
      return layout(steps, direction);
    } catch {
      return undefined;
    }
  }, [steps, direction]);
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ scale: 1, x: 0, y: 0 });
  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | undefined>(undefined);

  const fit = useCallback(() => {
    const element = box.current;
    if (!element || !placed || placed.width === 0) return;
    if (direction === 'TB') {
      const scale = Math.max(0.5, Math.min(1, (element.clientWidth - 16) / placed.width));
      setView({ scale, x: Math.max(8, (element.clientWidth - placed.width * scale) / 2), y: 8 });
      return;
    }
    const scale = Math.min(1.25, (element.clientWidth - 16) / placed.width, (element.clientHeight - 16) / placed.height);
    setView({ scale, x: (element.clientWidth - placed.width * scale) / 2, y: (element.clientHeight - placed.height * scale) / 2 });
  }, [placed, direction]);
  const size = `${placed?.width ?? 0}x${placed?.height ?? 0}`;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(fit, [size]);

  const zoom = (factor: number, cx?: number, cy?: number) =>
    setView((v) => {
      const element = box.current;
      const px = cx ?? (element ? element.clientWidth / 2 : 0);
      const py = cy ?? (element ? element.clientHeight / 2 : 0);
      const scale = Math.min(3, Math.max(0.2, v.scale * factor));
      return { scale, x: px - ((px - v.x) * scale) / v.scale, y: py - ((py - v.y) * scale) / v.scale };
    });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      if (event.ctrlKey || event.metaKey) {
        const rect = element.getBoundingClientRect();
        zoom(event.deltaY < 0 ? 1.1 : 1 / 1.1, event.clientX - rect.left, event.clientY - rect.top);
      } else setView((v) => ({ ...v, x: v.x - event.deltaX, y: v.y - event.deltaY }));
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, []);

  const onPointerDown = (event: ReactPointerEvent) => {
    if ((event.target as Element).closest('a, button')) return;
    drag.current = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y };
    (event.currentTarget as Element).setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: ReactPointerEvent) => {
    const start = drag.current;
    if (start) setView((v) => ({ ...v, x: start.vx + event.clientX - start.x, y: start.vy + event.clientY - start.y }));
  };

  if (!placed) return <p className="muted">The graph cannot be drawn until the links are valid.</p>;
  // Links stay visible when a wide workflow is fitted small: at least 1.2 px wide on screen, with
  // arrowheads of at least 7 px (sizes in the graph's units, which the zoom scales).
  const stroke = Math.max(1.6, 1.2 / view.scale);
  const arrow = Math.max(11, 7 / view.scale);
  return (
    <div className="graph-frame">
      <div className="graph-controls" role="group" aria-label="Zoom">
        <button type="button" className="button button-small" onClick={() => zoom(1.2)} aria-label="Zoom in">
          +
        </button>
        <button type="button" className="button button-small" onClick={() => zoom(1 / 1.2)} aria-label="Zoom out">
          −
        </button>
        <button type="button" className="button button-small" onClick={fit}>
          Fit
        </button>
        <span className="muted small">{Math.round(view.scale * 100)}%</span>
      </div>
      <div
        className="graph-wrap"
        ref={box}
        style={direction === 'TB' ? { height: Math.min(boxHeight, Math.ceil(placed.height * view.scale) + 24), flex: 'none' } : { height: boxHeight }}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={() => (drag.current = undefined)}
        onKeyDown={(e) => {
          const step = 40;
          if (e.key === '+' || e.key === '=') zoom(1.2);
          else if (e.key === '-') zoom(1 / 1.2);
          else if (e.key === 'ArrowLeft') setView((v) => ({ ...v, x: v.x + step }));
          else if (e.key === 'ArrowRight') setView((v) => ({ ...v, x: v.x - step }));
          else if (e.key === 'ArrowUp') setView((v) => ({ ...v, y: v.y + step }));
          else if (e.key === 'ArrowDown') setView((v) => ({ ...v, y: v.y - step }));
          else return;
          e.preventDefault();
        }}
        tabIndex={0}
        role="region"
        aria-label={`${label}: drag or use the arrow keys to pan, + and − to zoom`}
      >
        <svg className="graph" width="100%" height="100%" aria-label={label} role="group">
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerUnits="userSpaceOnUse"
              markerWidth={arrow}
              markerHeight={arrow}
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" className="graph-arrow" />
            </marker>
          </defs>
          <g transform={`translate(${view.x},${view.y}) scale(${view.scale})`}>
            {placed.edges.map((edge) => (
              <path key={edge.id} d={path(edge.points)} className="graph-edge" style={{ strokeWidth: stroke }} data-edge={edge.id} markerEnd="url(#arrow)" />
            ))}
            {placed.nodes.map(({ step, x, y, height }) => {
              const column = columns?.get(step.id);
              const triggers = triggersOf(step);
              const shown = step.stepFields.length > MAX_FIELDS + 1 ? step.stepFields.slice(0, MAX_FIELDS) : step.stepFields;
              const totals = column && column.committed.length > 0 ? formatTotals(column.committed) : 'no commitments';
              const title = stepHref ? (
                <a className="node-title" href={stepHref(step.id)} title={`${step.label}: open the board at this step`}>
                  {step.label}
                </a>
              ) : (
                <span className="node-title" title={step.label}>
                  {step.label}
                </span>
              );
              return (
                <foreignObject key={step.id} x={x} y={y} width={NODE_WIDTH} height={height}>
                  <div className={`node node-${step.type}${flagged?.has(step.id) ? ' node-flagged' : ''}`} data-step-id={step.id}>
                    <div className="node-head">
                      {title}
                      {columns && (
                        <span className="node-count" title="Investors at this step">
                          {(column?.count ?? 0).toLocaleString()}
                        </span>
                      )}
                    </div>
                    <div className="node-sub muted small" title={totals}>
                      {step.type !== 'default' ? `${step.type}${columns ? ' · ' : ''}` : ''}
                      {columns ? totals : ''}
                    </div>
                    {step.stepFields.length > 0 && (
                      <ul
                        className="node-fields"
                        aria-label={`${plural(step.stepFields.length, 'field')}, ${step.stepFields.filter((f) => f.required).length} required`}
                      >
                        {shown.map((f) => (
                          <li key={f.fieldKey} title={fieldLabel(f)}>
                            <span className="badge badge-blue">{f.kind ?? 'text'}</span> {fieldLabel(f)}
                            {f.required && <span className="required"> *</span>}
                          </li>
                        ))}
                        {shown.length < step.stepFields.length && (
                          <li
                            className="muted"
                            title={step.stepFields
                              .slice(shown.length)
                              .map((f) => fieldLabel(f))
                              .join(', ')}
                          >
                            + {step.stepFields.length - shown.length} more
                          </li>
                        )}
                      </ul>
                    )}
                    <div className="node-badges">
                      {(step.requirements ?? []).map((r, i) => (
                        <span key={i} className="badge badge-amber" title={`Requirement to enter this step: ${describeRequirement(r)}`}>
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
          </g>
        </svg>
      </div>
    </div>
  );
}
