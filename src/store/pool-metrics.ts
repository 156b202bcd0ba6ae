// A pg pool as /metrics reports it (src/metrics.ts): its connections at each scrape, and how long
// each checkout waited for one. The primary's pool and each replica's.
import type pg from 'pg';
import { poolWait, trackPool } from '../metrics.ts';

/**
 * Reports the pool on /metrics as `name`: its connections, and how long each checkout waited.
 * Returns the function that stops reporting it.
 */
export function instrumentPool(pool: pg.Pool, name: string, max: number): () => void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  const histogram = poolWait.labels({ pool: name });
  (pool as { connect: unknown }).connect = (callback?: unknown) => {
    if (callback !== undefined) return connect(callback);
    const started = performance.now();
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      histogram.observe((performance.now() - started) / 1000);
      return client;
    });
  };
  return trackPool(name, () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }));
}
