// ISO 20022 bank-to-customer messages: camt.053 (BankToCustomerStatement, Document/BkToCstmrStmt/
// Stmt) and camt.054 (BankToCustomerDebitCreditNotification, Document/BkToCstmrDbtCdtNtfctn/Ntfctn),
// versions 001.02 to 001.08, recognised by the Document's namespace
// (urn:iso:std:iso:20022:tech:xsd:camt.053.001.08). Each Stmt/Ntfctn has an Acct and entries (Ntry);
// an entry (ReportEntry) has Amt with a Ccy attribute, CdtDbtInd (CRDT/DBIT), RvslInd, BookgDt and
// ValDt (Dt or DtTm), AcctSvcrRef, and NtryDtls/TxDtls, one per transaction of a batched entry. A
// transaction (EntryTransaction) has Refs (AcctSvcrRef, EndToEndId), its amount (Amt from 001.03
// on, AmtDtls/TxAmt/Amt in every version), RltdPties/Dbtr (the name directly up to 001.07,
// Dbtr/Pty/Nm from 001.08 on, where Dbtr became a choice of party or agent) and DbtrAcct, and
// RmtInf with Ustrd lines and Strd/CdtrRefInf (Tp/CdOrPrtry/Cd SCOR, Ref). An entry's status (Sts)
// is a code as text up to 001.07 (BOOK, PDNG, INFO) and a choice from 001.08 on (Sts/Cd, with the
// external codes BOOK, PDNG, INFO, FUTR…, or Sts/Prtry); a missing one is read as BOOK, the only
// status a statement of booked entries (camt.053) carries.
//
// Parsing is saxes's (a strict, streaming XML reader: a document that is not well-formed is refused
// where it breaks). A DOCTYPE (and with it every entity declaration) is refused before parsing, so
// entity expansion ("billion laughs") cannot happen. Each entry (Stmt/Ntry, Ntfctn/Ntry) becomes its
// lines as soon as it closes and is then dropped, so memory holds one entry's elements, not the
// document's: a whole-document tree (fast-xml-parser, before) took 1.4-2 s of a 10,000-entry file,
// this 0.3-0.5 s (docs/benchmarks.md, "Reconciliation"). While it streams, the nesting depth, the
// elements of an entry and outside the entries, and each element's text are bounded
// (statement-bounds.ts), so a hostile document is refused before it is held.
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { CALENDAR_DATE_RULE, isCalendarDate } from './calendar-date.ts';
import { minorUnitsProblem } from './currency.ts';
import { AppError } from './errors.ts';
import { isStatementAmount, type ParsedStatement, type StatementLine } from './payment-line.ts';
import { MAX_ENTRY_ELEMENTS, MAX_OTHER_ELEMENTS, MAX_REMITTANCE_PARTS, MAX_STATEMENT_DEPTH, textMaximumOf, textTooLong } from './statement-bounds.ts';

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.(053|054)\.001\.(\d{2})$/;
export const supportedCamtVersions = ['02', '03', '04', '05', '06', '07', '08'] as const;

const bad = (detail: string, field = 'statement') => new AppError('validation', detail, { errors: [{ in: 'body', field, detail }] });

/**
 * An element as the readers below see it: a leaf without attributes is its trimmed text; otherwise
 * an object of children by name (prefix dropped: ns:Ntry is Ntry), attributes as `@name` and text as
 * `#text`. A repeated child, or one named in `arrays`, is an array.
 */
type Node = Record<string, unknown>;
const arrays = new Set(['Stmt', 'Ntfctn', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'CdtrRefInf']);
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

interface Frame {
  name: string;
  node: Node;
  text: string;
  children: boolean;
  attributes: boolean;
}

