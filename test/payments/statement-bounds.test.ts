// A statement is bounded while it streams in, before anything is built from it (docs/reference/
// limits.md, "Statements"): elements nested deeper than 32 levels, more than 100,000 elements in one
// entry or 100,000 outside the entries are a 400 naming the limit; every text element is held to its
// ISO 20022 maximum (Nm and Ustrd Max140Text, EndToEndId and AcctSvcrRef Max35Text, …), and a CSV
// statement's mapped columns to the same, each refusal a 400 naming the line and the element or
// column. Nothing of a refused statement is stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { postStatement } from '../support/payments.ts';
import { rowCounts } from '../support/row-counts.ts';

let n = 0;
/** A camt.053.001.08 with one credit; the parts given replace the defaults. */
function camt(parts: { grpHdr?: string; nm?: string; ustrd?: string; endToEnd?: string; acctSvcrRef?: string; inTx?: string } = {}) {
  n += 1;
  return (
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
    `<GrpHdr><MsgId>M-BOUNDS-${process.pid}-${n}</MsgId>${parts.grpHdr ?? ''}</GrpHdr>` +
    '<Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>' +
    '<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt>' +
    `<AcctSvcrRef>${parts.acctSvcrRef ?? `B-${process.pid}-${n}`}</AcctSvcrRef>` +
    `<NtryDtls><TxDtls><Refs><EndToEndId>${parts.endToEnd ?? 'E2E-1'}</EndToEndId></Refs>` +
    `<RltdPties><Dbtr><Pty><Nm>${parts.nm ?? 'Ada Lovelace'}</Nm></Pty></Dbtr></RltdPties>` +
    `<RmtInf><Ustrd>${parts.ustrd ?? 'thank you'}</Ustrd></RmtInf>${parts.inTx ?? ''}</TxDtls></NtryDtls></Ntry>` +
    '</Stmt></BkToCstmrStmt></Document>'
  );
}

