// Exact decimals for money. Amounts arrive as JSON numbers that the body parser has
// already limited to 15 significant digits (src/wire/strict-json.ts), so `String(n)` is the exact
// decimal the client wrote (a double round-trips every decimal of ≤15 significant digits). From
// there on everything is big.js: products and comparisons never touch binary floating point.
import Big from 'big.js';

/** A decimal as plain text, never in exponent notation: `1e-8` → `"0.00000001"`. */
export type Decimal = string;

/**
 * The exact decimal text of a JSON number that passed the body parser. Throws for a number that
 * is not finite or has more than 15 significant digits: those never reach here from a request.
 */
export function decimalOf(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a finite number`);
  const text = String(value);
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length > 15) throw new RangeError(`${text} has more than 15 significant digits`);
  // Without an exponent the text is already a plain decimal; only `1e-7` and `1e+21` need big.js.
  return /e/i.test(text) ? new Big(text).toFixed() : text;
}

/**
 * The JSON number for a stored decimal: the double nearest to it, which prints as the same digits
 * (`"1000.10"` → 1000.1) because stored amounts never have more than 15 significant digits.
 */
export function numberOf(decimal: Decimal): number {
  const value = Number(decimal);
  if (String(value) === decimal) return value; // the usual case: the same digits, nothing to compare
  if (!new Big(decimal).eq(new Big(String(value)))) throw new RangeError(`${decimal} cannot be returned exactly as a JSON number`);
  return value;
}

/** units × price, exactly. */
export const exactProduct = (units: Decimal, pricePerUnit: Decimal): Decimal => new Big(units).times(pricePerUnit).toFixed();

/** Rounded to cents, half away from zero (half-up for the non-negative amounts we hold). */
export const toCents = (value: Decimal): Decimal => new Big(value).round(2, Big.roundHalfUp).toFixed(2);

/** Half a cent: the largest difference between a total and the exact product still "to the cent". */
const HALF_CENT = new Big('0.005');

/**
 * Whether `total` equals `units × pricePerUnit` to the cent. Accepted: the exact product, the
 * product rounded half-up to cents, and anything strictly within half a cent of the product (so a
 * total with sub-cent digits is judged by the same rule). At an exact half cent (0.125) only the
 * half-up rounding (0.13) is accepted, not 0.12, so exactly one two-decimal total fits every
 * product. `expected` is that two-decimal total, stated in the 422.
 */
export function checkTotal(total: Decimal, units: Decimal, pricePerUnit: Decimal): { ok: boolean; expected: Decimal; product: Decimal } {
  const product = exactProduct(units, pricePerUnit);
  const expected = toCents(product);
  const given = new Big(total);
  const ok = given.eq(expected) || given.minus(product).abs().lt(HALF_CENT);
  return { ok, expected, product };
}
