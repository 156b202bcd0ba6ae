// The Grafana dashboard and the alerting page use only metrics the service reports: every metric
// named in docs/operations/grafana-dashboard.json and docs/operations/alerting.md is in the registry
// (a renamed metric would leave an empty panel or an alert that never fires).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { enableDefaultMetrics, registry } from '../../src/metrics.ts';

const reported = async () => {
  enableDefaultMetrics();
  return new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
};
const named = (text: string) =>
  new Set([...text.matchAll(/\b((?:dealflow|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')));

test('every metric of the dashboard and the alert rules is reported', async () => {
  const have = await reported();
  const dashboard = readFileSync(new URL('../../docs/operations/grafana-dashboard.json', import.meta.url), 'utf8');
  const json = JSON.parse(dashboard);
  assert.ok(json.panels.length > 10);
  for (const page of [
    dashboard,
    readFileSync(new URL('../../docs/operations/alerting.md', import.meta.url), 'utf8'),
    readFileSync(new URL('../../docs/operations/README.md', import.meta.url), 'utf8'),
  ]) {
    for (const name of named(page)) {
      if (name.startsWith('process_') && !/^process_(resident_memory_bytes|cpu)/.test(name)) continue;
      assert.ok(have.has(name) || have.has(`${name}_total`), `${name} is reported`);
    }
  }
});