export function parseCamt(xml: string): ParsedStatement {
  // No DOCTYPE: camt messages never have one, and it is where entities are declared.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw bad('The statement declares a DOCTYPE or entities; they are not accepted');
  let kind: '053' | '054' | undefined;
  let version: string | undefined;
  let document: Node | undefined;
  const stack: Frame[] = [];
  const lines: StatementLine[] = [];
  let reports = 0;
  let entries = 0;
  // Where the parser stands, for the bounds: in an entry (and which transaction of it), and counts.
  let inEntry = false;
  let transactions = 0;
  let entryElements = 0;
  let otherElements = 0;
  const reportName = () => (kind === '053' ? 'Stmt' : 'Ntfctn');
  /** The path of the open element as lines are named: Stmt[1]/Ntry[2]/TxDtls[1]/RltdPties/Dbtr/Nm. */
  const here = () => {
    const parts: string[] = [];
    for (let i = 2; i < stack.length; i++) {
      const name = stack[i]!.name;
      if (i === 2 && name === reportName()) parts.push(`${name}[${reports}]`);
      else if (i === 3 && inEntry) parts.push(`Ntry[${entries + 1}]`);
      else if (i === 4 && inEntry && name === 'NtryDtls') continue;
      else if (i === 5 && inEntry && name === 'TxDtls') parts.push(`TxDtls[${transactions}]`);
      else parts.push(name);
    }
    return parts.length > 0 ? parts.join('/') : stack.map((f) => f.name).join('/');
  };
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    if (stack.length === 0) {
      if (name !== 'Document') throw bad('The statement has no ISO 20022 Document element');
      // The version is read from the namespace, wherever the Document declares it (default or prefixed).
      const found = Object.entries(tag.attributes)
        .filter(([k]) => k === 'xmlns' || k.startsWith('xmlns:'))
        .map(([, v]) => v.match(NAMESPACE))
        .find((m) => m !== null);
      if (!found) throw bad('The Document is not a camt.053 or camt.054 message (namespace urn:iso:std:iso:20022:tech:xsd:camt.05x.001.nn)');
      kind = found[1] as '053' | '054';
      version = found[2]!;
      if (!(supportedCamtVersions as readonly string[]).includes(version)) throw bad(`camt.${kind}.001.${version} is not supported (001.02 to 001.08 are)`);
    }
    const node: Node = {};
    for (const [k, v] of Object.entries(tag.attributes)) node[`@${k}`] = v;
    if (name === reportName() && stack.length === 2) {
      reports += 1;
      entries = 0;
    }
    const entryOpens =
      name === 'Ntry' &&
      stack.length === 3 &&
      stack[2]!.name === reportName() &&
      stack[1]!.name === (kind === '053' ? 'BkToCstmrStmt' : 'BkToCstmrDbtCdtNtfctn');
    if (entryOpens) {
      inEntry = true;
      transactions = 0;
      entryElements = 0;
    }
    if (inEntry && name === 'TxDtls' && stack.length === 5) transactions += 1;
    stack.push({ name, node, text: '', children: false, attributes: Object.keys(tag.attributes).length > 0 });
    if (stack.length > MAX_STATEMENT_DEPTH) {
      const at = here();
      throw bad(`${at}: the statement nests elements deeper than ${MAX_STATEMENT_DEPTH} levels; a camt message needs about a dozen`, at);
    }
    if (inEntry && ++entryElements > MAX_ENTRY_ELEMENTS) {
      const at = here().split('/').slice(0, 2).join('/');
      throw bad(`${at}: the entry has more than ${MAX_ENTRY_ELEMENTS.toLocaleString('en')} elements`, at);
    }
    if (!inEntry && ++otherElements > MAX_OTHER_ELEMENTS) {
      throw bad(`The statement has more than ${MAX_OTHER_ELEMENTS.toLocaleString('en')} elements outside its entries (at ${here()})`);
    }
  });
  const addText = (t: string) => {
    const top = stack[stack.length - 1];
    if (!top) return;
    // Whitespace between child elements is layout, not text: it is not kept.
    if (top.children && !/\S/.test(t)) return;
    top.text += t;
    const maximum = textMaximumOf(top.name);
    if (top.text.length > maximum.length) {
      const tooLong = textTooLong(top.text.trim(), maximum);
      if (tooLong) {
        const at = here();
        throw bad(`${at}: the text is ${tooLong}`, at);
      }
    }
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const frame = stack.pop()!;
    const text = frame.text.trim();
    let value: unknown = frame.node;
    if (!frame.children && !frame.attributes) value = text;
    else if (text !== '') frame.node['#text'] = text;
    const parent = stack[stack.length - 1];
    if (!parent) {
      document = frame.node;
      return;
    }
    parent.children = true;
    // An entry of a report (Document/message/Stmt|Ntfctn/Ntry) is read now and not kept.
    const report = kind === '053' ? 'Stmt' : 'Ntfctn';
    if (
      frame.name === 'Ntry' &&
      stack.length === 3 &&
      parent.name === report &&
      stack[1]!.name === (kind === '053' ? 'BkToCstmrStmt' : 'BkToCstmrDbtCdtNtfctn')
    ) {
      entries += 1;
      inEntry = false;
      lines.push(...entryLines(value as Node, accountId(parent.node['Acct']), `${report}[${reports}]/Ntry[${entries}]`));
      return;
    }
    const held = parent.node[frame.name];
    if (held === undefined) parent.node[frame.name] = arrays.has(frame.name) ? [value] : value;
    else if (Array.isArray(held)) held.push(value);
    else parent.node[frame.name] = [held, value];
  });
  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw bad(`The statement is not well-formed XML: ${(err as Error).message}`);
  }
  if (!document || !kind) throw bad('The statement has no ISO 20022 Document element');
  const message = (kind === '053' ? document['BkToCstmrStmt'] : document['BkToCstmrDbtCdtNtfctn']) as Node | undefined;
  if (!message || typeof message !== 'object') throw bad(`The camt.${kind} Document lacks its message element`);
  return { format: kind === '053' ? 'camt.053' : 'camt.054', version: `001.${version}`, messageId: text(path(message, 'GrpHdr', 'MsgId')), lines };
}

