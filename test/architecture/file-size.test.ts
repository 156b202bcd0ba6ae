// No hand-written source file passes 350 lines: a file that grows past it holds more than one concern
// and is split by concern (docs/contributing.md). Tests, migrations (history, never edited) and
// generated files are not counted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const MAX_LINES = 350;
const root = fileURLToPath(new URL('../../', import.meta.url));
const handWritten = (path: string) =>
  /\.(ts|tsx|css)$/.test(path) && !/\.test\.ts$/.test(path) && !path.includes('/migrations/') && !path.includes('/generated/') && !path.endsWith('.d.ts');

test('no hand-written source file in src/ or web/ is over 350 lines', () => {
  const files = execFileSync('git', ['ls-files', 'src', 'web'], { cwd: root, encoding: 'utf8' }).split('\n').filter(handWritten);
  assert.ok(files.length > 100, `only ${files.length} files listed: is git there?`);
  const long = files
    .map((path) => ({ path, lines: readFileSync(root + path, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.path}: ${f.lines} lines`);
  assert.deepEqual(long, []);
});