describe('statement bounds', () => {
  const t = startApp();

  const refused = async (body: string, contentType = 'application/xml', query = '') => {
    const before = await rowCounts(t);
    const started = performance.now();
    const response = await postStatement(t, body, contentType, query);
    const ms = performance.now() - started;
    const problem = expectProblem(response, 400);
    assert.deepEqual(await rowCounts(t), before, 'nothing of a refused statement is stored');
    return { problem, ms };
  };

  it('nesting deeper than 32 levels: 400 naming the limit, answered at once (a million levels too)', async () => {
    for (const depth of [40, 1_000_000]) {
      const { problem, ms } = await refused(camt({ inTx: '<X>'.repeat(depth) + '</X>'.repeat(depth) }));
      assert.match(problem.detail, /deeper than 32 levels/);
      // Document is level 1, TxDtls level 6: the X at level 33 is the 27th.
      assert.equal(problem.errors?.[0]?.field, `Stmt[1]/Ntry[1]/TxDtls[1]/${Array(27).fill('X').join('/')}`);
      assert.ok(ms < 5000, `answered in ${Math.round(ms)} ms`);
    }
  });

  it('more than 100,000 elements in one entry or outside the entries: 400 naming the limit', async () => {
    const inEntry = await refused(camt({ inTx: '<X/>'.repeat(100_001) }));
    assert.match(inEntry.problem.detail, /more than 100,000 elements/);
    assert.equal(inEntry.problem.errors?.[0]?.field, 'Stmt[1]/Ntry[1]');
    const outside = await refused(camt({ grpHdr: '<X/>'.repeat(100_001) }));
    assert.match(outside.problem.detail, /more than 100,000 elements outside its entries/);
  });

  it('text longer than its ISO 20022 maximum: 400 naming the line, the element and its type; the maximum itself is taken', async () => {
    const cases: [Parameters<typeof camt>[0], string, RegExp][] = [
      [{ nm: 'N'.repeat(141) }, 'Stmt[1]/Ntry[1]/TxDtls[1]/RltdPties/Dbtr/Pty/Nm', /141 characters.*Max140Text/],
      [{ ustrd: 'U'.repeat(141) }, 'Stmt[1]/Ntry[1]/TxDtls[1]/RmtInf/Ustrd', /Max140Text/],
      [{ endToEnd: 'E'.repeat(36) }, 'Stmt[1]/Ntry[1]/TxDtls[1]/Refs/EndToEndId', /Max35Text/],
      [{ acctSvcrRef: 'R'.repeat(36) }, 'Stmt[1]/Ntry[1]/AcctSvcrRef', /Max35Text/],
      [{ nm: 'N'.repeat(2 * 1024 * 1024) }, 'Stmt[1]/Ntry[1]/TxDtls[1]/RltdPties/Dbtr/Pty/Nm', /Max140Text/],
    ];
    for (const [parts, field, detail] of cases) {
      const { problem } = await refused(camt(parts));
      assert.equal(problem.errors?.[0]?.field, field);
      assert.match(problem.detail, detail);
    }
    const atMost = await postStatement(
      t,
      camt({ nm: 'N'.repeat(140), ustrd: 'Ü'.repeat(140), endToEnd: 'E'.repeat(35), acctSvcrRef: `R${'r'.repeat(20)}${n}`.padEnd(35, 'x') }),
    );
    assert.equal(atMost.status, 201, JSON.stringify(atMost.body));
  });

  it('a page of 100 lines, each with every kept text at its maximum in 3-byte characters, stays under 2 MB', async (context) => {
    const full = (length: number) => '€'.repeat(length);
    const entries = Array.from({ length: 100 }, (_, i) => {
      const reference = `MAX-${process.pid}-${n}-${i}`.padEnd(35, 'x');
      return (
        '<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt>' +
        `<AcctSvcrRef>${reference}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>${full(35)}</EndToEndId></Refs>` +
        `<RltdPties><Dbtr><Pty><Nm>${full(140)}</Nm></Pty></Dbtr><DbtrAcct><Id><Othr><Id>${full(35)}</Id></Othr></Id></DbtrAcct></RltdPties>` +
        `<RmtInf>${`<Ustrd>${full(140)}</Ustrd>`.repeat(20)}` +
        `${`<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${full(35)}</Ref></CdtrRefInf></Strd>`.repeat(20)}</RmtInf>` +
        '</TxDtls></NtryDtls></Ntry>'
      );
    });
    n += 1;
    const body =
      '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
      `<GrpHdr><MsgId>M-MAX-${process.pid}-${n}</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>${entries.join('')}</Stmt>` +
      '</BkToCstmrStmt></Document>';
    const stored = await postStatement(t, body);
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const page = await t.admin.get(`/payments/lines?statementId=${stored.body.statement.id}&limit=100`);
    assert.equal(page.status, 200);
    assert.equal(page.body.output.length, 100);
    const line = page.body.output[0];
    assert.ok(line.remittance.length >= 20 * 140, 'every remittance line kept');
    assert.equal(line.debtorName, full(140));
    const bytes = Buffer.byteLength(JSON.stringify(page.body));
    assert.ok(bytes < 2 * 1024 * 1024, `a page of 100 lines is ${bytes} bytes`);
    context.diagnostic(`a page of 100 maximal lines: ${bytes} bytes`);
  });

  it('a CSV statement: each mapped column held to the same maximum, naming the row and column', async () => {
    const MAPPED = '?counterpartyColumn=counterparty&bankReferenceColumn=bank_reference';
    const csv = (counterparty: string, reference: string, bankReference: string) =>
      `date,amount,currency,reference,counterparty,bank_reference\n2026-11-23,10.00,EUR,${reference},${counterparty},${bankReference}\n`;
    const long = [
      [csv('C'.repeat(141), 'thanks', `CSV-${process.pid}-a`), 'row 2.counterparty'],
      [csv('Ada', 'R'.repeat(141), `CSV-${process.pid}-b`), 'row 2.reference'],
      [csv('Ada', 'thanks', 'B'.repeat(36)), 'row 2.bank_reference'],
    ] as const;
    for (const [body, field] of long) {
      const { problem } = await refused(body, 'text/csv', MAPPED);
      assert.equal(problem.errors?.[0]?.field, field);
    }
    const atMost = await postStatement(t, csv('C'.repeat(140), 'R'.repeat(140), `CSV-${process.pid}`.padEnd(35, 'x')), 'text/csv', MAPPED);
    assert.equal(atMost.status, 201, JSON.stringify(atMost.body));
  });
});
