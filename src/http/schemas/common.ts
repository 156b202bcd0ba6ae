// Schemas shared by many routes. Bodies are strict objects: unknown properties are a 400.
import { Type, type TProperties, type TSchema } from 'typebox';

/** A request body object: unknown properties rejected. */
export const StrictObject = <T extends TProperties>(properties: T, options: { description?: string } = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          in: Type.String(),
          field: Type.String(),
          detail: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem document (application/problem+json)' },
);

/** Page wrapper of the interface: `output`, `page`, `totalPages`. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ output: Type.Array(item), page: Type.Integer(), totalPages: Type.Integer() });

export { PageQuery } from './paging.ts';

/** Caller-supplied identifiers of the platform (deal, investor): 1–128 visible characters. */
export const ExternalId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:@-]+$' });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
