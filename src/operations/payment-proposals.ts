// What the queue shows beside its lines so that a person decides by name, not by id: the names of
// the investor and deal a line points at, why a matched line still waits (domain/payment-advice.ts)
// and, for each queued credit, the investors it likely belongs to, with the reasons
// (domain/payment-proposal.ts). Candidates are a bounded set read in one statement per set of
// deals: the investors who still owe in the line's deal, else in the deals of the line's statement,
// else in every deal that takes bank payments. Name similarity is computed here rather than with
// pg_trgm's similarity() in SQL, so that one ranking serves both databases and is tested as a pure
// function; docs/reference/payments.md has the measurements.
import Big from 'big.js';
import { type Advice, adviseLine } from '../domain/payment-advice.ts';
import { type Candidate, type LineFacts, type Proposal, proposeInvestors, scoreCandidate } from '../domain/payment-proposal.ts';
import { notFound } from '../domain/errors.ts';
import { type CandidateRow, dealsWithPaymentSettings, findPaymentCandidates, namesOf, statementDeals } from '../store/payment-candidates.ts';
import { findLine, type PaymentLine } from '../store/payment-lines.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';
import { loadWorkflow } from './workflows.ts';

/** At most this many candidates are read for one set of deals (the investors of a large deal). */
export const CANDIDATE_LIMIT = 50_000;
/** Proposals kept on a queued line. */
export const PROPOSALS_PER_LINE = 3;

export interface ProposalView {
  dealId: string;
  dealName: string;
  investorUserId: string;
  fullName: string;
  email: string | null;
  companies: string[];
  paymentReference: string;
  stillOwed: string | null;
  currency: string | null;
  score: number;
  reasons: { kind: string; detail: string }[];
}

export interface DescribedLine extends PaymentLine {
  investorName: string | null;
  dealName: string | null;
  advice: Advice | null;
  proposals?: ProposalView[];
}

type Row = CandidateRow & Candidate;

const asCandidate = (r: CandidateRow): Row => ({
  ...r,
  stillOwed: r.commitment !== null && /^\d+(\.\d+)?$/.test(r.commitment) ? new Big(r.commitment).minus(r.received).toFixed() : null,
});

const viewOf = ({ candidate: c, score, reasons }: Proposal<Row>): ProposalView => ({
  dealId: c.dealId,
  dealName: c.dealName,
  investorUserId: c.investorUserId,
  fullName: c.fullName,
  email: c.email,
  companies: c.companies,
  paymentReference: c.paymentReference,
  stillOwed: c.stillOwed,
  currency: c.currency,
  score,
  reasons,
});

const factsOf = (line: PaymentLine): LineFacts => ({
  amount: line.amount,
  currency: line.currency,
  payerName: line.debtorName,
  referenceTexts: [line.reference, line.structuredReference, line.remittance],
});

const proposable = (line: PaymentLine) => line.status === 'queued' && line.direction === 'credit' && !line.reversal;

/** Names, advice and (for queued credits) proposals for a page of lines. */
export async function describeLines(deps: Deps, lines: readonly PaymentLine[]): Promise<DescribedLine[]> {
  const read = forReading(deps);
  const { investors, deals } = await namesOf(
    read.db,
    [...new Set(lines.flatMap((l) => (l.investorUserId ? [l.investorUserId] : [])))],
    [...new Set(lines.flatMap((l) => (l.dealId ? [l.dealId] : [])))],
  );
  const labels = new Map<string, Map<string, string>>();
  for (const dealId of new Set(lines.filter((l) => l.refusal && l.dealId).map((l) => l.dealId!))) {
    const workflow = (await loadWorkflow(read, dealId))?.workflow;
    labels.set(dealId, new Map(workflow?.steps.flatMap((s) => s.stepFields.flatMap((f) => (f.label ? [[f.fieldKey, f.label] as const] : []))) ?? []));
  }
  const proposals = await proposalsFor(read, lines.filter(proposable));
  return lines.map((line) => ({
    ...line,
    investorName: line.investorUserId ? (investors.get(line.investorUserId)?.fullName ?? null) : null,
    dealName: line.dealId ? (deals.get(line.dealId) ?? null) : null,
    advice:
      adviseLine(
        line,
        (dealId, key) => labels.get(dealId ?? line.dealId ?? '')?.get(key),
        (id) => investors.get(id)?.fullName ?? id,
      ) ?? null,
    ...(proposals.has(line.id) ? { proposals: proposals.get(line.id)! } : {}),
  }));
}

async function proposalsFor(read: Deps, lines: readonly PaymentLine[]): Promise<Map<string, ProposalView[]>> {
  const out = new Map<string, ProposalView[]>();
  if (lines.length === 0) return out;
  const byStatement = await statementDeals(read.db, [...new Set(lines.filter((l) => !l.dealId).map((l) => l.statementId))]);
  let everyDeal: string[] | undefined;
  const candidates = new Map<string, Row[]>();
  for (const line of lines) {
    let dealIds = line.dealId ? [line.dealId] : byStatement.get(line.statementId);
    if (!dealIds) {
      everyDeal ??= await dealsWithPaymentSettings(read.db);
      dealIds = everyDeal;
    }
    const key = [...dealIds].sort().join('\u0000');
    let set = candidates.get(key);
    if (!set) {
      set = (await findPaymentCandidates(read.db, { dealIds }, CANDIDATE_LIMIT)).map(asCandidate);
      candidates.set(key, set);
    }
    out.set(line.id, proposeInvestors(factsOf(line), set, PROPOSALS_PER_LINE).map(viewOf));
  }
  return out;
}

/**
 * The investors a person may give a queued line to, likeliest first: without `query` the line's
 * proposals; with it, investors of any deal whose name, e-mail or organisation contains it (each
 * with the reasons that apply, possibly none).
 */
export async function findLineCandidates(deps: Deps, lineId: string, query: string | undefined, limit: number): Promise<{ output: ProposalView[] }> {
  const read = forReading(deps);
  const line = await findLine(read.db, lineId);
  if (!line) throw notFound('payment line', lineId);
  const text = query?.trim();
  if (!text) return { output: proposable(line) ? ((await proposalsFor(read, [line])).get(line.id) ?? []).slice(0, limit) : [] };
  const found = (await findPaymentCandidates(read.db, { dealIds: null, query: text }, 200)).map(asCandidate);
  const facts = factsOf(line);
  const ranked = found
    .map((c) => scoreCandidate(facts, c))
    .sort((a, b) => b.score - a.score || a.candidate.fullName.localeCompare(b.candidate.fullName) || (a.candidate.dealId < b.candidate.dealId ? -1 : 1));
  return { output: ranked.slice(0, limit).map(viewOf) };
}
