// The reconciliation queue (staff): list lines, read one with its decisions, assign a line to an
// investor, split it across investors, or dismiss it with a reason. Every decision is appended to
// payment_line_decisions with who and when. A staff decision first takes back whatever the line had
// allocated (a negative allocation), then allocates anew, so decisions can follow one another.
// Contract: unknown line 404; a line not in the queue 409; an investor without a journey in the
// deal 404; split parts that do not add up to the line 422; a share in another currency than the
// commitment 422.
import Big from 'big.js';
import { AppError, conflict, notFound, unprocessable } from '../domain/errors.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { findPaymentSettings } from '../store/payment-settings.ts';
import { lineAllocations, lineDecisions, recordDecision } from '../store/payment-decisions.ts';
import { dealCurrencies, type JourneyPaymentFacts, lockJourneyPaymentFacts } from '../store/payment-facts.ts';
import { findLine, pageLines } from '../store/payment-lines.ts';
import { type Deps, inTransaction } from './deps.ts';
import { forReading } from './reads.ts';
import { applyCredit, defaultSettings } from './payment-decisions.ts';
import { describeLines } from './payment-proposals.ts';

export async function listPaymentLines(
  deps: Deps,
  filter: { status?: string | undefined; dealId?: string | undefined; outcome?: string | undefined; statementId?: string | undefined },
  page: { limit: number; page: number },
) {
  // A list read: a replica recent enough for the request's consistency token (docs/guides/postgresql-and-replicas.md).
  const { items, total } = await pageLines(forReading(deps).db, filter, { limit: page.limit, offset: (page.page - 1) * page.limit });
  return { output: await describeLines(deps, items), page: page.page, totalPages: Math.ceil(total / page.limit) };
}

export async function getPaymentLine(deps: Deps, lineId: string) {
  const { db } = forReading(deps);
  const line = await findLine(db, lineId);
  if (!line) throw notFound('payment line', lineId);
  const [described] = await describeLines(deps, [line]);
  return { ...described!, decisions: await lineDecisions(db, lineId) };
}

/** Assign the whole of a queued line to one investor of a deal. */
export async function assignLine(deps: Deps, principal: Principal, lineId: string, to: { dealId: string; investorUserId: string }) {
  const line = await findLine(deps.db, lineId);
  if (!line) throw notFound('payment line', lineId);
  return allocateLine(deps, principal, lineId, [{ ...to, amount: line.amount }], 'assigned');
}

export interface Share {
  dealId: string;
  investorUserId: string;
  amount: string;
}

/** Assign (one share: the whole line) or split (several shares that add up to the line). */
export async function allocateLine(deps: Deps, principal: Principal, lineId: string, shares: Share[], action: 'assigned' | 'split') {
  return inTransaction(deps, async (tx) => {
    const line = await lockQueued(tx, lineId);
    if (line.direction !== 'credit' || line.reversal) throw conflict(`line ${lineId} is a ${line.reversal ? 'reversal' : 'debit'}: only credits are allocated`);
    const sum = shares.reduce((s, x) => s.plus(x.amount), new Big(0));
    if (!sum.eq(line.amount)) {
      throw unprocessable(`The shares add up to ${sum.toFixed()}, the line is ${new Big(line.amount).toFixed()} ${line.currency}`);
    }
    const keys = new Set(shares.map((s) => JSON.stringify([s.dealId, s.investorUserId])));
    if (keys.size !== shares.length) throw unprocessable('Each investor may have one share of a line');
    const held = await lineAllocations(tx.db, line.id);
    // Journeys locked in one order (deal, investor), so two decisions never wait on each other.
    const ordered = [...shares].sort((a, b) => (`${a.dealId}\u0000${a.investorUserId}` < `${b.dealId}\u0000${b.investorUserId}` ? -1 : 1));
    const settings = await findPaymentSettings(tx.db, [...new Set(shares.map((s) => s.dealId))]);
    const currencies = await dealCurrencies(tx.db, [...new Set(shares.map((s) => s.dealId))]);
    const facts = new Map<Share, JourneyPaymentFacts>();
    for (const share of ordered) {
      const s = settings.get(share.dealId) ?? defaultSettings(share.dealId);
      const found = await lockJourneyPaymentFacts(tx.db, share, { commitment: s.commitmentFieldKey, currency: s.currencyFieldKey });
      if (!found) throw notFound('journey of investor', `${share.dealId}/${share.investorUserId}`);
      facts.set(share, found);
    }
    const takeBack = held.map((a) => ({ id: tx.newId(), ...a, amount: new Big(a.amount).neg().toFixed(), valueDate: null }));
    const results = [];
    for (const [i, share] of shares.entries()) {
      const f = facts.get(share)!;
      const back = held.filter((h) => h.dealId === share.dealId && h.investorUserId === share.investorUserId).reduce((s, h) => s.plus(h.amount), new Big(0));
      const last = i === shares.length - 1;
      const result = await applyCredit(tx, {
        line,
        dealId: share.dealId,
        investorUserId: share.investorUserId,
        amount: share.amount,
        received: new Big(f.received).minus(back).toFixed(),
        settings: settings.get(share.dealId) ?? defaultSettings(share.dealId),
        commitment: f.commitment,
        commitmentCurrency: f.commitmentCurrency ?? currencies.get(share.dealId) ?? null,
        by: actorOf(principal),
        action,
        staff: true,
        takeBack: i === 0 ? takeBack : [],
        decide: last,
      });
      results.push({ ...share, ...result });
    }
    const refused = results.filter((r) => r.refusal);
    if (shares.length > 1 || refused.length > 0) {
      // The line's final state: matched when every share applied, else queued with the refusals.
      await recordDecision(tx.db, {
        id: tx.newId(),
        lineId: line.id,
        action,
        outcome: null,
        status: refused.length ? 'queued' : 'matched',
        dealId: shares.length === 1 ? shares[0]!.dealId : null,
        investorUserId: shares.length === 1 ? shares[0]!.investorUserId : null,
        refusal: refused.length ? refused.map((r) => ({ dealId: r.dealId, investorUserId: r.investorUserId, refusal: r.refusal })) : null,
        reason: shares.length > 1 ? `split: ${shares.map((s) => `${s.amount} to ${s.dealId}/${s.investorUserId}`).join(', ')}` : null,
        by: actorOf(principal),
        at: tx.clock(),
      });
    }
    return { ...(await findLine(tx.db, line.id))!, decisions: await lineDecisions(tx.db, line.id) };
  });
}

export async function dismissLine(deps: Deps, principal: Principal, lineId: string, reason: string) {
  return inTransaction(deps, async (tx) => {
    const line = await lockQueued(tx, lineId);
    const held = await lineAllocations(tx.db, line.id);
    for (const a of held) await lockJourneyPaymentFacts(tx.db, a);
    await recordDecision(tx.db, {
      id: tx.newId(),
      lineId: line.id,
      action: 'dismissed',
      outcome: null,
      status: 'dismissed',
      reason,
      by: actorOf(principal),
      at: tx.clock(),
      allocations: held.map((a) => ({ id: tx.newId(), ...a, amount: new Big(a.amount).neg().toFixed(), valueDate: null })),
    });
    return { ...(await findLine(tx.db, line.id))!, decisions: await lineDecisions(tx.db, line.id) };
  });
}

async function lockQueued(tx: Deps, lineId: string) {
  const line = await findLine(tx.db, lineId, { lock: true });
  if (!line) throw notFound('payment line', lineId);
  if (line.status !== 'queued') throw new AppError('conflict', `line ${lineId} is ${line.status}, not in the queue`, { extensions: { status: line.status } });
  return line;
}
