// Screening: which list entries a person's names resemble, and how strongly (name-match.ts scores
// the names; a date of birth or a nationality known on both sides moves the score).
//
// Blocking: every list name is filed under the first three letters of each of its tokens, and a
// person is compared only with entries sharing one of those keys, so a screen compares a few
// dozen names instead of the whole list. A typo in a token's first three letters still meets the
// entry through its other tokens; a one-token name with such a typo is missed (the benchmark's
// recall figure counts this).

import { nameTokens, tokenSimilarity } from './name-match.ts';
import type { SanctionsEntry } from './sanctions-entry.ts';

export const DEFAULT_SCREENING_THRESHOLD = 0.9;

export interface ScreenedPerson {
  readonly names: readonly string[];
  /** YYYY-MM-DD when known. */
  readonly birthDate?: string | undefined;
  /** ISO 3166-1 alpha-2 codes or country names. */
  readonly nationalities?: readonly string[] | undefined;
}

export interface ScreeningHit {
  readonly entry: SanctionsEntry;
  readonly score: number;
  readonly matchedName: string;
  readonly personName: string;
}

interface IndexedName {
  readonly entry: SanctionsEntry;
  readonly name: string;
  readonly tokens: readonly string[];
}

export interface ScreeningIndex {
  readonly blocks: ReadonlyMap<string, readonly IndexedName[]>;
  readonly size: number;
}

function blockKeys(tokens: readonly string[]): Set<string> {
  return new Set(tokens.map((t) => t.slice(0, 3)));
}

export function buildScreeningIndex(entries: Iterable<SanctionsEntry>): ScreeningIndex {
  const blocks = new Map<string, IndexedName[]>();
  let size = 0;
  for (const entry of entries) {
    size++;
    for (const name of entry.names) {
      const tokens = nameTokens(name);
      const indexed = { entry, name, tokens };
      for (const key of blockKeys(tokens)) {
        const block = blocks.get(key);
        if (block === undefined) blocks.set(key, [indexed]);
        else block.push(indexed);
      }
    }
  }
  return { blocks, size };
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country as a comparable key: ISO alpha-2 codes become their English names. */
export function countryKey(country: string): string {
  const trimmed = country.trim();
  let name = trimmed;
  if (/^[A-Za-z]{2}$/.test(trimmed)) {
    try {
      name = regionNames.of(trimmed.toUpperCase()) ?? trimmed;
    } catch {
      name = trimmed;
    }
  }
  return nameTokens(name).join(' ');
}

/** How a date of birth or nationality known on both sides moves a name's score. */
export function attributeAdjustment(person: ScreenedPerson, entry: SanctionsEntry): number {
  let adjustment = 0;
  if (person.birthDate !== undefined && entry.birthDates.length > 0) {
    const birthDate = person.birthDate;
    const agrees = entry.birthDates.some((d) => birthDate.startsWith(d));
    const nearYear = entry.birthDates.some((d) => Math.abs(Number(d.slice(0, 4)) - Number(birthDate.slice(0, 4))) <= 1);
    adjustment += agrees ? 0.05 : nearYear ? 0 : -0.15;
  }
  if (person.nationalities !== undefined && person.nationalities.length > 0 && entry.nationalities.length > 0) {
    const mine = new Set(person.nationalities.map(countryKey));
    adjustment += entry.nationalities.some((n) => mine.has(countryKey(n))) ? 0.02 : -0.05;
  }
  return adjustment;
}

/** The entries the person resembles at or above the threshold, best first, one hit per entry. */
export function screenPerson(person: ScreenedPerson, index: ScreeningIndex, threshold = DEFAULT_SCREENING_THRESHOLD): ScreeningHit[] {
  const best = new Map<SanctionsEntry, ScreeningHit>();
  for (const personName of person.names) {
    const tokens = nameTokens(personName);
    const seen = new Set<IndexedName>();
    for (const key of blockKeys(tokens)) {
      for (const candidate of index.blocks.get(key) ?? []) {
        if (seen.has(candidate)) continue;
        seen.add(candidate);
        const nameScore = tokenSimilarity(tokens, candidate.tokens);
        if (nameScore + 0.05 < threshold) continue;
        const score = Math.min(1, Math.max(0, nameScore + attributeAdjustment(person, candidate.entry)));
        if (score < threshold) continue;
        const previous = best.get(candidate.entry);
        if (previous === undefined || previous.score < score) {
          best.set(candidate.entry, { entry: candidate.entry, score, matchedName: candidate.name, personName });
        }
      }
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}
