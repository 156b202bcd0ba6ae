import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { describe, test } from 'node:test';
import type { SanctionsEntry } from '../../domain/sanctions-entry.ts';
import { readSanctionsList } from './index.ts';
import { ofacDate } from './ofac.ts';

const fixture = (name: string) => new URL(`../../../test/fixtures/sanctions/${name}`, import.meta.url);

async function read(name: string, highWaterMark = 64): Promise<{ source: string; entries: SanctionsEntry[] }> {
  // A small highWaterMark splits records, names and multi-byte letters across chunks.
  const reading = await readSanctionsList(createReadStream(fixture(name), { highWaterMark }));
  assert.ok(reading !== undefined, name);
  const entries: SanctionsEntry[] = [];
  for await (const entry of reading.entries) entries.push(entry);
  return { source: reading.source, entries };
}

describe('readSanctionsList', () => {
  test('EU consolidated financial sanctions list (XML)', async () => {
    const { source, entries } = await read('eu-fsf.xml');
    assert.equal(source, 'eu');
    assert.deepEqual(entries[0], {
      sourceId: '900101',
      subject: 'person',
      names: ['Dmitrij Ivanovič Sokolov', 'Дмитрий Иванович Соколов'],
      birthDates: ['1968-02-03'],
      nationalities: ['RU'],
      programmes: ['UKR'],
    });
    assert.deepEqual([entries[1]?.subject, entries[1]?.names], ['entity', ['Severny Shipping Company']]);
  });

  test('OFAC SDN list (XML)', async () => {
    const { source, entries } = await read('ofac-sdn.xml');
    assert.equal(source, 'ofac');
    assert.deepEqual(entries[0], {
      sourceId: '990001',
      subject: 'person',
      names: ['Carlos Alberto MENDOZA RÍOS', 'EL GATO'],
      birthDates: ['1975-06-14'],
      nationalities: ['Colombia'],
      programmes: ['SDNTK'],
    });
    assert.equal(entries.length, 2);
  });

  test('UN consolidated list (XML)', async () => {
    const { source, entries } = await read('un-consolidated.xml');
    assert.equal(source, 'un');
    assert.deepEqual(entries[0], {
      sourceId: '8800001',
      subject: 'person',
      names: ['ABDUL RAHMAN QADIR', 'Abu Qadir al-Yemeni'],
      birthDates: ['1971'],
      nationalities: ['Yemen'],
      programmes: ['Al-Qaida'],
    });
    assert.deepEqual([entries[1]?.subject, entries[1]?.names], ['entity', ['AL-NUR CHARITABLE FOUNDATION', 'Nur Foundation']]);
  });

  test('UK consolidated list (OFSI CSV): rows of a group become one entry', async () => {
    const { source, entries } = await read('uk-conlist.csv');
    assert.equal(source, 'uk');
    assert.deepEqual(entries[0], {
      sourceId: '77001',
      subject: 'person',
      names: ['Olena Petrivna KOVALENKO', 'Олена Петрівна Коваленко', 'Elena KOVALENKO'],
      birthDates: ['1980-11-09', '1980'],
      nationalities: ['Ukraine', 'Russia'],
      programmes: ['Russia'],
    });
    assert.deepEqual([entries[1]?.subject, entries[1]?.names], ['entity', ['BALTIC FREIGHT, LLC']]);
  });

  test('another file is not a list', async () => {
    assert.equal(await readSanctionsList(createReadStream(fixture('../../../package.json'))), undefined);
  });

  test('OFAC dates of birth', () => {
    const cases: [string, string | undefined][] = [
      ['14 Jun 1975', '1975-06-14'],
      ['Jun 1975', '1975-06'],
      ['1975', '1975'],
      ['1960 to 1962', '1960'],
      ['circa 1970', '1970'],
      ['unknown', undefined],
    ];
    for (const [text, expected] of cases) assert.equal(ofacDate(text), expected, text);
  });
});
