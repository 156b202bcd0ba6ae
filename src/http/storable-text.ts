// Path and query parameters that PostgreSQL could not store (a NUL character, an unpaired
// surrogate: wire/storable-text.ts says why) are refused as a 400 naming the parameter, before any
// route sees them. Bodies are checked as they are parsed (wire/strict-json.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../domain/errors.ts';
import { isStorableText, unstorableDetail } from '../wire/storable-text.ts';

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
