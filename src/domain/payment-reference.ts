// ISO 11649 structured creditor references: "RF", two check digits, and up to 21 characters,
// checked with ISO 7064 MOD 97-10 (as IBANs are). Our references use digits only after "RF":
// MOD 97-10 then catches every single-digit change and every swap of two adjacent digits, and a
// letter in the body (a typed O for 0) fails the format before the checksum is even computed.

const BODY_LENGTH = 15;

/** Letters count as 10..35 (A..Z), digits as themselves, as ISO 7064 prescribes. */
function mod97(text: string): number {
  let remainder = 0;
  for (const char of text) {
    const code = char.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

/** The two check digits of a reference body. */
export function checkDigits(body: string): string {
  return String(98 - mod97(`${body}RF00`)).padStart(2, '0');
}

/** A reference from a body of digits: `RF` + check digits + body. */
export function referenceFromBody(body: string): string {
  if (!/^\d{1,21}$/.test(body)) throw new Error('a reference body is 1 to 21 digits');
  return `RF${checkDigits(body)}${body}`;
}

/** A new reference from a random source of digits (`randomDigit` returns 0..9). */
export function newPaymentReference(randomDigit: () => number): string {
  let body = String(1 + (randomDigit() % 9)); // no leading zero, so the printed length is fixed
  while (body.length < BODY_LENGTH) body += String(randomDigit() % 10);
  return referenceFromBody(body);
}

/** Upper-cased, spaces removed: how references are compared ("rf18 5390…" = "RF185390…"). */
export const normalizeReference = (input: string) => input.replace(/\s+/g, '').toUpperCase();

export type ReferenceCheck = 'valid' | 'malformed' | 'bad-check-digits';

/** Checks a normalized reference: our format (RF, 2 digits, 1–21 digits), then MOD 97-10. */
export function checkReference(reference: string): ReferenceCheck {
  if (!/^RF\d{2}\d{1,21}$/.test(reference)) return 'malformed';
  return mod97(reference.slice(4) + reference.slice(0, 4)) === 1 ? 'valid' : 'bad-check-digits';
}

/** Printed in groups of four, as on an invoice: "RF18 5390 0754 7034". */
export const formatReference = (reference: string) => reference.replace(/(.{4})(?=.)/g, '$1 ');
