// The strict JSON parser of every body and every NDJSON import line. Numbers are checked against
// their source text (JSON.parse source access, TC39 proposal-json-parse-with-source, in Node 21+): a
// number with more than 15 significant digits, or one that overflows or underflows a double, cannot
// be held exactly and is refused rather than rounded. `__proto__` keys are refused, as Fastify's
// secure-json-parse does; text PostgreSQL cannot store (storable-text.ts) is refused naming the
// member; a member name repeated within one object is refused (I-JSON, RFC 7493; duplicate-keys.ts).
// Refusals are AppErrors of kind validation, which each edge reports in its own way.
import { AppError } from '../domain/errors.ts';
import { findDuplicateKey } from './duplicate-keys.ts';
import { isStorableText, unstorableDetail } from './storable-text.ts';

export const MAX_SIGNIFICANT_DIGITS = 15;

/** Significant digits of a JSON number literal: `1000.10` has 5, `0.00000001` has 1. */
export function significantDigits(source: string): number {
  const mantissa = source
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const trimmed = mantissa.replace(/^0+/, '').replace(/0+$/, '');
  return trimmed.length;
}

function reviver(this: unknown, key: string, value: unknown, context?: { source?: string }) {
  if (key === '__proto__') throw new AppError('validation', 'The body may not contain a "__proto__" key');
  if (!isStorableText(key) || (typeof value === 'string' && !isStorableText(value))) {
    const field = isStorableText(key) ? key : JSON.stringify(key).slice(1, -1);
    throw new AppError('validation', `The body member "${field}" ${unstorableDetail}`, { errors: [{ in: 'body', field, detail: unstorableDetail }] });
  }
  if (typeof value === 'number' && context?.source !== undefined) {
    const source = context.source;
    if (!Number.isFinite(value) || (value === 0 && /[1-9]/.test(source.replace(/[eE].*$/, '')))) {
      throw new AppError('validation', `The number ${source} is outside the range a JSON number can hold exactly`);
    }
    if (significantDigits(source) > MAX_SIGNIFICANT_DIGITS) {
      throw new AppError(
        'validation',
        `The number ${source} has more than ${MAX_SIGNIFICANT_DIGITS} significant digits and cannot be held exactly; it is refused rather than rounded`,
      );
    }
  }
  return value;
}

/** JSON text as a value, strictly (see the top of this file); an AppError of kind validation when refused. */
export function parseStrictJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const reason = err instanceof RangeError ? 'it is nested too deeply' : (err as Error).message;
    throw new AppError('validation', `The body is not valid JSON: ${reason}`);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) {
    const field = duplicate.path === '' ? duplicate.key : `${duplicate.path}.${duplicate.key}`;
    throw new AppError('validation', `The body names the member "${field}" twice in one object; each name may appear once (I-JSON, RFC 7493)`, {
      errors: [{ in: 'body', field, detail: 'appears more than once in the same object' }],
    });
  }
  return value;
}
