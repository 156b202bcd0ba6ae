// `dealflow seed`: the demo deal (also created on the first start of the embedded database) and
// larger data sets for benchmarks.
//
// The demo deal's journeys are made by moves: each generated move goes through applyMoves, the
// path of every real move, dated when the generated history says it happened. So the demo has
// what moves leave behind: events and revisions, payment references, audit chains, and the feed
// entries (the console's activity page, the live board, a webhook consumer's pull feed) with the
// journeys' feed keys, in the order the moves happened.
//
// The benchmark data sets (`--investors N --deals M`) are written in bulk instead (store/bulk.ts),
// every generated move first checked with the jump rules (domain/move-rules.ts): chained events, seq 1…n,
// revision 1 of each, a payment reference and an audit chain each, but no feed entries, as the SQL
// seed of `bench --scale` (bench/scale-seed.ts). Hundreds of thousands of moves through the move
// path would take minutes where the bulk statements take seconds.
import { type MoveRuleFacts, planMove } from '../domain/move-rules.ts';
import { type Investor, ruleFactsOf } from '../domain/investor.ts';
import { currencies, makeInvestor, type Random, random } from './seed-people.ts';
import type { Principal } from '../domain/principal.ts';
import type { WorkflowDocument } from '../domain/workflow-graph.ts';
import { insertInvestors, insertJourneys, type SeededJourney } from '../store/bulk.ts';
import { findDeal } from '../store/deals.ts';
import type { StoredEvent } from '../store/events.ts';
import { generatePaymentReference } from '../store/payment-references.ts';
import { putDeal } from './deals.ts';
import { seedDemoPaymentSettings } from './demo-payments.ts';
import { type Deps, inTransaction } from './deps.ts';
import { Caches } from './caches.ts';
import { applyMoves, type MoveRequest } from './apply-moves.ts';
import { putWorkflow } from './workflows.ts';
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';

export const DEMO_DEAL_ID = 'demo';
const SEED_USER = 'seed';
/** Who made the demo deal's moves (their events' `createdByUserId`). */
const SEED_PRINCIPAL: Principal = { userId: SEED_USER, role: 'admin', tokenKey: SEED_USER };

/** The demo workflow; step ids are `<prefix>.<name>` (step ids belong to one deal). */
export function demoWorkflow(prefix: string): WorkflowDocument {
  const s = (name: string) => `${prefix}.${name}`;
  const links: [string, string][] = [
    ['interest', 'commitment'],
    ['commitment', 'kyc'],
    ['commitment', 'professional-review'],
    ['kyc', 'documents'],
    ['professional-review', 'documents'],
    ['documents', 'payment'],
    ['payment', 'complete'],
    ['commitment', 'withdrawn'],
    ['kyc', 'withdrawn'],
    ['professional-review', 'withdrawn'],
    ['documents', 'withdrawn'],
    ['payment', 'withdrawn'],
  ];
  const field = (
    fieldKey: string,
    required: boolean,
    kind: 'text' | 'amount' | 'currency' | 'date' | 'choice',
    label: string,
    options: string[] | null = null,
  ) => ({
    fieldKey,
    required,
    kind,
    label,
    options,
  });
  return {
    label: 'Harbour Logistics Series A',
    description: 'Equity round of Harbour Logistics Ltd: expressions of interest, commitments, KYC, subscription documents and payment.',
    investorEngagementEnabled: true,
    steps: [
      {
        id: s('interest'),
        label: 'Interest',
        type: 'default',
        stepFields: [field('source', false, 'choice', 'How they heard of the deal', ['website', 'event', 'referral', 'adviser'])],
        requirements: [],
        formId: null,
      },
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [field(DEFAULT_COMMITMENT_FIELD_KEY, true, 'amount', 'Committed amount'), field(DEFAULT_CURRENCY_FIELD_KEY, true, 'currency', 'Currency')],
        requirements: [],
        formId: 'commitment-form',
      },
      {
        id: s('kyc'),
        label: 'KYC check',
        type: 'default',
        stepFields: [field('kyc_reference', true, 'text', 'KYC provider reference')],
        requirements: [{ kind: 'kyc-level', minimumLevel: 2 }],
        formId: null,
      },
      {
        id: s('professional-review'),
        label: 'Professional investor review',
        type: 'default',
        stepFields: [field('reviewer', false, 'text', 'Reviewed by')],
        requirements: [{ kind: 'classification', classes: ['professional', 'institutional'] }],
        formId: null,
      },
      {
        id: s('documents'),
        label: 'Subscription documents',
        type: 'default',
        stepFields: [field('agreement_signed_on', true, 'date', 'Agreement signed on')],
        requirements: [],
        formId: 'subscription-agreement',
      },
      {
        id: s('payment'),
        label: 'Payment',
        type: 'default',
        stepFields: [field('amount_received', true, 'amount', 'Amount received'), field('received_on', true, 'date', 'Received on')],
        requirements: [{ kind: 'previous-fields-complete' }],
        formId: null,
      },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [], requirements: [], formId: null },
      { id: s('withdrawn'), label: 'Withdrawn', type: 'withdrawn', stepFields: [field('reason', false, 'text', 'Reason')], requirements: [], formId: null },
    ],
    links: links.map(([from, to]) => ({ fromStepId: s(from), toStepId: s(to), investorMay: false })),
  };
}

