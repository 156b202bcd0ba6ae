// The EU consolidated list of persons, groups and entities subject to financial sanctions (FSF),
// XML format 1.1: <export> holds <sanctionEntity logicalId=…>, each with <subjectType code=…>,
// <nameAlias wholeName firstName middleName lastName title>, <citizenship countryIso2Code>,
// <birthdate birthdate="YYYY-MM-DD" year monthOfYear dayOfMonth> and <regulation programme>.

import { partialDate, type SanctionsEntry, type SanctionsSubject } from '../../domain/sanctions-entry.ts';
import { childrenNamed, joinName, unique, type XmlElement } from './xml-records.ts';

export const EU_RECORDS = new Set(['sanctionEntity']);

function subjectOf(code: string | undefined): SanctionsSubject {
  if (code === 'person') return 'person';
  if (code === 'enterprise') return 'entity';
  return 'other';
}

export function euEntry(record: XmlElement): SanctionsEntry {
  const subject = subjectOf(childrenNamed(record, 'subjectType')[0]?.attributes.code);
  const names = unique(
    childrenNamed(record, 'nameAlias').map((a) => {
      const at = a.attributes;
      return at.wholeName?.trim() || joinName(at.firstName, at.middleName, at.lastName);
    }),
  );
  const birthDates = unique(
    childrenNamed(record, 'birthdate').map((b) => {
      const at = b.attributes;
      if (at.birthdate !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(at.birthdate)) return at.birthdate;
      return partialDate(at.year ?? '', at.monthOfYear, at.dayOfMonth) ?? '';
    }),
  );
  const nationalities = unique(childrenNamed(record, 'citizenship').map((c) => c.attributes.countryIso2Code ?? c.attributes.countryDescription ?? ''));
  const programmes = unique(childrenNamed(record, 'regulation').map((r) => r.attributes.programme ?? ''));
  return { sourceId: record.attributes.logicalId ?? record.attributes.euReferenceNumber ?? '', subject, names, birthDates, nationalities, programmes };
}
