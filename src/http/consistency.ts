// Read-your-writes across replicas (docs/guides/postgresql-and-replicas.md). A successful write answers with a
// `Consistency-Token` header (the primary's WAL position after its commit); a request that sends
// the header back is served by a replica only once that replica has replayed that far
// (operations/reads.ts), so it never reads anything older than the write. A malformed token is a
// 400, replicas or not.
import type { FastifyInstance } from 'fastify';
import { parseConsistencyToken } from '../domain/consistency-token.ts';
import { invalid } from '../domain/errors.ts';
import { withConsistencyToken } from '../operations/reads.ts';

export const CONSISTENCY_TOKEN_HEADER = 'consistency-token';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that only reads (all-transactions takes its search in a body): no token to answer with. */
    readOnly?: boolean;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerConsistency(app: FastifyInstance, consistencyToken: (() => Promise<string | undefined>) | undefined) {
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.headers[CONSISTENCY_TOKEN_HEADER];
    if (raw !== undefined && (typeof raw !== 'string' || parseConsistencyToken(raw) === undefined)) {
      done(
        invalid([
          { in: 'header', field: CONSISTENCY_TOKEN_HEADER, detail: 'is not a consistency token (a WAL position such as 16/B374D848, as a write answered it)' },
        ]),
      );
      return;
    }
    // Without a token there is nothing to carry: a request starts outside any token's context.
    if (raw === undefined) done();
    else withConsistencyToken(raw, () => done());
  });
  if (!consistencyToken) return;
  // After the handler: its transaction has committed, so the primary's position now is past it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (READ_METHODS.has(request.method) || request.routeOptions.config.readOnly || reply.statusCode >= 400) return payload;
    try {
      const token = await consistencyToken();
      if (token) reply.header('Consistency-Token', token);
    } catch (err) {
      // The write is done; a primary that stopped answering since costs the client its token only.
      request.log.warn({ err }, 'no consistency token');
    }
    return payload;
  });
}
