// The UK's consolidated list (OFSI, ConList.csv): a first line "Last Updated,DD/MM/YYYY", then a
// header row and one row per name: "Name 6" is the surname, "Name 1" … "Name 5" the other names,
// "Title", "Name Non-Latin Script", "DOB" (DD/MM/YYYY, zeros where unknown), "Nationality" (numbered "(1) … (2) …" when
// several), "Group Type" (Individual, Entity, Ship), "Alias Type", "Regime" and "Group ID", which
// ties a designation's rows together. Rows of one group need not be adjacent, so groups are gathered
// in memory: the list has a few thousand.

import { parse } from 'csv-parse';
import { partialDate, type SanctionsEntry, type SanctionsSubject } from '../../domain/sanctions-entry.ts';
import { joinName, unique } from './xml-records.ts';

interface Group {
  subject: SanctionsSubject;
  names: string[];
  birthDates: string[];
  nationalities: string[];
  programmes: string[];
}

function subjectOf(type: string): SanctionsSubject {
  if (type === 'Individual') return 'person';
  if (type === 'Entity') return 'entity';
  return 'other';
}

function ukDate(text: string): string | undefined {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text.trim());
  return match === null ? undefined : partialDate(match[3]!, match[2], match[1]);
}

function listOf(text: string): string[] {
  return text
    .split(/\(\d+\)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export async function* ukEntries(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<SanctionsEntry> {
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true });
  const groups = new Map<string, Group>();
  let header: string[] | undefined;
  const feed = (async () => {
    for await (const chunk of chunks) if (!parser.write(chunk)) await new Promise((r) => parser.once('drain', r));
    parser.end();
  })();
  for await (const row of parser as AsyncIterable<string[]>) {
    if (header === undefined) {
      if (row.includes('Group ID')) header = row;
      continue;
    }
    const field = (name: string): string => row[header!.indexOf(name)]?.trim() ?? '';
    const id = field('Group ID');
    if (id === '') continue;
    let group = groups.get(id);
    if (group === undefined) {
      group = { subject: subjectOf(field('Group Type')), names: [], birthDates: [], nationalities: [], programmes: [] };
      groups.set(id, group);
    }
    const name = joinName(field('Name 1'), field('Name 2'), field('Name 3'), field('Name 4'), field('Name 5'), field('Name 6'));
    if (field('Alias Type').toLowerCase().startsWith('primary')) group.names.unshift(name);
    else group.names.push(name);
    group.names.push(field('Name Non-Latin Script'));
    const birthDate = ukDate(field('DOB'));
    if (birthDate !== undefined) group.birthDates.push(birthDate);
    group.nationalities.push(...listOf(field('Nationality')));
    group.programmes.push(field('Regime'));
  }
  await feed;
  if (header === undefined) throw new Error('not an OFSI consolidated list: no header row with "Group ID"');
  for (const [sourceId, g] of groups) {
    yield {
      sourceId,
      subject: g.subject,
      names: unique(g.names),
      birthDates: unique(g.birthDates),
      nationalities: unique(g.nationalities),
      programmes: unique(g.programmes),
    };
  }
}
