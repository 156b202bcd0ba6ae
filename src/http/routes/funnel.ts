// GET /deals/deal/{dealId}/funnel and /funnel/daily (admin; JSON, or CSV with Accept: text/csv).
import { Type } from 'typebox';
import type { FunnelFilter } from '../../domain/funnel.ts';
import { getFunnel, getFunnelDays } from '../../operations/funnel.ts';
import type { Api, AppContext } from '../context.ts';
import { jsonOrCsv, sendCsv, wantsCsv } from '../csv.ts';
import { ExternalId } from '../schemas/common.ts';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC)' });
const FilterQuery = {
  enteredFrom: Type.Optional({ ...Day, description: 'journeys that entered the deal (first event) on or after this day, UTC' }),
  enteredTo: Type.Optional({ ...Day, description: 'journeys that entered the deal on or before this day, UTC' }),
  classification: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'investors holding this class (investorClass)' })),
  fresh: Type.Optional(
    Type.Boolean({
      description:
        'true: count every move and edit committed before the request (the service catches the figures up first, waiting at most 5 s); ' +
        'default: answer at once with the figures as kept, `lag` seconds behind (docs/reference/funnel.md)',
    }),
  ),
};
const Lag = Type.Number({
  minimum: 0,
  description:
    'seconds since the oldest move or edit the figures do not count yet was made; 0 when they count every committed one (about 1 s at most while the upkeep runs)',
});
const Count = Type.Integer({ minimum: 0 });
const Millis = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

const Funnel = Type.Object(
  {
    dealId: Type.String(),
    workflowVersion: Type.Integer({ description: 'the current version, whose steps are listed in the order of GET /deals/deal/{dealId}/workflow' }),
    lag: Lag,
    filter: Type.Object({
      enteredFrom: Type.Union([Type.String(), Type.Null()]),
      enteredTo: Type.Union([Type.String(), Type.Null()]),
      classification: Type.Union([Type.String(), Type.Null()]),
    }),
    investors: Type.Integer({ description: 'journeys counted (the sum of standing)' }),
    steps: Type.Array(
      Type.Object({
        stepId: Type.String(),
        label: Type.String(),
        type: Type.String(),
        current: Type.Boolean({ description: 'false: a step of an older version that investors still stand on or passed through' }),
        standing: Type.Integer({ description: 'investors standing there now' }),
        entered: Type.Integer({ description: 'investors who ever entered it (each once)' }),
        left: Type.Integer({ description: 'stays that ended (the investor moved elsewhere)' }),
        conversions: Type.Array(
          Type.Object({
            toStepId: Type.String(),
            investors: Type.Integer({ description: 'investors who went from this step straight to that one (each once)' }),
            rate: Type.Union([Type.Number(), Type.Null()], { description: 'investors / entered, 4 decimals; null when nobody entered' }),
          }),
          { description: 'each next step of the graph, then any other step investors went to from here' },
        ),
        timeInStep: Type.Object(
          { medianMs: Millis, p90Ms: Millis },
          { description: 'of the stays that ended: nearest-rank median and 90th percentile, in milliseconds; null when none ended' },
        ),
        committed: Type.Array(Type.Object({ currency: Type.String(), total: Type.String({ description: 'exact decimal' }), investors: Count }), {
          description: "what the investors standing here committed, per currency (the deal's payment settings name the fields)",
        }),
        pendingEditRequests: Type.Integer({ description: 'pending edit requests of the investors standing here' }),
      }),
    ),
  },
  { title: 'Funnel' },
);

const FunnelDays = Type.Object(
  {
    dealId: Type.String(),
    from: Type.String(),
    to: Type.String(),
    lag: Lag,
    steps: Type.Array(Type.Object({ stepId: Type.String(), label: Type.String() })),
    days: Type.Array(
      Type.Object({
        date: Type.String(),
        steps: Type.Array(Type.Object({ stepId: Type.String(), standing: Count, entered: Count, left: Count })),
      }),
    ),
  },
  { title: 'FunnelDays' },
);

const readingOf = (q: { fresh?: boolean | undefined }) => ({ fresh: q.fresh === true });
const filterOf = (q: { enteredFrom?: string | undefined; enteredTo?: string | undefined; classification?: string | undefined }): FunnelFilter => ({
  enteredFrom: q.enteredFrom,
  enteredTo: q.enteredTo,
  classification: q.classification,
});

async function* once<T>(items: T[]) {
  yield* items;
}

export function funnelRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/deals/deal/:dealId/funnel',
    {
      schema: {
        tags: ['console'],
        operationId: 'getFunnel',
        summary: "The deal's funnel: per step, who stands there, who entered, where they went, how long they stayed, what they committed",
        description:
          'Steps of the current version in the order of GET /deals/deal/{dealId}/workflow, then steps of older versions that still have figures. Every ' +
          'figure comes from sums the upkeep keeps from the audit log after the moves commit, `lag` seconds behind them; `fresh=true` counts every ' +
          'move committed before the request. CSV with Accept: text/csv.',
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object(FilterQuery),
        response: {
          200: jsonOrCsv(
            Funnel,
            'One row per step: stepId, label, type, current, standing, entered, left, medianMs, p90Ms, pendingEditRequests, committed ("EUR 1000.00 (2); …"), conversions ("step 3 (0.5); …").',
          ),
        },
      },
    },
    async (request, reply) => {
      const funnel = await getFunnel(ctx, request.params.dealId, filterOf(request.query), readingOf(request.query));
      if (!wantsCsv(request)) return funnel;
      const header = [
        'stepId',
        'label',
        'type',
        'current',
        'standing',
        'entered',
        'left',
        'medianMs',
        'p90Ms',
        'pendingEditRequests',
        'committed',
        'conversions',
      ];
      const rows = funnel.steps.map((s) => [
        s.stepId,
        s.label,
        s.type,
        s.current,
        s.standing,
        s.entered,
        s.left,
        s.timeInStep.medianMs,
        s.timeInStep.p90Ms,
        s.pendingEditRequests,
        s.committed.map((c) => `${c.currency} ${c.total} (${c.investors})`).join('; '),
        s.conversions.map((c) => `${c.toStepId} ${c.investors} (${c.rate ?? ''})`).join('; '),
      ]);
      return sendCsv(reply, `funnel-${request.params.dealId}.csv`, header, once(rows));
    },
  );

  app.get(
    '/deals/deal/:dealId/funnel/daily',
    {
      schema: {
        tags: ['console'],
        operationId: 'getFunnelDaily',
        summary: 'Per day and step: investors standing there at the end of the day, stays entered and left that day',
        description: "`from` and `to` (UTC days, at most 366 days apart; default the 30 days to today), with the funnel's filters. CSV with Accept: text/csv.",
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day), ...FilterQuery }),
        response: { 200: jsonOrCsv(FunnelDays, 'One row per day and step: date, stepId, standing, entered, left.') },
      },
    },
    async (request, reply) => {
      const { from, to, ...filter } = request.query;
      const days = await getFunnelDays(ctx, request.params.dealId, { from, to }, filterOf(filter), readingOf(filter));
      if (!wantsCsv(request)) return days;
      const rows = days.days.flatMap((d) => d.steps.map((s) => [d.date, s.stepId, s.standing, s.entered, s.left]));
      return sendCsv(reply, `funnel-daily-${request.params.dealId}.csv`, ['date', 'stepId', 'standing', 'entered', 'left'], once(rows));
    },
  );
}
