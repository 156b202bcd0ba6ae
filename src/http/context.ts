// The types every route shares: the Fastify instance a route registers on and what the routes are
// given (the operations' dependencies and the configuration). A module of their own so that app.ts,
// which registers the routes, and the routes, which need these types, import one way.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Deps } from '../operations/deps.ts';
import type { Listen } from '../operations/live-feed.ts';
import type { HostStatus, ReplicaStatus } from '../domain/database-status.ts';

export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface AppContext extends Deps {
  config: Config;
  /** With read replicas: the token a write answers with (http/consistency.ts), and replica states for /readyz. */
  consistencyToken?: () => Promise<string | undefined>;
  replicaStatus?: () => ReplicaStatus[];
  /** With several hosts in DATABASE_URL: the one that takes writes and each host's role, for /readyz. */
  hostStatus?: () => Promise<{ primary: string | null; hosts: HostStatus[] } | undefined>;
  /** LISTEN on the database (Database.listen): the live stream hears other instances' feed entries at once. */
  listen?: Listen;
}
