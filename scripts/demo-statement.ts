// Prints a camt.053.001.08 statement paying the demo deal (for the walkthrough in docs/guides/reconcile-payments.md): reads the
// deal through the API ($BASE, $TOKEN), takes the investors waiting at "Subscription documents", and
// writes one credit per investor: most pay their commitment exactly, one pays half, one pays in
// another currency, one mistypes their reference; plus a credit quoting a reference that is nobody's
// and the bank's fees. `npm run -s demo:statement > statement.xml`
import { referenceFromBody } from '../src/domain/payment-reference.ts';

const base = process.env.BASE ?? 'http://127.0.0.1:3000';
const token = process.env.TOKEN;
if (!token) throw new Error('set TOKEN (and BASE) as the Try-it lines of the first start do');
const dealId = process.argv[2] ?? 'demo';
const get = async (path: string): Promise<any> => {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};

const waiting: { id: string; amount: string; currency: string }[] = [];
for (let page = 1; ; page++) {
  const { output, totalPages } = await get(`/deals/deal/${dealId}/all-investor-workflows?limit=100&page=${page}`);
  for (const { investor, journey } of output) {
    if (journey.at(-1)?.toStepId !== `${dealId}.documents`) continue;
    const data = Object.assign({}, ...journey.map((e: { data: object }) => e.data));
    waiting.push({ id: investor.id, amount: data.committed_amount, currency: data.currency });
  }
  if (page >= totalPages) break;
}
const refs = new Map<string, string>(
  (await get(`/deals/deal/${dealId}/all-payment-refernces`)).map((r: { investorUserId: string; paymentReference: string }) => [
    r.investorUserId,
    r.paymentReference,
  ]),
);
if (waiting.length < 4) throw new Error(`deal ${dealId} has ${waiting.length} investors at the documents step; the walkthrough needs 4`);

const grouped = (ref: string) => ref.replace(/(.{4})(?=.)/g, '$1 ');
// Two neighbouring characters swapped, the commonest typing slip, which the reference's MOD 97-10
// check digits always catch. They must differ, or the "typo" would be the reference itself.
const typo = (ref: string) => {
  let i = 6;
  while (i + 1 < ref.length && ref[i] === ref[i + 1]) i++;
  return `${ref.slice(0, i)}${ref[i + 1]}${ref[i]}${ref.slice(i + 2)}`;
};
const entries: string[] = [];
const entry = (n: number, amount: string, currency: string, direction: string, remittance: string, name: string) =>
  entries.push(`      <Ntry>
        <Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>2026-11-23</Dt></BookgDt><ValDt><Dt>2026-11-23</Dt></ValDt>
        <AcctSvcrRef>DEMO-${String(n).padStart(4, '0')}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>DEMO-E2E-${n}</EndToEndId></Refs>
          <Amt Ccy="${currency}">${amount}</Amt>
          <RltdPties><Dbtr><Pty><Nm>${name}</Nm></Pty></Dbtr></RltdPties>
          <RmtInf>${remittance}</RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`);
const scor = (ref: string) => `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${ref}</Ref></CdtrRefInf></Strd>`;
const [half, foreign, mistyped, ...exact] = waiting;
exact.forEach(
  (w, i) => void entry(i + 1, w.amount, w.currency, 'CRDT', i % 2 ? `<Ustrd>Subscription ${grouped(refs.get(w.id)!)}</Ustrd>` : scor(refs.get(w.id)!), w.id),
);
entry(101, (Number(half!.amount) / 2).toFixed(2), half!.currency, 'CRDT', scor(refs.get(half!.id)!), half!.id);
entry(102, foreign!.amount, foreign!.currency === 'USD' ? 'EUR' : 'USD', 'CRDT', scor(refs.get(foreign!.id)!), foreign!.id);
entry(103, mistyped!.amount, mistyped!.currency, 'CRDT', `<Ustrd>payment ${grouped(typo(refs.get(mistyped!.id)!))}</Ustrd>`, mistyped!.id);
entry(104, '500.00', 'GBP', 'CRDT', `<Ustrd>${referenceFromBody('999999999999999')}</Ustrd>`, 'Somebody Else');
entry(105, '35.00', 'GBP', 'DBIT', '<Ustrd>Account fees</Ustrd>', 'Bank');

process.stdout.write(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>DEMO-STMT-2026-11-23</MsgId><CreDtTm>2026-11-23T18:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>DEMO-STMT-2026-11-23</Id>
      <Acct><Id><IBAN>GB29NWBK60161331926819</IBAN></Id></Acct>
${entries.join('\n')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`);
process.stderr.write(
  `${exact.length} investors pay exactly (${exact.map((w) => w.id).join(', ')}); ${half!.id} pays half; ${foreign!.id} pays in another currency; ${mistyped!.id} mistypes the reference.\n`,
);
