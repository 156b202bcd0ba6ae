import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isCalendarDate } from './calendar-date.ts';

describe('isCalendarDate', () => {
  test('accepts dates on the calendar and refuses the rest', () => {
    const cases: [string, boolean][] = [
      ['2026-01-01', true],
      ['2026-01-31', true],
      ['2026-02-28', true],
      ['2026-02-29', false], // 2026 is not a leap year
      ['2026-02-30', false],
      ['2024-02-29', true], // divisible by 4
      ['1900-02-29', false], // divisible by 100, not by 400
      ['2000-02-29', true], // divisible by 400
      ['2026-04-30', true],
      ['2026-04-31', false],
      ['2026-06-31', false],
      ['2026-09-31', false],
      ['2026-11-31', false],
      ['2026-12-31', true],
      ['2026-13-01', false],
      ['2026-00-10', false],
      ['2026-01-00', false],
      ['2026-01-32', false],
      ['0000-01-01', false],
      ['0001-01-01', true],
      ['9999-12-31', true],
      ['2026-1-01', false],
      ['2026-01-1', false],
      ['26-01-01', false],
      ['2026/01/01', false],
      ['2026-01-01T00:00:00Z', false],
      [' 2026-01-01', false],
      ['2026-01-01 ', false],
      ['２０２６-01-01', false], // full-width digits
      ['', false],
    ];
    for (const [value, expected] of cases) assert.equal(isCalendarDate(value), expected, JSON.stringify(value));
  });

  test('agrees with the UTC calendar of Date for every day of years 1 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        const date = new Date(0);
        date.setUTCFullYear(y, m - 1, d);
        const exists = date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
        assert.equal(isCalendarDate(text), exists, text);
      }),
      { numRuns: 2000 },
    );
  });
});
