// A person or organisation on an official sanctions list, in the one shape every list's reader
// produces (operations/sanctions-readers/), whatever the source format.

export const SANCTIONS_SOURCES = ['eu', 'uk', 'ofac', 'un'] as const;
export type SanctionsSource = (typeof SANCTIONS_SOURCES)[number];

export const SANCTIONS_SUBJECTS = ['person', 'entity', 'other'] as const;
export type SanctionsSubject = (typeof SANCTIONS_SUBJECTS)[number];

export interface SanctionsEntry {
  /** The list's own stable id for the entry (EU logicalId, OFSI Group ID, OFAC uid, UN DATAID). */
  readonly sourceId: string;
  readonly subject: SanctionsSubject;
  /** The primary name first, then every alias, as the list writes them. */
  readonly names: readonly string[];
  /** Dates of birth as the list gives them: YYYY-MM-DD, YYYY-MM or YYYY. */
  readonly birthDates: readonly string[];
  /** Nationalities or citizenships as the list gives them (ISO codes or country names). */
  readonly nationalities: readonly string[];
  readonly programmes: readonly string[];
}

/** Partial dates some lists write with zeros for the unknown parts (OFSI: 00/00/1960). */
export function partialDate(year: string, month?: string, day?: string): string | undefined {
  if (!/^\d{4}$/.test(year) || year === '0000') return undefined;
  if (month === undefined || !/^\d{1,2}$/.test(month) || Number(month) === 0) return year;
  const mm = month.padStart(2, '0');
  if (day === undefined || !/^\d{1,2}$/.test(day) || Number(day) === 0) return `${year}-${mm}`;
  return `${year}-${mm}-${day.padStart(2, '0')}`;
}

/** What identifies a version of an entry: a change here makes an earlier dismissal lapse. */
export function entryFingerprintText(entry: SanctionsEntry): string {
  return JSON.stringify([entry.subject, [...entry.names].sort(), [...entry.birthDates].sort(), [...entry.nationalities].sort()]);
}
