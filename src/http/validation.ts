// The validator compiler: TypeBox's checker, which checks bodies as sent and converts query and path
// text first. Conversion is only tried when the text as sent does not check (path parameters are
// strings, and most query strings are too): Value.Convert walks the schema and copies the object on
// every request, a few percent of a short request's CPU (bench profile). Its conversion is lenient with whole numbers ("1.5" becomes 1, "2e1" becomes 20, "0x10"
// becomes 16), so for query and path parameters whose schema is an integer the text itself must be
// a plain whole number before conversion. One place, for every route.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { unknownPropertyIssues, type ValidationIssue } from '../wire/validate.ts';

/** TypeBox's compiled check; for query and path parameters, the converted value when the text as sent does not check. */
const TypeBoxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const typeCheck = Compile(schema);
  return (value: unknown) => {
    if (typeCheck.Check(value)) return { value };
    if (httpPart !== 'body') {
      const converted = Value.Convert(schema, value);
      if (typeCheck.Check(converted)) return { value: converted };
      return { error: typeCheck.Errors(converted) as never };
    }
    const issues = typeCheck.Errors(value) as ValidationIssue[];
    // Unknown members are counted in full (TypeBox's issues stop at its maxErrors).
    if (issues.some((i) => i.keyword === 'boolean' && i.schemaPath?.endsWith('/additionalProperties'))) issues.push(...unknownPropertyIssues(schema, value));
    return { error: issues as never };
  };
};

const WHOLE_NUMBER = /^[+-]?\d+$/;

const isInteger = (schema: unknown): boolean => {
  const s = schema as { type?: unknown; anyOf?: unknown[] } | undefined;
  return s?.type === 'integer' || (Array.isArray(s?.anyOf) && s.anyOf.some(isInteger));
};

function integerProperties(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.keys(properties).filter((name) => isInteger(properties[name]));
}

/**
 * Compiled checks by part and schema text: the API's routes are registered twice (with bearer
 * tokens, and behind the portal's cookie), and a check depends on nothing else, so the second
 * registration reuses the first one's instead of compiling every schema again at start.
 */
const compiled = new Map<string, ReturnType<FastifySchemaCompiler<TSchema>>>();

export const validatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const key = `${route.httpPart}\u0000${JSON.stringify(route.schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = compileValidator(route);
    compiled.set(key, validate);
  }
  return validate;
};

const compileValidator: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  if (route.httpPart === 'body') return validate;
  const integers = integerProperties(route.schema);
  if (integers.length === 0) return validate;
  return (value: unknown) => {
    const input = (value ?? {}) as Record<string, unknown>;
    const bad = integers.filter((name) => typeof input[name] === 'string' && !WHOLE_NUMBER.test(input[name] as string));
    if (bad.length > 0) {
      return { error: bad.map((name) => ({ keyword: 'type', schemaPath: '', instancePath: `/${name}`, params: {}, message: 'must be a whole number' })) };
    }
    return validate(value);
  };
};
