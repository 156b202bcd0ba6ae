// Finding the payment reference of a credit: the structured creditor reference (type SCOR) first,
// else the first valid RF reference anywhere in the unstructured text. Spaces, hyphens and case are
// ignored; a reference counts only when its ISO 11649 check digits hold.
import { checkReference } from './payment-reference.ts';

export interface FoundReference {
  reference: string | null;
  source: 'structured' | 'unstructured' | null;
  /** RF-looking texts whose check digits failed (mistyped references), for staff. */
  rejected: string[];
}

const compact = (text: string) => text.replace(/[\s-]+/g, '').toUpperCase();

export function findReference(structured: readonly string[], unstructured: readonly string[]): FoundReference {
  const rejected: string[] = [];
  for (const candidate of structured) {
    const reference = compact(candidate);
    const check = checkReference(reference);
    if (check === 'valid') return { reference, source: 'structured', rejected };
    if (/^RF/.test(reference)) rejected.push(reference);
  }
  for (const text of unstructured) {
    const found = referenceInText(text, rejected);
    if (found) return { reference: found, source: 'unstructured', rejected };
  }
  return { reference: null, source: null, rejected };
}

/**
 * Every "RF" followed by digits, read as a reference is printed: "RF", two check digits, and the
 * body in groups of four ("RF18 5390 0754 7034 112"; hyphens count as spaces, the check digits may
 * stand apart: "RF 18 5390…"), or written without spaces ("RF185390…"). The reference is the whole
 * grouped run, which ends with its first group that is not four characters long. It is never
 * shortened to find a valid prefix: a mistyped reference would then pass one try in 97 as a
 * shorter one ("RF39 9070 5171 9131 941" as RF399070) and be paid to whoever that is.
 */
export function groupedReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/rf((?:[\s-]*\d)+)/gi)) {
    const [first, ...rest] = match[1]!.split(/[\s-]+/).filter((g) => g !== '');
    let reference = `RF${first}`;
    let last = reference;
    for (const group of rest) {
      if (last.length !== 4) break;
      reference += group;
      last = group;
    }
    found.push(reference);
  }
  return found;
}

function referenceInText(text: string, rejected: string[]): string | null {
  for (const reference of groupedReferences(text)) {
    if (checkReference(reference) === 'valid') return reference;
    rejected.push(reference.slice(0, 40));
  }
  return null;
}
