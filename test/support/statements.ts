// Bank statements of many unmatched credits, for tests and checks that need a big file: every line
// is queued (no reference), and `tag` makes the file and its lines unique to the caller.

/** A CSV statement of `n` credits without a reference, unique to `tag` (lines are told apart by their fields). */
export const csvStatement = (n: number, tag: string) => {
  const lines = ['date,amount,currency,reference,bank_reference'];
  for (let i = 0; i < n; i++) lines.push(`2026-01-${String(1 + (i % 28)).padStart(2, '0')},${100 + (i % 900)}.00,EUR,Payment ${tag} ${i},${tag}-${i}`);
  return `${lines.join('\n')}\n`;
};

/**
 * A camt.053 of `n` booked credits without a reference, unique to `tag`. `wordy` gives each entry a
 * longer payer and remittance text (about 450 bytes an entry instead of 390), as banks' files have.
 */
export const camtStatement = (n: number, tag: string, { wordy = false } = {}) => {
  const entries: string[] = [];
  for (let i = 0; i < n; i++) {
    const payer = wordy ? `Payer number ${i} of the statement` : `Payer ${i}`;
    const remittance = wordy ? `Invoice ${i} with no reference at all, paid by transfer` : `Invoice ${i} with no reference`;
    entries.push(
      `<Ntry><Amt Ccy="EUR">${100 + (i % 900)}.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-01-05</Dt></BookgDt>` +
        `<ValDt><Dt>2026-01-05</Dt></ValDt><AcctSvcrRef>${tag}-${i}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${tag}-${i}</EndToEndId></Refs>` +
        `<RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${tag}</MsgId>` +
    `<CreDtTm>2026-01-05T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${tag}</Id><CreDtTm>2026-01-05T18:00:00</CreDtTm><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id>` +
    `<Ccy>EUR</Ccy></Acct>\n${entries.join('')}</Stmt></BkToCstmrStmt></Document>\n`
  );
};
