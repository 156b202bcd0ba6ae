// One concept, one name (docs/concepts.md, "Names: the wire and the code"): a name the glossary
// retired must not come back into the service's or the web apps' source, nor into a file name.
// The wire keeps its own names, so what the interface fixes is allowed, precisely: the path
// segment `/investor-data/`, the operation id `'jumpToStep'` as a quoted string; and two old
// addresses kept so that nothing breaks: the `/back-office/` paths the service redirects to the
// console, and the storage key the console reads once to move an old token.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'generated']);
const SOURCE = /\.(ts|tsx|css|html)$/;

/** A retired name, what replaced it, and the pattern that finds it (after the allowed wire uses are removed). */
const RETIRED: readonly { name: string; use: string; pattern: RegExp }[] = [
  {
    name: 'jump as the code name of a move',
    use: 'move (MoveInput, MoveHooks, MoveRecord, planMove, bulkMove)',
    pattern: /\bJump(Input|Hooks|Record|Plan|Facts|Request)\b|\b(planJump|bulkJump)\b/,
  },
  { name: 'jumpToStep as a function', use: "moveToStep (the wire keeps the operation id 'jumpToStep')", pattern: /\bjumpToStep\b/ },
  { name: 'change request', use: 'edit request', pattern: /\bChangeRequest\b|change[ -]request|ask for a change/i },
  { name: 'back office, staff app, operations console', use: 'console', pattern: /back[ -]?office|staff app|operations console/i },
  { name: 'workflow instance', use: 'journey', pattern: /workflow[ -]?instance/i },
  { name: 'investor data', use: 'journey (the wire keeps the path /investor-data/)', pattern: /investor[ -]?data/i },
];

/** The wire's names, and the one legacy storage key, removed from a line before it is checked. */
const ALLOWED: readonly RegExp[] = [/\/investor-data\//g, /(['"`])jumpToStep(InBulk)?\1/g, /'dealflow\.backOffice\.token'/g, /\/back-office\/\*?/g];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

const files = [...sourceFiles(`${root}src`), ...sourceFiles(`${root}web`)].map((f) => relative(root, f));

export function retiredNamesIn(file: string, text: string): string[] {
  const found: string[] = [];
  for (const { name, use, pattern } of RETIRED) {
    if (pattern.test(file.replaceAll('-', ''))) found.push(`${file}: file name has "${name}"; use ${use}`);
  }
  text.split('\n').forEach((raw, i) => {
    const line = ALLOWED.reduce((l, allowed) => l.replace(allowed, ''), raw);
    for (const { name, use, pattern } of RETIRED) {
      if (pattern.test(line)) found.push(`${file}:${i + 1}: "${name}"; use ${use}: ${raw.trim()}`);
    }
  });
  return found;
}

test('no retired name in src/ or web/', () => {
  assert.ok(files.length > 100, `found only ${files.length} source files`);
  const found = files.flatMap((f) => retiredNamesIn(f, readFileSync(root + f, 'utf8')));
  assert.deepEqual(found, []);
});

test('the check finds a retired name and lets the wire names through', () => {
  assert.deepEqual(retiredNamesIn('src/x.ts', "app.get('/deals/deal/:dealId/investor-data/:investorUserId');"), []);
  assert.deepEqual(retiredNamesIn('src/x.ts', "const op = { operationId: 'jumpToStep' }; type B = Body<'jumpToStep'>;"), []);
  assert.equal(retiredNamesIn('src/x.ts', 'export async function jumpToStep() {}').length, 1);
  assert.equal(retiredNamesIn('src/x.ts', '// reads investor-data for one investor').length, 1);
  assert.equal(retiredNamesIn('web/portal/src/components/ChangeRequest.tsx', '').length, 1);
  assert.equal(retiredNamesIn('src/domain/x.ts', "const key = 'dealflow.backOffice.v2';").length, 1);
  assert.deepEqual(retiredNamesIn('src/x.ts', "scope.all('/back-office/*', redirect);"), []);
  assert.equal(retiredNamesIn('web/src/x.tsx', '<h1>Back office</h1>').length, 1);
});
