// Why a bank line whose money was matched still waits in the queue, in plain words, and the way
// forward: read from the refused move kept on the line (`refusal`: the problem's kind, detail and
// extensions, as domain/move-rules.ts raised it). Pure: field labels come from the deal's workflow.

export interface Advice {
  /** What stopped the move, e.g. "KYC reference and Agreement signed on are not filled in". */
  summary: string;
  /** What to do, e.g. "Fill KYC reference and Agreement signed on, then decide again". */
  action: string;
  /** The fields to fill, with their labels, when fields are what is missing. */
  fields: { key: string; label: string }[];
}

const list = (items: readonly string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The field keys a failed `previous-fields-complete` names (its `missingFields`, else its detail's list). */
function earlierFields(failure: Record<string, unknown>): string[] {
  const named = strings(failure['missingFields']);
  if (named.length > 0) return named;
  const detail = typeof failure['detail'] === 'string' ? failure['detail'] : '';
  const at = detail.lastIndexOf(': ');
  return at < 0
    ? []
    : detail
        .slice(at + 2)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/**
 * The advice for one refusal, or undefined when there is none (no refusal). `labelOf` names a field
 * key as the workflow labels it (undefined: the key itself is shown).
 */
export function adviseRefusal(refusal: unknown, labelOf: (key: string) => string | undefined): Advice | undefined {
  const r = record(refusal);
  if (!r) return undefined;
  const label = (key: string) => labelOf(key) ?? key;
  const detail = typeof r['detail'] === 'string' ? r['detail'] : 'the move was refused';
  const keys = new Set(strings(r['missingFields']));
  const others: string[] = [];
  const steps: string[] = [];
  for (const f of Array.isArray(r['failedRequirements']) ? r['failedRequirements'] : []) {
    const failure = record(f);
    if (!failure) continue;
    switch (failure['kind']) {
      case 'previous-fields-complete':
        for (const k of earlierFields(failure)) keys.add(k);
        break;
      case 'kyc-level':
        others.push(String(failure['detail'] ?? 'the KYC level is too low'));
        steps.push("raise the investor's KYC level in the investor directory");
        break;
      case 'classification':
        others.push(String(failure['detail'] ?? 'the investor holds none of the classes required'));
        steps.push('give the investor one of the classes the payment step requires');
        break;
      case 'investor-category':
        others.push(String(failure['detail'] ?? 'the investor has no current category statement of those the payment step requires'));
        steps.push("record the investor's renewed category statement");
        break;
      case 'no-pending-edit-requests':
        others.push(String(failure['detail'] ?? 'the investor has a pending edit request'));
        steps.push("answer the investor's pending edit request (Inbox)");
        break;
      case 'signed-agreement':
        others.push(String(failure['detail'] ?? 'the subscription agreement is not signed and countersigned'));
        steps.push('have the investor sign the subscription agreement in the portal, then countersign it');
        break;
      default:
        others.push(String(failure['detail'] ?? failure['kind']));
    }
  }
  const fields = [...keys].map((key) => ({ key, label: label(key) }));
  if (fields.length > 0) {
    const names = list(fields.map((f) => f.label));
    steps.unshift(`fill ${names}`);
    others.unshift(`${names} ${fields.length === 1 ? 'is' : 'are'} not filled in`);
  }
  if (others.length > 0) {
    const action = list(steps);
    return { summary: `The investor was not moved: ${list(others)}.`, action: `${action[0]!.toUpperCase()}${action.slice(1)}, then decide again.`, fields };
  }
  if (/payment step/.test(detail))
    return { summary: `The investor was not moved: ${detail}.`, action: "Choose the payment step in the deal's payment settings, then decide again.", fields };
  if (r['movesBackward'] === true || r['kind'] === 'conflict') {
    return {
      summary: `The investor was not moved: ${detail}.`,
      action: 'Move the investor by hand from the board if they should, or assign the line elsewhere or dismiss it.',
      fields,
    };
  }
  return { summary: `The investor was not moved: ${detail}.`, action: 'Correct what the reason names, then decide again.', fields };
}

/** Advice for a line's refusal: one refusal, or a split's list of `{dealId, investorUserId, refusal}`. */
export function adviseLine(
  line: { refusal: unknown; dealId: string | null },
  labelOf: (dealId: string | null, key: string) => string | undefined,
  nameOf: (investorUserId: string) => string,
): Advice | undefined {
  const { refusal } = line;
  if (!Array.isArray(refusal)) return adviseRefusal(refusal, (key) => labelOf(line.dealId, key));
  const parts = refusal.flatMap((item) => {
    const x = record(item);
    const advice = x && adviseRefusal(x['refusal'], (key) => labelOf(String(x['dealId']), key));
    return advice ? [{ who: nameOf(String(x['investorUserId'])), advice }] : [];
  });
  if (parts.length === 0) return undefined;
  return {
    summary: parts.map((p) => `${p.who}: ${p.advice.summary.replace(/^The investor was not moved: /, '')}`).join(' '),
    action: parts.map((p) => `${p.who}: ${p.advice.action}`).join(' '),
    fields: parts.flatMap((p) => p.advice.fields),
  };
}
