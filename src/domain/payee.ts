// Whom an investor pays for a deal: the beneficiary's name, IBAN and BIC, as staff set them in the
// deal's payment settings. Checked here (IBAN: ISO 13616 country length and MOD 97-10 check digits,
// BIC: ISO 9362, both through ibantools), kept in their compact upper-case form, so that what the
// portal prints and the EPC QR code carries is exactly what the bank expects. Pure.
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import type { FieldError } from './errors.ts';

export interface Payee {
  beneficiaryName: string | null;
  iban: string | null;
  bic: string | null;
}

/** The EPC QR code's limit for the beneficiary's name, which the portal prints too (EPC069-12). */
export const BENEFICIARY_NAME_MAX = 70;

// Line breaks and other control characters would end a line of the QR payload early.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** An IBAN as typed (spaces, lower case) in its electronic form: compact, upper case. */
export const compactIban = (iban: string): string => electronicFormatIBAN(iban) ?? iban.replace(/\s+/g, '').toUpperCase();

/** A BIC as typed, compact and upper case. */
export const compactBic = (bic: string): string => bic.replace(/\s+/g, '').toUpperCase();

/**
 * The payee as stored (compact, upper case; blank name trimmed), or the field errors that refuse it
 * (each naming `beneficiaryName`, `iban` or `bic`).
 */
export function checkPayee(input: Payee): { payee: Payee; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const add = (field: keyof Payee, detail: string) => errors.push({ in: 'body', field, detail });
  const name = input.beneficiaryName === null ? null : input.beneficiaryName.trim();
  if (name !== null) {
    if (name.length === 0) add('beneficiaryName', 'must not be blank');
    else if ([...name].length > BENEFICIARY_NAME_MAX) add('beneficiaryName', `must be at most ${BENEFICIARY_NAME_MAX} characters`);
    else if (CONTROL.test(name)) add('beneficiaryName', 'must be one line, without control characters');
  }
  const iban = input.iban === null ? null : compactIban(input.iban);
  if (iban !== null && !isValidIBAN(iban)) {
    add('iban', "is not a valid IBAN: a country code, two check digits and the account number of that country's length (ISO 13616, MOD 97-10)");
  }
  const bic = input.bic === null ? null : compactBic(input.bic);
  if (bic !== null && !((bic.length === 8 || bic.length === 11) && isValidBIC(bic))) {
    add('bic', 'is not a valid BIC: 8 or 11 letters and digits (bank, country, location and an optional branch; ISO 9362)');
  }
  return { payee: { beneficiaryName: name, iban, bic }, errors };
}
