// The only body parser: JSON, strictly. Other media types get 415 (Fastify's default for a type
// without a parser). Numbers are checked against their source text (JSON.parse source access,
// TC39 proposal-json-parse-with-source, in Node 21+): a number with more than 15 significant
// digits, or one that overflows or underflows a double, cannot be held exactly and is refused
// rather than rounded. `__proto__` keys are refused, as Fastify's secure-json-parse does.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { isStorableText, unstorableDetail } from './storable-text.ts';

export const MAX_SIGNIFICANT_DIGITS = 15;

/** Significant digits of a JSON number literal: `1000.10` has 5, `0.00000001` has 1. */
export function significantDigits(source: string): number {
  const mantissa = source.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '');
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

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const reason = err instanceof RangeError ? 'it is nested too deeply' : (err as Error).message;
    throw new AppError('validation', `The body is not valid JSON: ${reason}`);
  }
}

export function registerJsonBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
