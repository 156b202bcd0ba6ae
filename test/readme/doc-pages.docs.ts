// Every page under docs/ runs as pasted: each page's shell blocks against a service of its own
// (run-page.ts), three pages at a time. `npm run test:docs`, which CI runs on PGlite and on
// PostgreSQL; the README's blocks run in `npm test` (readme.test.ts). DOCS_REPEAT=N runs each page
// N times in a row, each time on a fresh service (a guide must not depend on chance: random
// references, timing); DOCS_PAGES=regex runs only the pages whose path matches.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { testDatabaseUrl } from '../support/app.ts';
import { markdownPages, root, shellBlocks } from './pages.ts';
import { gitStatus, runPage } from './run-page.ts';

const repeat = Number(process.env.DOCS_REPEAT ?? 1);
assert.ok(Number.isInteger(repeat) && repeat >= 1, 'DOCS_REPEAT is a positive whole number');
const only = process.env.DOCS_PAGES ? new RegExp(process.env.DOCS_PAGES) : undefined;
const pages = markdownPages()
  .filter((page) => page !== 'README.md' && (!only || only.test(page)))
  .map((page) => ({ page, blocks: shellBlocks(readFileSync(join(root, page), 'utf8')) }));

describe('the docs run as pasted', { concurrency: 3 }, () => {
  // The blocks write nothing into the checkout (a body goes in a variable): what git sees is the same after.
  let before: string | undefined;
  after(async () => {
    if (before !== undefined) assert.equal(await gitStatus(), before, "a page's blocks left files in the checkout (a body goes in a variable)");
  });

  test('the docs have shell blocks to run', () => {
    if (only) return; // a chosen few
    assert.ok(pages.filter((p) => p.blocks.some((b) => b.marker !== 'skip')).length >= 10, 'the guides show their commands');
  });

  for (const { page, blocks } of pages) {
    const runnable = blocks.filter((b) => b.marker !== 'skip').length;
    if (runnable === 0) continue;
    const times = repeat > 1 ? `, ${repeat} times` : '';
    test(`${page}: ${runnable} shell blocks, in order, against a fresh service${times} (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, async () => {
      before ??= await gitStatus();
      for (let run = 1; run <= repeat; run++) {
        try {
          await runPage(page, blocks);
        } catch (error) {
          if (repeat === 1) throw error;
          throw new Error(`run ${run} of ${repeat}: ${(error as Error).message}`, { cause: error });
        }
      }
    });
  }
});
