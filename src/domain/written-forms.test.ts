import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type DateStyle, dateStyles, detectSeparator, type NumberStyle, numberStyles, readDate, readNumber, writeDate, writeNumber } from './written-forms.ts';

describe('detectSeparator', () => {
  test('finds the separator of a header line', () => {
    const cases: [string, string][] = [
      ['Full Name;Email;Account Name;Amount;Amount Currency;Stage;Close Date', ';'],
      ['name,email,amount', ','],
      ['name\temail\tamount', '\t'],
      ['"Name, full";Email', ';'], // a comma inside quotes is part of the name
      ['"Name; full",Email,Amount', ','],
      ['email', ','], // one column: nothing to tell, RFC 4180's comma
      ['', ','],
    ];
    for (const [line, expected] of cases) assert.equal(detectSeparator(line), expected, JSON.stringify(line));
  });
});

describe('readNumber', () => {
  test('reads each style into the canonical decimal string, and refuses another style', () => {
    const cases: [string, NumberStyle, string | undefined][] = [
      ['25.000,00', '1.234,56', '25000.00'],
      ['25000,00', '1.234,56', '25000.00'],
      ['1.234.567,891', '1.234,56', '1234567.891'],
      ['1.234', '1.234,56', '1234'], // a group, not decimals
      [' 12.500,5 ', '1.234,56', '12500.5'],
      ['25.000,00', '1,234.56', undefined],
      ['25.000,00', '1234.56', undefined],
      ['25,000.00', '1,234.56', '25000.00'],
      ['25000.00', '1,234.56', '25000.00'],
      ['1,23,456.00', '1,234.56', undefined], // groups of three only
      ['25,000.00', '1234.56', undefined],
      ['25000.00', '1234.56', '25000.00'],
      ['0025.10', '1234.56', '25.10'],
      ['0', '1234.56', '0'],
      ['-5,5', '1.234,56', '-5.5'],
      ['-0,00', '1.234,56', '0.00'],
      ['', '1234.56', undefined],
      ['1e3', '1234.56', undefined],
      ['€ 25', '1234.56', undefined],
      ['12,', '1.234,56', undefined],
    ];
    for (const [text, style, expected] of cases) assert.equal(readNumber(text, style), expected, `${JSON.stringify(text)} as ${style}`);
  });

  test('a decimal written in any style reads back as the same canonical string', () => {
    const canonical = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.option(fc.stringMatching(/^\d{1,8}$/), { nil: undefined }))
      .map(
        ([negative, whole, decimals]) =>
          `${negative && (whole > 0n || /[1-9]/.test(decimals ?? '')) ? '-' : ''}${whole}${decimals === undefined ? '' : `.${decimals}`}`,
      );
    fc.assert(
      fc.property(canonical, fc.constantFrom(...numberStyles), (value, style) => {
        assert.equal(readNumber(writeNumber(value, style), style), value);
      }),
    );
  });
});

describe('readDate', () => {
  test('reads each style into YYYY-MM-DD and refuses dates not on the calendar', () => {
    const cases: [string, DateStyle, string | undefined][] = [
      ['01.03.2026', 'dd.mm.yyyy', '2026-03-01'],
      ['1.3.2026', 'dd.mm.yyyy', '2026-03-01'],
      ['01/03/2026', 'dd.mm.yyyy', '2026-03-01'],
      ['01/03/2026', 'mm/dd/yyyy', '2026-01-03'],
      ['12/31/2026', 'mm/dd/yyyy', '2026-12-31'],
      ['31.12.2026', 'mm/dd/yyyy', undefined],
      ['2026-03-01', 'yyyy-mm-dd', '2026-03-01'],
      ['2026-3-1', 'yyyy-mm-dd', '2026-03-01'],
      ['2026-03-01', 'dd.mm.yyyy', undefined],
      ['01.03.2026', 'yyyy-mm-dd', undefined],
      ['30.02.2026', 'dd.mm.yyyy', undefined],
      ['29.02.2024', 'dd.mm.yyyy', '2024-02-29'],
      ['', 'dd.mm.yyyy', undefined],
    ];
    for (const [text, style, expected] of cases) assert.equal(readDate(text, style), expected, `${JSON.stringify(text)} as ${style}`);
  });

  test('a date written in any style reads back as itself', () => {
    const iso = fc
      .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(iso, fc.constantFrom(...dateStyles), (value, style) => {
        assert.equal(readDate(writeDate(value, style), style), value);
      }),
    );
  });
});