function path(node: unknown, ...keys: string[]): unknown {
  let at = node;
  for (const key of keys) {
    if (Array.isArray(at)) at = at[0];
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Node)[key];
  }
  return Array.isArray(at) ? at[0] : at;
}

function text(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object') {
    const inner = (value as Node)['#text'];
    return inner === undefined ? null : String(inner);
  }
  const s = String(value).trim();
  return s === '' ? null : s;
}

const accountId = (acct: unknown) => text(path(acct, 'Id', 'IBAN')) ?? text(path(acct, 'Id', 'Othr', 'Id'));
/** The day of a BookgDt or ValDt (Dt, or the date part of DtTm), refused unless it is on the calendar. */
function dateOf(node: unknown, where: string): string | null {
  const day = text(path(node, 'Dt'));
  const dateTime = day === null ? text(path(node, 'DtTm')) : null;
  const value = day ?? dateTime?.slice(0, 10) ?? null;
  if (value === null) return null;
  if (!isCalendarDate(value) || (dateTime !== null && !/^\d{4}-\d{2}-\d{2}T/.test(dateTime))) {
    throw bad(`${where}: ${JSON.stringify(day ?? dateTime)} ${CALENDAR_DATE_RULE}`, where);
  }
  return value;
}

function amountOf(node: unknown, where: string): { amount: string; currency: string } | null {
  if (node === undefined) return null;
  const amount = text(node);
  const currency = node !== null && typeof node === 'object' ? String((node as Node)['@Ccy'] ?? '') : '';
  if (!amount || !isStatementAmount(amount)) throw bad(`${where}: the amount ${JSON.stringify(amount)} is not a decimal amount`);
  if (!/^[A-Z]{3}$/.test(currency)) throw bad(`${where}: the amount has no ISO 4217 Ccy attribute`);
  const tooFine = minorUnitsProblem(amount, currency);
  if (tooFine) throw bad(`${where}: the amount ${amount} ${tooFine}`, `${where}/Amt`);
  return { amount, currency };
}

function direction(indicator: string | null, where: string): 'credit' | 'debit' {
  if (indicator === 'CRDT') return 'credit';
  if (indicator === 'DBIT') return 'debit';
  throw bad(`${where}: CdtDbtInd must be CRDT or DBIT`);
}

const partyName = (party: unknown) => text(path(party, 'Nm')) ?? text(path(party, 'Pty', 'Nm'));

