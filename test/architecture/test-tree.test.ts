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

// npm test loads many test files into one process (scripts/test.ts): a hook or an app started at a
// file's top level would belong to every file of that process (the runner's root), run before all
// of them and hold its database to the end. Each file keeps its hooks and apps inside a describe.
test('no test file registers a hook or starts an app at its top level', () => {
  const testFiles = ['src', 'test'].flatMap((dir) =>
    (readdirSync(`${root}${dir}`, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts')).map((f) => `${dir}/${f}`),
  );
  assert.ok(testFiles.length >= 100, `found only ${testFiles.length} test files`);
  const topLevel = /^(?:before|after|beforeEach|afterEach)\(|^(?:const|let) \w+ = start\w*\(/m;
  assert.deepEqual(
    testFiles.filter((f) => topLevel.test(readFileSync(root + f, 'utf8'))),
    [],
  );
});
