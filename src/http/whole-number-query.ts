// Query parameters that must be whole numbers as sent. The TypeBox compiler converts query text
// before validating it, and its conversion truncates "1.5" to 1 and reads "2e1" as 20; the brief
// wants anything outside 1..100 (or not a page number at all) refused, so the text is checked first.
import type { FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.ts';

export function wholeNumberQuery(names: readonly string[]) {
  return async (request: FastifyRequest) => {
    const query = request.query as Record<string, unknown>;
    const bad = names.filter((name) => typeof query[name] === 'string' && !/^\d+$/.test(query[name] as string));
    if (bad.length > 0) throw invalid(bad.map((field) => ({ in: 'query', field, detail: 'must be a whole number' })), `Invalid query: ${bad.join(', ')}`);
  };
}
