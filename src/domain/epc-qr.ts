// The payload of an EPC QR code (European Payments Council, EPC069-12 "Quick Response Code:
// Guidelines to Enable the Data Capture for the Initiation of a SEPA Credit Transfer", version 002):
// a banking app that scans it fills in a SEPA credit transfer to the deal's beneficiary, with the
// amount and the investor's RF reference. The QR image itself is drawn by the portal. Pure.
//
// Elements, one per line (LF), in this order; trailing empty elements are left out, and the last
// element is not followed by a line feed:
//   BCD · 002 · 1 (UTF-8) · SCT · BIC (optional in 002) · name (≤ 70) · IBAN ·
//   EUR + amount (0.01 to 999999999.99, two decimals; empty: the payer types it) ·
//   purpose (empty) · structured creditor reference (ISO 11649 RF…, ≤ 35) · unstructured text (empty,
//   since a structured reference is given) · information to the payer (empty)
// The whole payload is at most 331 bytes (QR version 13 at error correction level M).
import Big from 'big.js';

export const EPC_MAX_BYTES = 331;
const MAX_AMOUNT = new Big('999999999.99');

export interface EpcTransfer {
  beneficiaryName: string | null;
  iban: string | null;
  bic: string | null;
  currency: string | null;
  /** Decimal text; null or not above zero: no amount in the code, the payer enters it. */
  amount: string | null;
  /** The investor's RF creditor reference (compact). */
  reference: string | null;
}

/** The amount element: `EUR` and the amount with two decimals, or empty when it cannot carry one. */
function amountElement(amount: string | null): string {
  if (amount === null) return '';
  let value: Big;
  try {
    value = new Big(amount);
  } catch {
    return '';
  }
  // Never rounded: an amount finer than a cent, out of range or not positive is left to the payer.
  if (value.lt('0.01') || value.gt(MAX_AMOUNT) || !value.round(2, Big.roundDown).eq(value)) return '';
  return `EUR${value.toFixed(2)}`;
}

/**
 * The EPC069-12 payload of the transfer, or null when there is none to give: a currency other than
 * EUR (SEPA credit transfers are in euro), no beneficiary name or IBAN, elements over their limits,
 * or a payload over 331 bytes.
 */
export function epcQrPayload(transfer: EpcTransfer): string | null {
  const { beneficiaryName: name, iban, bic, currency, reference } = transfer;
  if (currency !== 'EUR' || !name || !iban) return null;
  if ([...name].length > 70 || /[\r\n]/.test(name) || iban.length > 34 || (bic !== null && bic.length !== 8 && bic.length !== 11)) return null;
  if (reference !== null && reference.length > 35) return null;
  const elements = ['BCD', '002', '1', 'SCT', bic ?? '', name, iban, amountElement(transfer.amount), '', reference ?? ''];
  while (elements.at(-1) === '') elements.pop();
  const payload = elements.join('\n');
  return Buffer.byteLength(payload, 'utf8') <= EPC_MAX_BYTES ? payload : null;
}
