// GET /metrics (http/metrics.ts) and METRICS_LISTEN (main.ts): the registry of src/metrics.ts in
// Prometheus' text format, with the gauges kept in the database read at the scrape.
import { timingSafeEqual } from 'node:crypto';
import { renderMetrics } from '../metrics.ts';
import { readDatabaseReadings } from '../store/metrics-readings.ts';
import type { Deps } from './deps.ts';

export { contentType as metricsContentType, enableDefaultMetrics } from '../metrics.ts';

export const scrapeMetrics = (deps: Pick<Deps, 'db'>): Promise<string> => renderMetrics(() => readDatabaseReadings(deps.db));

/**
 * Whether an Authorization header carries METRICS_TOKEN (`Bearer <token>`), compared in constant
 * time. Without a configured token every header passes (METRICS_LISTEN alone: the address is the guard).
 */
export function metricsAuthorized(expected: string | undefined, header: string | undefined): boolean {
  if (expected === undefined) return true;
  const match = /^Bearer[ ]+(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
