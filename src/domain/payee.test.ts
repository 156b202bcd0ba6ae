// The payee of a deal's payment instructions: what is kept, and what is refused (naming the field).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPayee, type Payee } from './payee.ts';

const payee = (extra: Partial<Payee> = {}): Payee => ({
  beneficiaryName: 'Northwind Capital Fund I',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  ...extra,
});

const kept: { name: string; input: Payee; stored: Payee }[] = [
  { name: 'as given', input: payee(), stored: payee() },
  { name: 'all null', input: { beneficiaryName: null, iban: null, bic: null }, stored: { beneficiaryName: null, iban: null, bic: null } },
  { name: 'an IBAN typed in groups and lower case is kept compact, upper case', input: payee({ iban: 'de89 3704 0044 0532 0130 00' }), stored: payee() },
  { name: 'a BIC in lower case, 8 characters', input: payee({ bic: 'cobadeff' }), stored: payee({ bic: 'COBADEFF' }) },
  { name: 'a name with spaces around is trimmed', input: payee({ beneficiaryName: '  Northwind Capital Fund I ' }), stored: payee() },
  { name: 'a name of 70 characters', input: payee({ beneficiaryName: 'é'.repeat(70) }), stored: payee({ beneficiaryName: 'é'.repeat(70) }) },
  {
    name: 'another country: a Belgian IBAN',
    input: payee({ iban: 'BE71 0961 2345 6769', bic: 'GKCCBEBB' }),
    stored: payee({ iban: 'BE71096123456769', bic: 'GKCCBEBB' }),
  },
];
for (const c of kept) {
  test(`kept: ${c.name}`, () => assert.deepEqual(checkPayee(c.input), { payee: c.stored, errors: [] }));
}

const refused: { name: string; input: Payee; fields: string[] }[] = [
  { name: 'IBAN with wrong check digits', input: payee({ iban: 'DE89370400440532013001' }), fields: ['iban'] },
  { name: 'IBAN of the wrong length for its country', input: payee({ iban: 'DE8937040044053201300' }), fields: ['iban'] },
  { name: 'IBAN of an unknown country', input: payee({ iban: 'XX89370400440532013000' }), fields: ['iban'] },
  { name: 'IBAN that is not one', input: payee({ iban: 'hello' }), fields: ['iban'] },
  { name: 'BIC of 9 characters', input: payee({ bic: 'COBADEFFX' }), fields: ['bic'] },
  { name: 'BIC with an unknown country', input: payee({ bic: 'COBAZZFF' }), fields: ['bic'] },
  { name: 'BIC with a digit in the bank code', input: payee({ bic: 'C0BADEFF' }), fields: ['bic'] },
  { name: 'blank name', input: payee({ beneficiaryName: '   ' }), fields: ['beneficiaryName'] },
  { name: 'name over 70 characters', input: payee({ beneficiaryName: 'x'.repeat(71) }), fields: ['beneficiaryName'] },
  { name: 'name over two lines', input: payee({ beneficiaryName: 'Northwind\nCapital' }), fields: ['beneficiaryName'] },
  { name: 'everything wrong at once', input: { beneficiaryName: '', iban: 'DE00', bic: 'X' }, fields: ['beneficiaryName', 'iban', 'bic'] },
];
for (const c of refused) {
  test(`refused: ${c.name}`, () =>
    assert.deepEqual(
      checkPayee(c.input).errors.map((e) => e.field),
      c.fields,
    ));
}
