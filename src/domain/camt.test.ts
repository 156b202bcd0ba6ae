// Reading camt.053/054: the shapes of the test fixtures, entity decoding, and refusals (each a
// validation error that the HTTP edge turns into a 400). The end-to-end behaviour of every outcome
// is in test/payments/reconcile.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseCamt } from './camt.ts';
import { AppError } from './errors.ts';
import { referenceFromBody } from './payment-reference.ts';

const REF = referenceFromBody('539007547034112');
const fixture = (name: string) => readFileSync(new URL(`../../test/payments/fixtures/${name}`, import.meta.url), 'utf8').replace(/\{\{REF_\w+\}\}/g, REF);

const statement = (entries: string, version = '08') =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}"><BkToCstmrStmt>` +
  `<GrpHdr><MsgId>M-1</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>${entries}</Stmt></BkToCstmrStmt></Document>`;

const entry = (inner: string, amount = '100.00') =>
  `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt><AcctSvcrRef>B-1</AcctSvcrRef>` +
  `<NtryDtls><TxDtls>${inner}</TxDtls></NtryDtls></Ntry>`;

const refusal = (xml: string): string => {
  try {
    parseCamt(xml);
  } catch (err) {
    assert.ok(err instanceof AppError && err.kind === 'validation', String(err));
    return err.message;
  }
  assert.fail('the statement was accepted');
};

describe('parseCamt', () => {
  it('reads a camt.053.001.02: batched entries, structured and unstructured references, currencies, debits', () => {
    const parsed = parseCamt(fixture('camt.053.001.02.xml'));
    assert.equal(parsed.format, 'camt.053');
    assert.equal(parsed.version, '001.02');
    assert.equal(parsed.messageId, 'STMT-2026-11-20-001');
    assert.ok(parsed.lines.length >= 6);
    assert.ok(parsed.lines.every((l) => l.account === 'DE89370400440532013000'));
    assert.ok(parsed.lines.some((l) => l.currency === 'USD'));
    assert.ok(parsed.lines.some((l) => l.direction === 'debit' && l.remittance[0] === 'Account fees November'));
    const grouped = parsed.lines.find((l) => l.remittance.length === 2)!;
    assert.equal(grouped.remittance[0], 'first instalment');
    assert.equal(grouped.endToEndId, null, 'NOTPROVIDED is no end-to-end id');
  });

  it('reads a prefixed camt.054.001.04 (ns:Document, DtTm, transaction Amt)', () => {
    const parsed = parseCamt(fixture('camt.054.001.04.xml'));
    assert.equal(parsed.format, 'camt.054');
    assert.equal(parsed.version, '001.04');
    assert.deepEqual(
      parsed.lines.map((l) => [l.amount, l.bookingDate, l.bankKey]),
      [
        ['15000.00', '2026-11-21', 'BANK-0101-1'],
        ['12000.00', '2026-11-21', 'BANK-0102'],
      ],
    );
    assert.deepEqual(parsed.lines[0]!.structuredReferences, [REF]);
    assert.equal(parsed.lines[0]!.debtorName, 'Cleo Carter');
  });

  it('reads a camt.053.001.08 (Sts/Cd, Dbtr/Pty/Nm, a reversal)', () => {
    const parsed = parseCamt(fixture('camt.053.001.08.xml'));
    assert.ok(parsed.lines.some((l) => l.reversal));
    assert.ok(parsed.lines.every((l) => l.entryStatus === 'BOOK'));
  });

  it('keeps the lines of every entry in document order, transactions of a batch in order', () => {
    const batch =
      `<Ntry><Amt Ccy="EUR">300.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><AcctSvcrRef>B-2</AcctSvcrRef><NtryDtls>` +
      `<TxDtls><Amt Ccy="EUR">100.00</Amt></TxDtls><TxDtls><Amt Ccy="EUR">200.00</Amt></TxDtls></NtryDtls></Ntry>`;
    const parsed = parseCamt(statement(entry('', '1.00') + batch + entry('', '3.00')));
    assert.deepEqual(
      parsed.lines.map((l) => [l.amount, l.bankKey]),
      [
        ['1.00', 'B-1'],
        ['100.00', 'B-2#1'],
        ['200.00', 'B-2#2'],
        ['3.00', 'B-1'],
      ],
    );
  });

  it('decodes character references and CDATA in text', () => {
    const parsed = parseCamt(
      statement(
        entry(`<RltdPties><Dbtr><Pty><Nm>M&#252;ller &amp; Co</Nm></Pty></Dbtr></RltdPties>` + `<RmtInf><Ustrd><![CDATA[ref <${REF}>]]></Ustrd></RmtInf>`),
      ),
    );
    assert.equal(parsed.lines[0]!.debtorName, 'Müller & Co');
    assert.deepEqual(parsed.lines[0]!.remittance, [`ref <${REF}>`]);
  });

  it('refuses what is not a supported, well-formed camt message, naming where', () => {
    assert.match(refusal('<Document><unclosed></Document>'), /camt\.053 or camt\.054/);
    assert.match(refusal(statement('').replace('</Stmt>', '<Bal x=1/></Stmt>')), /not well-formed XML/);
    assert.match(refusal('not xml'), /not well-formed XML/);
    assert.match(refusal('<Foo/>'), /no ISO 20022 Document/);
    assert.match(refusal('<!DOCTYPE x [<!ENTITY a "b">]><Document/>'), /DOCTYPE/);
    assert.match(refusal(statement('<Ntry/>', '12')), /camt\.053\.001\.12 is not supported/);
    assert.match(refusal(statement(entry('') + entry('', '1,00'))), /^Stmt\[1\]\/Ntry\[2\]: the amount "1,00"/);
    assert.match(refusal(statement('').replace('<Stmt>', '<Stmt><Bal>&undefined;</Bal>')), /not well-formed XML/);
  });
});