const DAY = 86_400_000;
const isoDate = (time: number) => new Date(time).toISOString().slice(0, 10);

/** One generated move: where to, what it captures, and when it happened. */
interface PlannedMove {
  investorUserId: string;
  targetStepId: string;
  data: Record<string, string>;
  at: Date;
}

/**
 * A plausible journey: along interest → commitment → (KYC or professional review) → documents →
 * payment → complete, stopping anywhere, sometimes withdrawn, its moves spread over past weeks.
 * Investors who go through KYC are given the level it requires. A step takes two to six days (a
 * KYC check, signing, paying): no investor passes two steps within hours, which also lets
 * seedDemo write the moves in long runs (applySeededMoves).
 */
function planJourney(dealId: string, investor: Investor, rnd: Random, now: number): PlannedMove[] {
  const s = (name: string) => `${dealId}.${name}`;
  const professional = ['professional', 'institutional'].includes(investor.contact.classifications[0]!.investorClass);
  const path = ['interest', 'commitment', professional ? 'professional-review' : 'kyc', 'documents', 'payment', 'complete'];
  const length = rnd.pick([1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 6, 6]);
  const names = path.slice(0, length);
  if (length >= 2 && length < 6 && rnd.next() < 0.15) names.push('withdrawn');
  if (names.includes('kyc') && (investor.kycCheckLevel ?? 0) < 2) investor.kycCheckLevel = rnd.int(2, 3);

  const amount = rnd.pick([5000, 10000, 25000, 50000, 100000, 250000]);
  const currency = rnd.pick(currencies);
  let time = now - rnd.int(25, 125) * DAY;
  const moves: PlannedMove[] = [];
  for (const name of names) {
    time += rnd.int(48, 143) * 3_600_000 + rnd.int(0, 3_599_999);
    const data: Record<string, string> = {};
    if (name === 'interest' && rnd.next() < 0.8) data.source = rnd.pick(['website', 'event', 'referral', 'adviser']);
    if (name === 'commitment') Object.assign(data, { [DEFAULT_COMMITMENT_FIELD_KEY]: `${amount}.00`, [DEFAULT_CURRENCY_FIELD_KEY]: currency });
    if (name === 'kyc') data.kyc_reference = `KYC-${rnd.int(100000, 999999)}`;
    if (name === 'professional-review') data.reviewer = rnd.pick(['compliance team', 'J. Okafor', 'M. Larsen']);
    if (name === 'documents') data.agreement_signed_on = isoDate(time);
    if (name === 'payment') Object.assign(data, { amount_received: `${amount}.00`, received_on: isoDate(time) });
    if (name === 'withdrawn' && rnd.next() < 0.7) data.reason = rnd.pick(['changed circumstances', 'allocation too small', 'timing']);
    moves.push({ investorUserId: investor.id, targetStepId: s(name), data, at: new Date(Math.min(time, now)) });
  }
  return moves;
}

/** A journey for the bulk writes: planJourney's moves as events, each checked with the jump rules. */
function makeJourney(
  dealId: string,
  workflow: WorkflowDocument,
  investor: Investor,
  rnd: Random,
  deps: Pick<Deps, 'newId'>,
  now: number,
  reference: string,
): SeededJourney {
  const events: StoredEvent[] = [];
  for (const { targetStepId, data, at } of planJourney(dealId, investor, rnd, now)) {
    const previous = events.at(-1);
    const facts: MoveRuleFacts = {
      steps: workflow.steps,
      links: workflow.links,
      currentStepId: previous?.toStepId ?? null,
      visitedStepIds: events.map((e) => e.toStepId),
      captured: new Map(events.flatMap((e) => Object.entries(e.data))),
      investor: ruleFactsOf(investor),
      pendingEditRequests: 0,
    };
    planMove(facts, { targetStepId, data: new Map(Object.entries(data)) }); // throws on a bug here
    events.push({
      id: deps.newId(),
      fromStepId: previous?.toStepId ?? null,
      toStepId: targetStepId,
      data,
      createdByUserId: SEED_USER,
      createdAt: at.toISOString(),
      dealId,
      investorUserId: investor.id,
      seq: events.length + 1,
    });
  }
  return { dealId, investorUserId: investor.id, paymentReference: reference, events };
}

function referenceSource() {
  const used = new Set<string>();
  return () => {
    for (;;) {
      const reference = generatePaymentReference();
      if (!used.has(reference)) {
        used.add(reference);
        return reference;
      }
    }
  };
}

