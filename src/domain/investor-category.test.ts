import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { categoryExpiry, categoryStanding, daysAfter, holdsCategory, utcDate } from './investor-category.ts';

describe('investor categories', () => {
  test('a statement expires 12 months after it was signed, on the same day, clamped to the month', () => {
    const table: [string, string][] = [
      ['2026-03-15', '2027-03-15'],
      ['2026-01-01', '2027-01-01'],
      ['2026-12-31', '2027-12-31'],
      ['2024-02-29', '2025-02-28'],
      ['2027-02-28', '2028-02-28'],
      ['2026-08-31', '2027-08-31'],
    ];
    for (const [signed, expires] of table) assert.equal(categoryExpiry(signed), expires, signed);
    assert.throws(() => categoryExpiry('2026-02-30'), RangeError);
  });

  test('standing: valid, expiring within 30 days, expired on the day of expiry', () => {
    const table: [string, string, string][] = [
      ['2027-03-15', '2026-03-15', 'valid'],
      ['2027-03-15', '2027-02-12', 'valid'],
      ['2027-03-15', '2027-02-13', 'expiring'],
      ['2027-03-15', '2027-03-14', 'expiring'],
      ['2027-03-15', '2027-03-15', 'expired'],
      ['2027-03-15', '2030-01-01', 'expired'],
    ];
    for (const [expiresOn, today, standing] of table) assert.equal(categoryStanding(expiresOn, today), standing, `${expiresOn} on ${today}`);
  });

  test('days after a date: across months, years and 29 February', () => {
    const table: [string, number, string][] = [
      ['2026-03-15', 0, '2026-03-15'],
      ['2026-03-15', 30, '2026-04-14'],
      ['2026-12-31', 1, '2027-01-01'],
      ['2024-02-28', 1, '2024-02-29'],
      ['2024-02-29', 366, '2025-03-01'],
    ];
    for (const [date, days, after] of table) assert.equal(daysAfter(date, days), after, `${date} + ${days}`);
  });

  test('holding a category: one of those asked for, and not expired', () => {
    const statement = { category: 'certified-high-net-worth' as const, expiresOn: '2027-03-15' };
    assert.equal(holdsCategory(statement, ['certified-high-net-worth', 'professional'], '2027-03-14'), true);
    assert.equal(holdsCategory(statement, ['certified-high-net-worth'], '2027-03-15'), false);
    assert.equal(holdsCategory(statement, ['professional'], '2026-06-01'), false);
    assert.equal(holdsCategory(null, ['professional'], '2026-06-01'), false);
  });

  test('property: a statement counts on every day of its 12 months and on none after', () => {
    const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2090-12-31T00:00:00Z'), noInvalidDate: true }).map(utcDate);
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 800 }), (signed, offset) => {
        const expiresOn = categoryExpiry(signed);
        const today = utcDate(new Date(Date.parse(`${signed}T00:00:00Z`) + offset * 86_400_000));
        const counts = categoryStanding(expiresOn, today) !== 'expired';
        return counts === today < expiresOn && expiresOn > signed && Date.parse(expiresOn) - Date.parse(signed) <= 366 * 86_400_000;
      }),
    );
  });
});
