// The UN Security Council consolidated list: <CONSOLIDATED_LIST> holds <INDIVIDUALS><INDIVIDUAL>
// and <ENTITIES><ENTITY>, each with <DATAID>, <FIRST_NAME> … <FOURTH_NAME>, <UN_LIST_TYPE>,
// <NATIONALITY><VALUE>, <INDIVIDUAL_ALIAS>/<ENTITY_ALIAS><ALIAS_NAME> and
// <INDIVIDUAL_DATE_OF_BIRTH> with <DATE>, or <YEAR>, or <FROM_YEAR>/<TO_YEAR>.

import type { SanctionsEntry } from '../../domain/sanctions-entry.ts';
import { childText, childrenNamed, joinName, unique, type XmlElement } from './xml-records.ts';

export const UN_RECORDS = new Set(['INDIVIDUAL', 'ENTITY']);

export function unEntry(record: XmlElement): SanctionsEntry {
  const person = record.name === 'INDIVIDUAL';
  const primary = joinName(...['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map((n) => childText(record, n)));
  const aliases = childrenNamed(record, person ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS').map((a) => childText(a, 'ALIAS_NAME'));
  const birthDates = childrenNamed(record, 'INDIVIDUAL_DATE_OF_BIRTH').map((d) => {
    const date = childText(d, 'DATE').slice(0, 10);
    if (/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
    return childText(d, 'YEAR') || childText(d, 'FROM_YEAR');
  });
  return {
    sourceId: childText(record, 'DATAID'),
    subject: person ? 'person' : 'entity',
    names: unique([primary, ...aliases]),
    birthDates: unique(birthDates),
    nationalities: unique(childrenNamed(record, 'NATIONALITY').flatMap((n) => childrenNamed(n, 'VALUE').map((v) => v.text))),
    programmes: unique([childText(record, 'UN_LIST_TYPE')]),
  };
}
