// OFAC's Specially Designated Nationals list, sdn.xml: <sdnList> holds <sdnEntry>, each with <uid>,
// <firstName>, <lastName>, <sdnType> (Individual, Entity, Vessel, Aircraft), <programList><program>,
// <akaList><aka><firstName/><lastName/></aka>, <dateOfBirthList><dateOfBirthItem><dateOfBirth>
// (written "28 Apr 1937", "Apr 1937" or "1937") and <nationalityList><nationality><country>.

import { partialDate, type SanctionsEntry, type SanctionsSubject } from '../../domain/sanctions-entry.ts';
import { child, childText, descendants, joinName, unique, type XmlElement } from './xml-records.ts';

export const OFAC_RECORDS = new Set(['sdnEntry']);

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** OFAC's dates of birth: "28 Apr 1937", "Apr 1937", "1937", or a range "1960 to 1962" (its first year). */
export function ofacDate(text: string): string | undefined {
  const parts = text.trim().split(/\s+/);
  const [a, b, c] = parts;
  if (parts.length >= 3 && a !== undefined && /^\d{1,2}$/.test(a) && b !== undefined && c !== undefined && /^\d{4}$/.test(c)) {
    return partialDate(c, String(MONTHS.indexOf(b.slice(0, 3).toLowerCase()) + 1), a);
  }
  if (parts.length === 2 && a !== undefined && b !== undefined && /^\d{4}$/.test(b)) {
    return partialDate(b, String(MONTHS.indexOf(a.slice(0, 3).toLowerCase()) + 1));
  }
  return a !== undefined && /^\d{4}$/.test(a) ? a : undefined;
}

function subjectOf(type: string): SanctionsSubject {
  if (type === 'Individual') return 'person';
  if (type === 'Entity') return 'entity';
  return 'other';
}

function nameOf(element: XmlElement): string {
  return joinName(childText(element, 'firstName'), childText(element, 'lastName'));
}

export function ofacEntry(record: XmlElement): SanctionsEntry {
  const akas = child(record, 'akaList')?.children ?? [];
  return {
    sourceId: childText(record, 'uid'),
    subject: subjectOf(childText(record, 'sdnType')),
    names: unique([nameOf(record), ...akas.map(nameOf)]),
    birthDates: unique(descendants(record, 'dateOfBirth').map((d) => ofacDate(d.text) ?? '')),
    nationalities: unique([
      ...descendants(record, 'nationality').map((n) => childText(n, 'country')),
      ...descendants(record, 'citizenship').map((n) => childText(n, 'country')),
    ]),
    programmes: unique(descendants(record, 'program').map((p) => p.text)),
  };
}
