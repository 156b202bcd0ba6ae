// The EPC069-12 payload, case by case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EPC_MAX_BYTES, type EpcTransfer, epcQrPayload } from './epc-qr.ts';

const transfer = (extra: Partial<EpcTransfer> = {}): EpcTransfer => ({
  beneficiaryName: 'Northwind Capital Fund I',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  currency: 'EUR',
  amount: '25000.00',
  reference: 'RF18539007547034',
  ...extra,
});
const lines = (payload: string | null) => payload?.split('\n');

const cases: { name: string; transfer: EpcTransfer; payload: string | null }[] = [
  {
    name: 'every element: BIC, name, IBAN, amount, empty purpose, the RF reference last',
    transfer: transfer(),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\nEUR25000.00\n\nRF18539007547034',
  },
  {
    name: 'without a BIC (optional in version 002)',
    transfer: transfer({ bic: null }),
    payload: 'BCD\n002\n1\nSCT\n\nNorthwind Capital Fund I\nDE89370400440532013000\nEUR25000.00\n\nRF18539007547034',
  },
  {
    name: 'an amount with fewer decimals gets two',
    transfer: transfer({ amount: '1500.5' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\nEUR1500.50\n\nRF18539007547034',
  },
  {
    name: 'the largest amount',
    transfer: transfer({ amount: '999999999.99' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\nEUR999999999.99\n\nRF18539007547034',
  },
  {
    name: 'above the largest amount: left to the payer',
    transfer: transfer({ amount: '1000000000.00' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\n\n\nRF18539007547034',
  },
  {
    name: 'nothing to pay: left to the payer',
    transfer: transfer({ amount: '0.00' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\n\n\nRF18539007547034',
  },
  {
    name: 'finer than a cent: never rounded, left to the payer',
    transfer: transfer({ amount: '10.005' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000\n\n\nRF18539007547034',
  },
  {
    name: 'no amount and no reference: trailing empty elements left out',
    transfer: transfer({ amount: null, reference: null }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nNorthwind Capital Fund I\nDE89370400440532013000',
  },
  {
    name: 'a name in UTF-8',
    transfer: transfer({ beneficiaryName: 'Société Générale Über Ænergy' }),
    payload: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nSociété Générale Über Ænergy\nDE89370400440532013000\nEUR25000.00\n\nRF18539007547034',
  },
  { name: 'not in euro', transfer: transfer({ currency: 'USD' }), payload: null },
  { name: 'no currency', transfer: transfer({ currency: null }), payload: null },
  { name: 'no beneficiary', transfer: transfer({ beneficiaryName: null }), payload: null },
  { name: 'no IBAN', transfer: transfer({ iban: null }), payload: null },
  { name: 'a name over 70 characters', transfer: transfer({ beneficiaryName: 'x'.repeat(71) }), payload: null },
  { name: 'a name with a line break', transfer: transfer({ beneficiaryName: 'Northwind\nEvil' }), payload: null },
  { name: 'a reference over 35 characters', transfer: transfer({ reference: `RF${'1'.repeat(34)}` }), payload: null },
];

for (const c of cases) {
  test(c.name, () => assert.equal(epcQrPayload(c.transfer), c.payload));
}

test('the elements sit on the lines the guidelines give them', () => {
  const got = lines(epcQrPayload(transfer()))!;
  assert.deepEqual(got.slice(0, 4), ['BCD', '002', '1', 'SCT']);
  assert.equal(got[6], 'DE89370400440532013000');
  assert.equal(got[7], 'EUR25000.00');
  assert.equal(got[8], '', 'purpose empty');
  assert.equal(got[9], 'RF18539007547034', 'structured creditor reference');
  assert.equal(got.length, 10, 'no unstructured text, nothing after the reference');
});

test(`a payload is at most ${EPC_MAX_BYTES} bytes: 70 four-byte characters do not fit`, () => {
  const longest = transfer({ beneficiaryName: '𝔑'.repeat(70), bic: 'COBADEFFXXX', amount: '999999999.99', reference: `RF${'9'.repeat(23)}` });
  assert.equal(epcQrPayload(longest), null);
  const ascii = epcQrPayload(transfer({ beneficiaryName: 'N'.repeat(70), amount: '999999999.99', reference: `RF${'9'.repeat(23)}` }));
  assert.ok(ascii !== null && Buffer.byteLength(ascii) <= EPC_MAX_BYTES);
});
