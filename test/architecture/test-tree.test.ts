// Tests are where a reader looks for them: every route file of src/http/routes that registers routes
// has a test folder of its name, test/<route file>/, with at least one test file (docs/contributing.md,
// "Where tests live"). A new route file without one fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const routes = `${root}src/http/routes/`;

test('every route file has a test folder of its name', () => {
  const routeFiles = readdirSync(routes)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /\.(get|post|put|patch|delete)\(/.test(readFileSync(routes + f, 'utf8')))
    .map((f) => f.replace(/\.ts$/, ''));
  assert.ok(routeFiles.length >= 20, `found only ${routeFiles.length} route files`);
  const missing = routeFiles.filter((name) => {
    const folder = `${root}test/${name}/`;
    return !existsSync(folder) || !readdirSync(folder).some((f) => f.endsWith('.test.ts'));
  });
  assert.deepEqual(missing, []);
});
