// The README runs as pasted (its shell blocks, against a fresh service: run-page.ts), and every
// ```ts block of the README and docs/ typechecks against the project, `@dealflow/client` resolving
// to its build (packages/client/dist, through the workspace link) as an installed copy would. The
// shell blocks of the pages under docs/ run in `npm run test:docs` (doc-pages.docs.ts), which CI
// runs on both databases: starting a service per page is most of a minute of CPU per page.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { testDatabaseUrl } from '../support/app.ts';
import { codeBlocks, markdownPages, root, shellBlocks } from './pages.ts';
import { gitStatus, runPage } from './run-page.ts';

const blocks = shellBlocks(readFileSync(join(root, 'README.md'), 'utf8'));

describe('the README runs as pasted', () => {
  // The blocks write nothing into the checkout (a body goes in a variable): what git sees is the same after.
  let before: string | undefined;
  after(async () => {
    if (before !== undefined) assert.equal(await gitStatus(), before, "the README's blocks left files in the checkout (a body goes in a variable)");
  });

  test("the README's markers are where the convention puts them", () => {
    assert.equal(blocks.filter((b) => b.marker === 'replaced').length, 1, 'one block sets $BASE and $TOKEN: the "Try it" lines');
    const first = blocks.findIndex((b) => b.marker !== 'skip');
    assert.equal(blocks[first]?.marker, 'replaced', 'it is the first block that runs');
  });

  test(`README.md: ${blocks.filter((b) => b.marker !== 'skip').length} shell blocks, in order, against a fresh service (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, async () => {
    before ??= await gitStatus();
    await runPage('README.md', blocks);
  });
});

test('a tarball of the client named in the docs is the one `npm pack` makes (the version of packages/client/package.json)', () => {
  const { version } = JSON.parse(readFileSync(join(root, 'packages/client/package.json'), 'utf8')) as { version: string };
  for (const page of [...markdownPages(), 'packages/client/README.md']) {
    for (const [name] of readFileSync(join(root, page), 'utf8').matchAll(/dealflow-client-\d+\.\d+\.\d+\S*?\.tgz/g)) {
      assert.equal(name, `dealflow-client-${version}.tgz`, `${page} names ${name}`);
    }
  }
});

describe('the TypeScript blocks typecheck against the package', () => {
  test("every ```ts block of the README, docs/ and the client package's README", async () => {
    // Inside the checkout, so `@dealflow/client` resolves through the workspace link to the built package.
    const dir = join(root, `.doc-ts-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    try {
      const written: string[] = [];
      // The package's README is its front page on the registry: its example must compile too.
      for (const page of [...markdownPages(), 'packages/client/README.md']) {
        for (const block of codeBlocks(readFileSync(join(root, page), 'utf8'))) {
          if (!['ts', 'typescript'].includes(block.lang) || block.marker === 'skip') continue;
          const file = `${page.replace(/\W+/g, '_')}_L${block.line}.ts`;
          // `export {}` makes each block a module of its own, so blocks may reuse names.
          writeFileSync(join(dir, file), `${block.code}\nexport {};\n`);
          written.push(`${page}:${block.line}`);
        }
      }
      assert.ok(written.length > 0, 'the docs show TypeScript');
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true }, include: ['*.ts'] }));
      const result = await promisify(execFile)(join(root, 'node_modules/.bin/tsc'), ['-p', dir], { cwd: root }).catch(
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
      if ('code' in result && result.code) {
        // The file names say which page and line: README_md_L236.ts is README.md's block at line 236.
        assert.fail(`a TypeScript block does not typecheck:\n${result.stdout}${result.stderr}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
