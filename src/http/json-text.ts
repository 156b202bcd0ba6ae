// Bodies that are JSON text already: sent as they are, without the route's serialiser. Two hot reads
// use it (docs/benchmarks.md): one journey (GET …/investor-data/…), whose body PostgreSQL builds in the response's
// shape, and workflow-status, whose serialised body is kept beside the cached workflow. The route's
// response schema still describes the body (OpenAPI, the typed client), and the tests check every
// response against it.
import type { FastifyReply } from 'fastify';

/** Sends `text` (JSON in the shape of the route's 200 schema) with the content type Fastify gives serialised bodies. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  // A string with a JSON content type is sent unchanged (Fastify's reply.send).
  return reply.type('application/json; charset=utf-8').send(text);
}

/**
 * A route's keeper of serialised bodies: `value` serialised by the route's response schema once per
 * object. Only for values that are never changed once made: the text is held for as long as the
 * object lives (a WeakMap), so a value that a cache replaces on invalidation takes its text with it.
 * One keeper per route, since another route's schema could serialise the same object differently.
 */
export function serialisedBodies(): (reply: FastifyReply, value: object) => string {
  const bodies = new WeakMap<object, string>();
  return (reply, value) => {
    const kept = bodies.get(value);
    if (kept !== undefined) return kept;
    // The route's schema serialiser (fast-json-stringify) returns text; Buffers come only from custom serialisers.
    const text = reply.serialize(value) as string;
    bodies.set(value, text);
    return text;
  };
}
