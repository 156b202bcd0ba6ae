// Entity tags of versioned resources (RFC 9110 section 8.8.3) and conditional reads with
// If-None-Match (section 13.1.2): a client that holds the current version gets 304 Not Modified and
// no body. The tag is the resource's version (sendVersioned), or for a resource that keeps none a
// digest of its body (sendDigested), so it changes with every write of the resource and with
// nothing else. Only routes that check access before they look at the version use it: a 304
// is answered only where a 200 would be, so it tells nobody anything a 200 would not.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { sendJsonText } from './json-text.ts';

/** The strong tag of a version: `"<prefix><version>"` (the prefix keeps different representations apart). */
export const etagOf = (prefix: string, version: string | number) => `"${prefix}${version}"`;

/**
 * The versions the request's If-None-Match names with the given prefix (weak comparison: a W/ tag
 * matches too), and whether it is `*`. A malformed header names nothing (the read answers 200).
 */
export function versionsNamed(request: FastifyRequest, prefix: string): { any: boolean; versions: string[] } {
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return { any: false, versions: [] };
  if (header.trim() === '*') return { any: true, versions: [] };
  const versions = [];
  for (const match of header.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    const tag = match[1]!;
    if (tag.startsWith(prefix)) versions.push(tag.slice(prefix.length));
  }
  return { any: false, versions };
}

/** Whether the request names the version (or `*`). */
export function holdsVersion(request: FastifyRequest, prefix: string, version: string | number): boolean {
  const named = versionsNamed(request, prefix);
  return named.any || named.versions.includes(String(version));
}

/**
 * Answers a versioned read: 304 with the tag when the request holds the version (or no text was
 * read for it), else 200 with the JSON text. Both say `Cache-Control: private, no-cache`: a client
 * may keep the body but asks again before using it, and shared caches keep nothing (the body is one
 * principal's view).
 */
export function sendVersioned(reply: FastifyReply, etag: string, json: string | undefined, notModified: boolean): FastifyReply {
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (notModified || json === undefined) return reply.code(304).send();
  return sendJsonText(reply, json);
}

/**
 * Answers a read of a resource that keeps no version number (a deal, an investor's directory entry,
 * an event's revisions, an asset, an edit request, a form implementation, a payment reference): the
 * tag is a digest of the body the route's schema makes of `value`, so it changes with every write
 * that changes what the caller would see and with nothing else, and is never stale (two writes in
 * one clock tick still differ). The value is read with the same one indexed read as a 200, after
 * the access checks, so a 304 is answered only where the 200 would be. Nothing is kept between
 * requests: the body is made anew, and only its bytes on the wire are saved.
 */
export function sendDigested(request: FastifyRequest, reply: FastifyReply, prefix: string, value: unknown): FastifyReply {
  // The route's schema serialiser (fast-json-stringify) returns text; Buffers come only from custom serialisers.
  const json = reply.serialize(value) as string;
  const digest = createHash('sha256').update(json).digest('base64url').slice(0, 22);
  const held = holdsVersion(request, prefix, digest);
  return sendVersioned(reply, etagOf(prefix, digest), held ? undefined : json, held);
}
