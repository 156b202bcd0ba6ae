// The routes of the running service, from its own /openapi.json, and values for their parameters
// and bodies: a valid sample (for the access sweep) and fast-check arbitraries (for the fuzzer).
// Built generically, so routes that land later are covered without touching the suite.
import fc from 'fast-check';
import type { Client } from './http.ts';

export type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/deals/deal/{dealId}`. */
  path: string;
  key: string;
  pathParams: { name: string; schema: Schema }[];
  queryParams: { name: string; schema: Schema; required: boolean }[];
  body?: Schema;
  /** The media type of a body that is not JSON (a file upload: a PDF, an image, a bank statement). */
  rawType?: string;
  bodyRequired: boolean;
}

export async function loadOperations(client: Client): Promise<Operation[]> {
  const doc = (await client.get('/openapi.json')).json as any;
  const resolve = (schema: Schema | undefined, depth = 0): Schema | undefined => {
    if (!schema || depth > 20) return schema;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
      return resolve(doc.components?.schemas?.[name], depth + 1);
    }
    const out: Schema = Array.isArray(schema) ? [] : {};
    for (const [k, v] of Object.entries(schema)) out[k] = v && typeof v === 'object' ? resolve(v as Schema, depth + 1) : v;
    return out;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // The probes (`security: []`) take no token and no input: nothing to refuse or to fuzz.
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const body = resolve(op.requestBody?.content?.['application/json']?.schema);
      const rawType = body ? undefined : Object.keys(op.requestBody?.content ?? {})[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: resolve(p.schema) ?? {} })),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(p.schema) ?? {}, required: !!p.required })),
        ...(body ? { body } : {}),
        ...(rawType ? { rawType } : {}),
        bodyRequired: !!op.requestBody?.required,
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

/** Known values for parameters and body members, by name (ids of the fixtures). */
export type Hints = Record<string, unknown[]>;

/** The hint list for a name: exact, then case-insensitive, then by suffix (`…Id`). */
export function hintFor(hints: Hints, name: string): unknown[] | undefined {
  if (hints[name]) return hints[name];
  const lower = name.toLowerCase().replace(/_/g, '');
  for (const [k, v] of Object.entries(hints)) if (k.toLowerCase().replace(/_/g, '') === lower) return v;
  return undefined;
}

export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '');
}

const types = (schema: Schema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** A minimal valid value (required members only), using hints where a name has one. */
export function sampleValid(schema: Schema | undefined, hints: Hints, name = ''): unknown {
  if (!schema) return undefined;
  const hint = name ? hintFor(hints, name) : undefined;
  if (hint && hint.length > 0) return hint[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return sampleValid(variants.find((v: Schema) => !types(v).includes('null')) ?? variants[0], hints, name);
  const type = types(schema).find((t) => t !== 'null') ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sampleValid(schema.properties?.[key], hints, key);
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleValid(schema.items, hints, name));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string':
      return sampleString(schema);
    default:
      return null;
  }
}

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'date':
      return '2026-01-15';
    case 'date-time':
      return '2026-01-15T09:30:00.000Z';
    case 'email':
      return 'someone@example.com';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  if (schema.pattern) {
    const sample = fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { seed: 1, numRuns: 20 });
    const fits = sample.find((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity));
    if (fits !== undefined) return fits;
  }
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

/** An arbitrary of values valid for `schema` (mostly), preferring hinted values for known names. */
export function validArbitrary(schema: Schema | undefined, hints: Hints, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 8) return fc.constant(null);
  const hint = name ? hintFor(hints, name) : undefined;
  const own = ownArbitrary(schema, hints, name, depth);
  return hint && hint.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...hint) }, { weight: 1, arbitrary: own }) : own;
}

function ownArbitrary(schema: Schema, hints: Hints, name: string, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((v: Schema) => validArbitrary(v, hints, name, depth + 1)));
  const options = types(schema);
  if (options.length > 1) return fc.oneof(...options.map((type) => ownArbitrary({ ...schema, type }, hints, name, depth)));
  const type = options[0] ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? Math.max(1000, (schema.minimum ?? 0) + 1000) });
    case 'number':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 }),
        fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }).map((d) => Math.round(d * 100) / 100),
      );
    case 'array':
      return fc.array(validArbitrary(schema.items, hints, name, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of Object.entries(properties)) record[key] = validArbitrary(sub, hints, key, depth + 1);
      const base = fc.record(record, { requiredKeys: (schema.required ?? []).filter((k: string) => k in properties) });
      const extra = schema.additionalProperties;
      if (extra && typeof extra === 'object') {
        return fc
          .tuple(base, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), validArbitrary(extra, hints, '', depth + 1), { maxKeys: 3 }))
          .map(([a, b]) => ({ ...b, ...a }));
      }
      return base;
    }
    default:
      return stringArbitrary(schema);
  }
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  switch (schema.format) {
    case 'date':
      return fc.date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      // a pattern JavaScript cannot compile: fall through to plain strings
    }
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}
