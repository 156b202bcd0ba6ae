// The layers of src/ (docs/architecture.md) as dependency-cruiser checks them against
// .dependency-cruiser.cjs: domain imports nothing of ours, store only domain and config, operations
// neither http nor cli, http never store, cli never http, and no import circle anywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeViolation, layerViolations } from '../../scripts/check-layers.ts';

test('every import in src/ follows the layer rules, and none closes a circle', async () => {
  const violations = await layerViolations();
  assert.equal(
    violations.length,
    0,
    `${violations.length} import(s) break the layer rules of .dependency-cruiser.cjs (docs/architecture.md says where each thing lives):\n${violations.map((v) => `  ${describeViolation(v)}`).join('\n')}`,
  );
});
