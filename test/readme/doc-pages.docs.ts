// Every page under docs/ runs as pasted: each page's shell blocks against a service of its own
// (run-page.ts), three pages at a time. `npm run test:docs`, which CI runs on PGlite and on
// PostgreSQL; the README's blocks run in `npm test` (readme.test.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { testDatabaseUrl } from '../support/app.ts';
import { markdownPages, root, shellBlocks } from './pages.ts';
import { gitStatus, runPage } from './run-page.ts';

const pages = markdownPages()
  .filter((page) => page !== 'README.md')
  .map((page) => ({ page, blocks: shellBlocks(readFileSync(join(root, page), 'utf8')) }));

describe('the docs run as pasted', { concurrency: 3 }, () => {
  // The blocks write nothing into the checkout (a body goes in a variable): what git sees is the same after.
  let before: string | undefined;
  after(async () => {
    if (before !== undefined) assert.equal(await gitStatus(), before, "a page's blocks left files in the checkout (a body goes in a variable)");
  });

  test('the docs have shell blocks to run', () => {
    assert.ok(pages.filter((p) => p.blocks.some((b) => b.marker !== 'skip')).length >= 10, 'the guides show their commands');
  });

  for (const { page, blocks } of pages) {
    const runnable = blocks.filter((b) => b.marker !== 'skip').length;
    if (runnable === 0) continue;
    test(`${page}: ${runnable} shell blocks, in order, against a fresh service (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, async () => {
      before ??= await gitStatus();
      await runPage(page, blocks);
    });
  }
});
