// Schemas shared by many routes. Bodies are strict objects: unknown properties are a 400.
import { Type, type TSchema } from 'typebox';

// The strict body object lives with the wire schemas that the import readers share (wire/).
export { StrictObject } from '../../wire/strict-object.ts';

// The problem schemas live in problems.ts; re-exported for the routes that imported them from here.
export { Problem } from './problems.ts';

/** Page wrapper of the interface: `output`, `page`, `totalPages`; a `title` names it in the OpenAPI document. */
export const Page = <T extends TSchema>(item: T, title?: string) =>
  Type.Object({ output: Type.Array(item), page: Type.Integer(), totalPages: Type.Integer() }, title ? { title } : {});

export { PageQuery } from './paging.ts';

/** Caller-supplied identifiers of the platform (deal, investor): 1–128 visible characters. */
export const ExternalId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:@-]+$' });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
