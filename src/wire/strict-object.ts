// Request bodies are strict objects: an unknown property is a 400 naming it, never silently dropped.
import { Type, type TProperties } from 'typebox';

/** A request body object: unknown properties rejected. */
export const StrictObject = <T extends TProperties>(properties: T, options: { description?: string; title?: string } = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });
