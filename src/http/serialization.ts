// The response serializer compiler: fast-json-stringify, as Fastify's default, with the compiled
// serializers shared by schema text. The API's routes are registered twice (with bearer tokens, and
// behind the portal's cookie, portal-api.ts), and compiling a serializer is most of the time a
// start takes: the second registration reuses the first one's. No schema is added with addSchema,
// so a serializer depends on its schema alone. A route's serializer is compiled at its first answer,
// not at start: most of a start's time went to compiling serializers of routes an instance may never
// answer (a test file uses a few), and the first answer of a route pays about a millisecond.
import type { FastifySerializerCompiler } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

const compiled = new Map<string, (data: unknown) => string>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => {
    serialize ??= compileSerializer(schema);
    return serialize(data);
  };
};

/** The serializer of a response schema: a pure function, the one Fastify sends that schema's answers with. */
export function compileSerializer(schema: unknown): (data: unknown) => string {
  const key = JSON.stringify(schema);
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]) as (data: unknown) => string;
    compiled.set(key, serialize);
  }
  return serialize;
}
