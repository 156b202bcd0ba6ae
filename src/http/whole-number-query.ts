// Query parameters that must be whole numbers as sent. The TypeBox compiler converts query text
// before validating it, and its conversion truncates "1.5" to 1 and reads "2e1" as 20; the brief
// wants anything outside 1..100 (or not a page number at all) refused, so the text is checked first.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../domain/errors.ts';

export function wholeNumberQuery(names: readonly string[]) {
  return async (request: FastifyRequest) => {
    const query = request.query as Record<string, unknown>;
    const bad = names.filter((name) => typeof query[name] === 'string' && !/^\d+$/.test(query[name] as string));
    if (bad.length > 0) throw invalid(bad.map((field) => ({ in: 'query', field, detail: 'must be a whole number' })), `Invalid query: ${bad.join(', ')}`);
  };
}

const integerNames = (schema: unknown): string[] => {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, s]) => s?.type === 'integer')
    .map(([name]) => name);
};

/**
 * Every integer query and path parameter of every route, not only the routes that remembered to
 * ask: TypeBox's conversion from text turned `limit=1.5` into 1, `0x10` into 16 and ` 5` into 5,
 * and `/portfolio/assets/1.5` into asset 1 (found by the reliability suite, issue 7).
 */
export function registerWholeNumbers(app: FastifyInstance) {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const schema = request.routeOptions.schema;
    if (!schema) return;
    const errors: { in: 'query' | 'path'; field: string; detail: string }[] = [];
    for (const [where, values, part] of [
      ['query', request.query, schema.querystring],
      ['path', request.params, schema.params],
    ] as const) {
      for (const name of integerNames(part)) {
        const value = (values as Record<string, unknown> | undefined)?.[name];
        if (typeof value === 'string' && !/^-?\d+$/.test(value)) errors.push({ in: where, field: name, detail: 'must be a whole number' });
      }
    }
    if (errors.length > 0) throw invalid(errors, `Invalid ${errors.map((e) => e.field).join(', ')}: must be a whole number`);
  });
}