function entryStatus(entry: Node): string {
  const status = entry['Sts'];
  const code =
    status !== null && typeof status === 'object' && !('#text' in (status as Node)) ? (text(path(status, 'Cd')) ?? text(path(status, 'Prtry'))) : text(status);
  return code?.toUpperCase() ?? 'BOOK';
}

function entryLines(entry: Node, account: string | null, where: string): StatementLine[] {
  const entryAmount = amountOf(entry['Amt'], where);
  if (!entryAmount) throw bad(`${where}: the entry has no Amt`);
  const entryDirection = direction(text(entry['CdtDbtInd']), where);
  const reversal = text(entry['RvslInd']) === 'true';
  const bookingDate = dateOf(entry['BookgDt'], `${where}/BookgDt`);
  const valueDate = dateOf(entry['ValDt'], `${where}/ValDt`);
  const entryRef = text(entry['AcctSvcrRef']);
  const transactions = ((entry['NtryDtls'] ?? []) as Node[]).flatMap((d) => (d['TxDtls'] ?? []) as Node[]);
  const base = { reversal, bookingDate, valueDate, account, entryStatus: entryStatus(entry) };
  if (transactions.length === 0) {
    const info = text(entry['AddtlNtryInf']);
    return [
      {
        ...base,
        ...entryAmount,
        direction: entryDirection,
        entryReference: entryRef,
        endToEndId: null,
        debtorName: null,
        debtorAccount: null,
        structuredReferences: [],
        remittance: info ? [info] : [],
        bankKey: entryRef,
      },
    ];
  }
  const batched = transactions.length > 1;
  return transactions.map((tx, t) => {
    const at = `${where}/TxDtls[${t + 1}]`;
    const txRef = text(path(tx, 'Refs', 'AcctSvcrRef'));
    const own = amountOf(path(tx, 'Amt'), at) ?? amountOf(path(tx, 'AmtDtls', 'TxAmt', 'Amt'), at);
    if (batched && !own) throw bad(`${at}: a transaction of a batched entry has no amount`);
    const indicator = text(tx['CdtDbtInd']);
    const structured = (((path(tx, 'RmtInf') as Node | undefined)?.['Strd'] as Node[] | undefined) ?? [])
      .flatMap((s) => (s['CdtrRefInf'] ?? []) as Node[])
      .filter((c) => {
        const code = text(path(c, 'Tp', 'CdOrPrtry', 'Cd'));
        return code === null || code === 'SCOR';
      })
      .map((c) => text(c['Ref']))
      .filter((r): r is string => r !== null);
    const unstructured = (((path(tx, 'RmtInf') as Node | undefined)?.['Ustrd'] as unknown[] | undefined) ?? [])
      .map(text)
      .filter((u): u is string => u !== null);
    // Each part is bounded in length while parsing; their number is bounded here, so a line is too.
    if (unstructured.length > MAX_REMITTANCE_PARTS)
      throw bad(`${at}: ${unstructured.length} remittance lines (Ustrd), more than ${MAX_REMITTANCE_PARTS}`, `${at}/RmtInf/Ustrd`);
    if (structured.length > MAX_REMITTANCE_PARTS)
      throw bad(`${at}: ${structured.length} creditor references, more than ${MAX_REMITTANCE_PARTS}`, `${at}/RmtInf/Strd`);
    const endToEnd = text(path(tx, 'Refs', 'EndToEndId'));
    // Batched entries: the transaction's own bank reference, else the entry's and its position.
    const bankKey = txRef ?? (entryRef === null ? null : batched ? `${entryRef}#${t + 1}` : entryRef);
    return {
      ...base,
      ...(own ?? entryAmount),
      direction: indicator ? direction(indicator, at) : entryDirection,
      entryReference: txRef ?? entryRef,
      endToEndId: endToEnd === 'NOTPROVIDED' ? null : endToEnd,
      debtorName: partyName(path(tx, 'RltdPties', 'Dbtr')),
      debtorAccount: accountId(path(tx, 'RltdPties', 'DbtrAcct')),
      structuredReferences: structured,
      remittance: unstructured,
      bankKey,
    };
  });
}
