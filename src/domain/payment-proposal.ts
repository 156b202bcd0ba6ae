// Which investors a bank line that waits in the queue most likely belongs to, and why: the amount
// equals what they still owe, the payer's name is close to the investor's or their company's, the
// reference quoted is one or two characters from theirs. Pure: the operation reads a bounded set
// of candidates (investors of the line's deals who still owe) and ranks them here.
import Big from 'big.js';

export interface LineFacts {
  amount: string;
  currency: string;
  /** The payer as the bank names them. */
  payerName: string | null;
  /** Every text where the payer may have quoted a reference: the reference found, structured, remittance. */
  referenceTexts: readonly (string | null)[];
}

export interface Candidate {
  dealId: string;
  investorUserId: string;
  fullName: string;
  /** Organisations the investor invests through (their classifications' organisations). */
  companies: readonly string[];
  paymentReference: string;
  /** Commitment minus what was received, in `currency`; null when no commitment is captured. */
  stillOwed: string | null;
  currency: string | null;
}

export const proposalReasonKinds = ['amount-owed', 'name', 'company', 'reference'] as const;
export type ProposalReasonKind = (typeof proposalReasonKinds)[number];

export interface ProposalReason {
  kind: ProposalReasonKind;
  /** For staff, e.g. "payer name close to Ada Lovelace (0.82)". */
  detail: string;
}

export interface Proposal<C extends Candidate = Candidate> {
  candidate: C;
  /** Higher is likelier; comparable between candidates of one line only. */
  score: number;
  reasons: ProposalReason[];
}

/** Weights: an exact amount and an exact name together (80) outrank any name that is only close. */
const AMOUNT = 40;
const NAME = 40;
const REFERENCE_1 = 30;
const REFERENCE_2 = 15;
/** Below this trigram similarity a name is not a reason (pg_trgm's own default threshold is 0.3). */
export const NAME_THRESHOLD = 0.45;

/** Lower case, accents dropped, words of letters and digits only. */
export function nameWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The trigrams of a text as pg_trgm makes them: each word padded with two spaces before, one after. */
export function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of nameWords(text)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** pg_trgm's similarity(): shared trigrams over all trigrams of both, 0..1; word order does not matter. */
export function similarity(a: string, b: string): number {
  return overlap(trigrams(a), trigrams(b));
}

function overlap(x: ReadonlySet<string>, y: ReadonlySet<string>): number {
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const t of x) if (y.has(t)) shared++;
  return shared / (x.size + y.size - shared);
}

// What a candidate is compared by is made once, however many lines it is scored for.
const known = new WeakMap<Candidate, { name: Set<string>; companies: Set<string>[]; owed: Big | null; reference: string }>();
const preparedOf = (c: Candidate) => {
  let t = known.get(c);
  if (!t) {
    const owed = c.stillOwed === null ? null : new Big(c.stillOwed);
    t = { name: trigrams(c.fullName), companies: c.companies.map(trigrams), owed: owed?.gt(0) ? owed : null, reference: compact(c.paymentReference) };
    known.set(c, t);
  }
  return t;
};

/** Edits (insert, delete, replace, swap of two neighbours) from a to b: optimal string alignment. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

const compact = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** A line's texts, compacted, with where a reference may start in each: read once per line. */
interface QuotedTexts {
  texts: { text: string; starts: number[] }[];
}

function quotedTexts(texts: readonly (string | null)[]): QuotedTexts {
  return {
    texts: texts.flatMap((t) => {
      if (!t) return [];
      const text = compact(t);
      return [{ text, starts: [...text.matchAll(/RF/g)].map((m) => m.index) }];
    }),
  };
}

function distanceIn(quoted: QuotedTexts, ref: string, max: number): number {
  let best = max + 1;
  for (const { text, starts } of quoted.texts) {
    const from = Math.abs(text.length - ref.length) <= max ? [0, ...starts] : starts;
    for (const s of new Set(from)) {
      for (let len = ref.length - max; len <= ref.length + max; len++) {
        if (len < 5 || s + len > text.length) continue;
        best = Math.min(best, editDistance(text.slice(s, s + len), ref, Math.min(max, best - 1)));
        if (best === 0) return 0;
      }
    }
  }
  return best;
}

/**
 * How close the texts quote `reference`: the fewest edits between it and a run of the compacted
 * text that starts at an "RF" (or the whole text, when it is about as long as a reference).
 */
export function referenceDistance(texts: readonly (string | null)[], reference: string, max = 2): number {
  return distanceIn(quotedTexts(texts), compact(reference), max);
}

/** The reasons one candidate is proposed for a line, with its score (0 and no reasons: not proposed). */
export function scoreCandidate<C extends Candidate>(line: LineFacts, candidate: C): Proposal<C> {
  return score(prepare(line), candidate);
}

interface PreparedLine {
  line: LineFacts;
  amount: Big;
  payer: Set<string> | null;
  quoted: QuotedTexts;
}

const prepare = (line: LineFacts): PreparedLine => ({
  line,
  amount: new Big(line.amount),
  payer: line.payerName ? trigrams(line.payerName) : null,
  quoted: quotedTexts(line.referenceTexts),
});

function score<C extends Candidate>({ line, amount, payer, quoted }: PreparedLine, candidate: C): Proposal<C> {
  const t = preparedOf(candidate);
  const reasons: ProposalReason[] = [];
  let score = 0;
  if (t.owed !== null && candidate.currency === line.currency && t.owed.eq(amount)) {
    score += AMOUNT;
    reasons.push({ kind: 'amount-owed', detail: `the amount equals what ${candidate.fullName} still owes` });
  }
  if (payer) {
    const byName = overlap(payer, t.name);
    const byCompany = candidate.companies.map((c, i) => ({ c, s: overlap(payer, t.companies[i]!) })).sort((x, y) => y.s - x.s)[0];
    const best =
      byCompany && byCompany.s > byName
        ? { kind: 'company' as const, s: byCompany.s, to: byCompany.c }
        : { kind: 'name' as const, s: byName, to: candidate.fullName };
    if (best.s >= NAME_THRESHOLD) {
      score += NAME * best.s;
      const how = best.s === 1 ? 'the same as' : 'close to';
      reasons.push({ kind: best.kind, detail: `payer name ${how} ${best.kind === 'company' ? `the company ${best.to}` : best.to} (${best.s.toFixed(2)})` });
    }
  }
  const distance = quoted.texts.length === 0 ? 3 : distanceIn(quoted, t.reference, 2);
  if (distance <= 2) {
    score += distance === 0 ? REFERENCE_1 * 2 : distance === 1 ? REFERENCE_1 : REFERENCE_2;
    reasons.push({
      kind: 'reference',
      detail:
        distance === 0
          ? `quotes their reference ${candidate.paymentReference}`
          : `reference ${distance === 1 ? 'one character' : 'two characters'} from theirs (${candidate.paymentReference})`,
    });
  }
  return { candidate, score: Math.round(score * 100) / 100, reasons };
}

/**
 * The candidates with at least one reason, likeliest first (score, then name, then ids, so the
 * order is stable), at most `limit`.
 */
export function proposeInvestors<C extends Candidate>(line: LineFacts, candidates: readonly C[], limit = 5): Proposal<C>[] {
  const prepared = prepare(line);
  return candidates
    .map((c) => score(prepared, c))
    .filter((p) => p.reasons.length > 0)
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.candidate.fullName.localeCompare(b.candidate.fullName) ||
        (a.candidate.dealId + a.candidate.investorUserId < b.candidate.dealId + b.candidate.investorUserId ? -1 : 1),
    )
    .slice(0, limit);
}
