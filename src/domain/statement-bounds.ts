// The bounds of a bank statement, checked while it streams in, before anything is built from it
// (docs/reference/limits.md, "Statements"). A real camt.053 or camt.054 nests about a dozen levels
// (Document/BkToCstmrStmt/Stmt/Ntry/NtryDtls/TxDtls/RltdPties/Dbtr/Pty/PstlAdr/AdrLine is 11) and
// an entry holds tens of elements, a batched one some thousands; the limits are far above that and
// far below what exhausts memory (a million nested elements took the parser past 500 MB).

/** Elements nested deeper than this (Document is level 1) are refused. */
export const MAX_STATEMENT_DEPTH = 32;
/** Elements in one entry (Ntry and everything in it). */
export const MAX_ENTRY_ELEMENTS = 100_000;
/** Elements outside the entries (headers, accounts, balances, summaries), held until the end: some 35 a report, so thousands of accounts' reports fit. */
export const MAX_OTHER_ELEMENTS = 100_000;
/** Remittance lines (Ustrd) and structured references (Strd/CdtrRefInf) of one transaction. */
export const MAX_REMITTANCE_PARTS = 20;

export interface TextMaximum {
  length: number;
  /** The ISO 20022 data type the length is that of. */
  type: string;
}

const max = (length: number, type = `Max${length}Text`): TextMaximum => ({ length, type });

/**
 * The ISO 20022 maximum length of each text element of camt.053 and camt.054 (001.02 to 001.08), by
 * local name; where a name has several types in the messages, the longest. Characters, not bytes.
 */
export const textMaxima: Readonly<Record<string, TextMaximum>> = {
  MsgId: max(35),
  Id: max(35),
  IBAN: max(34, 'IBAN2007Identifier'),
  BICFI: max(11, 'BICFIIdentifier'),
  BIC: max(11, 'BICIdentifier'),
  Nm: max(140),
  Ustrd: max(140),
  AddtlRmtInf: max(140),
  EndToEndId: max(35),
  AcctSvcrRef: max(35),
  InstrId: max(35),
  TxId: max(35),
  PmtInfId: max(35),
  MndtId: max(35),
  ChqNb: max(35),
  ClrSysRef: max(35),
  AcctOwnrTxId: max(35),
  AcctSvcrTxId: max(35),
  MktInfrstrctrTxId: max(35),
  PrcgId: max(35),
  UETR: max(36, 'UUIDv4Identifier'),
  Ref: max(35),
  Nb: max(35),
  Cd: max(35),
  Prtry: max(35),
  Issr: max(35),
  SchmeNm: max(35),
  SubFmlyCd: max(4, 'ExternalBankTransactionSubFamily1Code'),
  AdrLine: max(70),
  StrtNm: max(70),
  BldgNb: max(16),
  PstCd: max(16),
  TwnNm: max(35),
  CtrySubDvsn: max(35),
  Ctry: max(2, 'CountryCode'),
  Ccy: max(3, 'ActiveOrHistoricCurrencyCode'),
  CdtDbtInd: max(4, 'CreditDebitCode'),
  RvslInd: max(5, 'TrueFalseIndicator'),
  AddtlNtryInf: max(500),
  AddtlTxInf: max(500),
  AddtlStmtInf: max(500),
  AddtlNtfctnInf: max(500),
  AddtlInf: max(500),
};

/** Any other element: the longest text type of these messages. */
export const OTHER_TEXT_MAXIMUM: TextMaximum = max(2048);

export const textMaximumOf = (localName: string): TextMaximum => textMaxima[localName] ?? OTHER_TEXT_MAXIMUM;

/** Why `text` is too long for `maximum`, or undefined. */
export function textTooLong(text: string, maximum: TextMaximum): string | undefined {
  if (text.length <= maximum.length) return undefined;
  // Counted in code points, as ISO 20022 counts characters (an emoji is one, two UTF-16 units).
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) length++;
  }
  return length <= maximum.length ? undefined : `${length} characters, more than ${maximum.type} allows (${maximum.length})`;
}

/** The CSV columns a statement maps, held to the camt element each stands for. */
export const csvColumnMaxima = {
  reference: textMaxima['Ustrd']!,
  counterparty: textMaxima['Nm']!,
  counterpartyAccount: max(34),
  bankReference: textMaxima['AcctSvcrRef']!,
} as const;
