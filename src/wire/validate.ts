// Validation against a wire schema, and its issues as field errors that name the fields the client
// sent. Fastify validates request parts with the same compiler (TypeBox's, with Ajv's formats), and
// http/errors.ts reports its issues through fieldErrors; the import readers validate each row with
// compileValidator, so an imported row is judged exactly as the body it stands for.
import { TypeBoxValidatorCompiler, registerAjvFormats } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import type { FieldError } from '../domain/errors.ts';

registerAjvFormats();

export interface ValidationIssue {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

const field = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');

/** Ajv's issues (as Fastify reports them) as field errors: one per field and problem, in a stable order. */
export function fieldErrors(issues: ValidationIssue[], where: FieldError['in']): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = field(issue.instancePath ?? '');
    const join = (name: string) => (base ? `${base}.${name}` : name);
    const params = issue.params ?? {};
    // TypeBox reports each unknown property twice: as `additionalProperties: false` failing on the
    // property, and as the parent's additionalProperties error, which names them all; past its
    // maxErrors the parent's may be cut off, so the property's own counts too (duplicates drop below).
    if (issue.keyword === 'boolean' && issue.schemaPath?.endsWith('/additionalProperties')) {
      out.push({ in: where, field: base, detail: 'is not a known property' });
      continue;
    }
    if (issue.keyword === 'additionalProperties') {
      const names = (params.additionalProperties ?? params.additionalProperty) as string[] | string | undefined;
      for (const name of [names ?? []].flat()) out.push({ in: where, field: join(name), detail: 'is not a known property' });
      continue;
    }
    if (issue.keyword === 'required') {
      const names = (params.requiredProperties ?? params.missingProperty) as string[] | string | undefined;
      for (const name of [names ?? []].flat()) out.push({ in: where, field: join(name), detail: 'is required' });
      continue;
    }
    out.push({ in: where, field: base, detail: issue.message ?? 'is not valid' });
  }
  // One line per field and problem, in a stable order.
  const seen = new Set<string>();
  return out.filter((e) => !seen.has(`${e.field}\0${e.detail}`) && seen.add(`${e.field}\0${e.detail}`));
}

/** A validator of request bodies of `schema`: the field errors of a value, none when it fits. */
export function compileValidator(schema: TSchema, route: { method: string; url: string }): (value: unknown) => FieldError[] {
  const validate = TypeBoxValidatorCompiler({ schema, httpPart: 'body', ...route }) as (value: unknown) => { error?: ValidationIssue[] };
  return (value) => {
    const result = validate(value);
    return result.error ? fieldErrors(result.error, 'body') : [];
  };
}

/**
 * The unknown properties of every object in `value` whose schema closes its properties
 * (`additionalProperties: false`), as issues of the parent, each naming them all: TypeBox stops
 * collecting issues at its maxErrors (a safeguard), so a body with thousands of unknown members
 * would otherwise be reported by its first few alone, with no count.
 */
export function unknownPropertyIssues(schema: TSchema, value: unknown, pointer = ''): ValidationIssue[] {
  const s = schema as { type?: unknown; properties?: Record<string, TSchema>; additionalProperties?: unknown; items?: TSchema };
  if (Array.isArray(value) && s.items) return value.flatMap((item, i) => unknownPropertyIssues(s.items!, item, `${pointer}/${i}`));
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !s.properties) return [];
  const issues: ValidationIssue[] = [];
  const unknown = s.additionalProperties === false ? Object.keys(value).filter((k) => !Object.hasOwn(s.properties!, k)) : [];
  if (unknown.length > 0) {
    issues.push({
      keyword: 'additionalProperties',
      schemaPath: '#',
      instancePath: pointer,
      params: { additionalProperties: unknown },
      message: 'must not have additional properties',
    });
  }
  for (const [name, child] of Object.entries(s.properties)) {
    const member = (value as Record<string, unknown>)[name];
    if (Object.hasOwn(value, name)) issues.push(...unknownPropertyIssues(child, member, `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return issues;
}