/**
 * Makes the moves through applyMoves in the order they happened. applyMoves takes moves of distinct
 * investors, each call one load and one write statement: so the moves, in time order, go in runs
 * that name no investor twice, and a journey's later move always comes in a later run. The feed
 * numbers them in that order. A run ends where an investor moves again, so the runs are as long
 * as the steps take: 37 runs for the demo's 716 moves (with steps of hours they were 90, and the
 * seed took half a second longer on the embedded database, where a call's statements cost about
 * 10 ms whatever their size). A refusal is a bug of the generator, and fails the seed.
 */
async function applySeededMoves(tx: Deps, dealId: string, planned: PlannedMove[]): Promise<void> {
  const ordered = planned.toSorted((a, b) => a.at.getTime() - b.at.getTime()); // stable: a journey's moves keep their order
  let run: MoveRequest[] = [];
  const inRun = new Set<string>();
  const flush = async () => {
    const outcomes = await applyMoves(tx, SEED_PRINCIPAL, dealId, run);
    for (const outcome of outcomes) if (!outcome.ok) throw outcome.error;
    run = [];
    inRun.clear();
  };
  for (const move of ordered) {
    if (inRun.has(move.investorUserId)) await flush();
    inRun.add(move.investorUserId);
    run.push({ input: { investorUserId: move.investorUserId, targetStepId: move.targetStepId, data: move.data }, record: { at: move.at } });
  }
  if (run.length > 0) await flush();
}

/** The demo deal (id `demo`) with about 200 investors; does nothing when it exists already. */
export async function seedDemo(deps: Deps, options: { investors?: number } = {}): Promise<{ dealId: string; created: boolean; investors: number }> {
  const count = options.investors ?? 200;
  return inTransaction(deps, async (tx) => {
    if (await findDeal(tx.db, DEMO_DEAL_ID)) return { dealId: DEMO_DEAL_ID, created: false, investors: 0 };
    await putDeal(tx, DEMO_DEAL_ID, { name: 'Harbour Logistics Series A (demo)', description: 'Demo deal created by dealflow seed --demo', currency: 'GBP' });
    const workflow = demoWorkflow(DEMO_DEAL_ID);
    await putWorkflow(tx, DEMO_DEAL_ID, workflow);
    const rnd = random(20261121);
    const now = tx.clock();
    const investors = Array.from({ length: count }, (_, i) => makeInvestor(`demo-investor-${String(i + 1).padStart(3, '0')}`, i + 1, rnd));
    const moves = investors.flatMap((investor) => planJourney(DEMO_DEAL_ID, investor, rnd, now.getTime()));
    // After planning: a journey through KYC may have raised the investor's level.
    await insertInvestors(tx.db, investors, now);
    // A cache of the seed's own: the workflow just written is read once, not by every run of moves;
    // it ends with the seed, so nothing outside this transaction sees what it read.
    const caches = new Caches();
    try {
      await applySeededMoves({ ...tx, caches }, DEMO_DEAL_ID, moves);
    } finally {
      caches.close();
    }
    // After the moves, as a deal that named its asset once its history was made: nothing is booked.
    await seedDemoPaymentSettings(tx, DEMO_DEAL_ID, 'GBP');
    return { dealId: DEMO_DEAL_ID, created: true, investors: count };
  });
}

export interface ScaleSeed {
  investors: number;
  deals: number;
  /** Called after every chunk with journeys written so far and in all. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * `seed --investors N --deals M`: M new deals with the demo workflow and N new investors, each with
 * a journey in every deal. Written in chunks of 1,000 investors, one transaction per chunk.
 */
export async function seedScale(deps: Deps, options: ScaleSeed): Promise<{ dealIds: string[]; investors: number; journeys: number }> {
  const run = deps.newId().slice(0, 8);
  const dealIds = Array.from({ length: options.deals }, (_, i) => `bench-${run}-${i + 1}`);
  const workflows = new Map<string, WorkflowDocument>();
  for (const dealId of dealIds) {
    await putDeal(deps, dealId, { name: `Benchmark deal ${dealId}`, currency: 'EUR' });
    const workflow = demoWorkflow(dealId);
    await putWorkflow(deps, dealId, workflow);
    workflows.set(dealId, workflow);
  }
  const rnd = random(Number.parseInt(run, 16));
  const nextReference = referenceSource();
  const total = options.investors * options.deals;
  const CHUNK = 1000;
  let done = 0;
  for (let start = 0; start < options.investors; start += CHUNK) {
    const size = Math.min(CHUNK, options.investors - start);
    await inTransaction(deps, async (tx) => {
      const now = tx.clock();
      const investors = Array.from({ length: size }, (_, i) => makeInvestor(`bench-${run}-investor-${start + i + 1}`, start + i + 1, rnd));
      const journeys = dealIds.flatMap((dealId) =>
        investors.map((investor) => makeJourney(dealId, workflows.get(dealId)!, investor, rnd, tx, now.getTime(), nextReference())),
      );
      // After the journeys: a journey through KYC may have raised the investor's level.
      await insertInvestors(tx.db, investors, now);
      await insertJourneys(tx.db, journeys);
    });
    done += size * options.deals;
    options.onProgress?.(done, total);
  }
  return { dealIds, investors: options.investors, journeys: total };
}
