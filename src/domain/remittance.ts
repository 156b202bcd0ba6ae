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
 * Every "RF" followed by digits, where the digits may be split by spaces and hyphens: the groups
 * after "RF" are joined and tried longest first, shortening only at a group boundary, so a
 * reference followed by other numbers ("RF18 5390 0754 7034 112 invoice 2026 77") is still found
 * without trying every prefix (each try has a 1 in 97 chance of passing by accident).
 */
function referenceInText(text: string, rejected: string[]): string | null {
  const pattern = /rf((?:[\s-]*\d)+)/gi;
  for (const match of text.matchAll(pattern)) {
    const groups = match[1]!.split(/[\s-]+/).filter((g) => g !== '');
    // Check digits may be written apart from the body ("RF 18 5390…") or together ("RF185390…").
    for (let end = groups.length; end >= 1; end--) {
      const reference = `RF${groups.slice(0, end).join('')}`;
      if (reference.length > 25) continue;
      if (checkReference(reference) === 'valid') return reference;
    }
    rejected.push(`RF${groups.join('')}`.slice(0, 40));
  }
  return null;
}
