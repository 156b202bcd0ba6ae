import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SanctionsEntry } from './sanctions-entry.ts';
import { buildScreeningIndex, countryKey, screenPerson } from './screening.ts';

const entry = (sourceId: string, names: string[], birthDates: string[] = [], nationalities: string[] = []): SanctionsEntry => ({
  sourceId,
  subject: 'person',
  names,
  birthDates,
  nationalities,
  programmes: [],
});

const list = [
  entry('1', ['Saddam Hussein Al-Tikriti', 'Abu Ali'], ['1937-04-28'], ['IQ']),
  entry('2', ['José Álvarez Núñez'], ['1970'], ['Spain']),
  entry('3', ['Acme Shipping Company Limited']),
];
const index = buildScreeningIndex(list);

describe('screenPerson', () => {
  test('finds aliases, swapped names and names without diacritics; dates and nationalities move the score', () => {
    const cases: [string, Parameters<typeof screenPerson>[0], string[]][] = [
      ['alias, swapped', { names: ['Ali Abu'] }, ['1']],
      ['no diacritics, swapped', { names: ['NUNEZ, Jose Alvarez'] }, ['2']],
      ['matching year of birth', { names: ['Jose Alvarez Nunez'], birthDate: '1970-05-01' }, ['2']],
      ['distant date of birth', { names: ['Jose Alvarez Nunez'], birthDate: '1990-05-01' }, []],
      ['ISO code against a country name', { names: ['Jose Alvares Nunez'], nationalities: ['ES'] }, ['2']],
      ['someone else', { names: ['Jane Smith'] }, []],
      ['an organisation', { names: ['ACME Shipping Co Limited'] }, ['3']],
    ];
    for (const [label, person, expected] of cases) {
      assert.deepEqual(
        screenPerson(person, index).map((h) => h.entry.sourceId),
        expected,
        label,
      );
    }
  });

  test('one hit per entry, best first', () => {
    const hits = screenPerson({ names: ['Saddam Hussein', 'Abu Ali'] }, index, 0.8);
    assert.equal(hits.filter((h) => h.entry.sourceId === '1').length, 1);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
  });

  test('countryKey reads codes and names alike', () => {
    assert.equal(countryKey('IQ'), countryKey('Iraq'));
    assert.equal(countryKey('es'), countryKey('SPAIN'));
  });
});
