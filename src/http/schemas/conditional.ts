// Conditional reads (http/etag.ts): the If-None-Match request header and the 304 answer.
import { Type } from 'typebox';

export const ConditionalHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'The ETag of a copy the caller holds (or several, comma-separated, or *): 304 Not Modified without a body when it is the current version',
    }),
  ),
});

/** 304: no body (`type: 'null'` is a response without content in the OpenAPI document). */
export const NotModified = Type.Null({ description: 'Not Modified: the copy named by If-None-Match is current; no body' });

/** The description of a read answered with a digest ETag (http/etag.ts, sendDigested). */
export const CONDITIONAL =
  'Answers with an ETag (a digest of the body); with If-None-Match naming it, 304 and no body (docs/reference/http-api.md, "Conditional reads").';
