// The one definition of `page`, `limit` and `after` for every paged route. The bounds keep an
// offset ((page - 1) × limit) and a cursor inside what a JavaScript number holds exactly and what
// PostgreSQL's bigint holds, so no value a client can send reaches the database as 1e+22; a page
// past the last one is an empty page, a value past a bound a 400 naming the parameter.
import { Type } from 'typebox';

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
/** 10 million pages of 100: a billion rows, far beyond any list here, and an offset under 2^31. */
export const MAX_PAGE = 10_000_000;
/** Sequences are bigint in the database; above 2^53 − 1 a JavaScript number is no longer exact. */
export const MAX_AFTER = Number.MAX_SAFE_INTEGER;

export const Limit = Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `results per page, 1 to ${MAX_LIMIT}` });
export const PageNumber = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE,
  default: 1,
  description: `page number, from 1 to ${MAX_PAGE}; past the last page the output is empty`,
});
export const After = Type.Integer({ minimum: 0, maximum: MAX_AFTER, default: 0, description: 'the last sequence already seen' });

/** `limit` (1–100, default 20) and `page` (1–10,000,000, default 1): coerced from the query string. */
export const PageQuery = {
  limit: Type.Optional(Limit),
  page: Type.Optional(PageNumber),
};

/** `after` (a sequence, 0 to 2^53 − 1) and `limit`: the query of a feed read by cursor. */
export const CursorQuery = {
  after: Type.Optional(After),
  limit: Type.Optional(Limit),
};
