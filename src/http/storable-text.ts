// Text that PostgreSQL can store as sent. A NUL character (U+0000) is refused by `text` and `jsonb`
// alike (SQLSTATE 22021 / 22P05, which surfaced as 500s), and an unpaired UTF-16 surrogate is not
// Unicode at all: the driver would silently store U+FFFD in its place. Both are refused as a 400
// naming the field, in bodies (json-body.ts) and in path and query parameters (here). Found by the
// reliability suite's fuzzer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../domain/errors.ts';

export const isStorableText = (text: string): boolean => !text.includes('\u0000') && text.isWellFormed();

export const unstorableDetail = 'holds a NUL character or an unpaired surrogate, which cannot be stored';

function check(values: unknown, where: FieldError['in'], errors: FieldError[]) {
  if (!values || typeof values !== 'object') return;
  for (const [name, value] of Object.entries(values)) {
    const texts = Array.isArray(value) ? value : [value];
    if (!isStorableText(name) || texts.some((t) => typeof t === 'string' && !isStorableText(t))) {
      errors.push({ in: where, field: isStorableText(name) ? name : JSON.stringify(name).slice(1, -1), detail: unstorableDetail });
    }
  }
}

/** Refuses path and query parameters that cannot be stored, before any route sees them. */
export function registerStorableText(app: FastifyInstance) {
  // A plain hook (not async): every request passes it.
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const errors: FieldError[] = [];
    check(request.params, 'path', errors);
    check(request.query, 'query', errors);
    if (errors.length > 0) {
      done(new AppError('validation', `Invalid ${errors.map((e) => e.field).join(', ')}: ${unstorableDetail}`, { errors }));
      return;
    }
    done();
  });
}
