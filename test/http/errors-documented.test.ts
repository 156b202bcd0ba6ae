// Every problem the service can answer is documented: each kind of the closed list has its row in
// docs/reference/errors.md (type and status) and an example problem document there, and the
// OpenAPI document's ProblemType names the same list. A kind added without its documentation fails.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { errorKinds } from '../../src/domain/errors.ts';
import { problemTable, problemType } from '../../src/http/problems.ts';

const root = new URL('../../', import.meta.url);
const page = readFileSync(new URL('docs/reference/errors.md', root), 'utf8');
const openapi = JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8'));

/** The JSON examples of the page's "Examples" section, by their `type`. */
function examples(): Map<string, Record<string, unknown>> {
  const section = page.split(/^## Examples$/m)[1];
  assert.ok(section, 'docs/reference/errors.md has an "## Examples" section');
  const found = new Map<string, Record<string, unknown>>();
  for (const [, body] of section.split(/^## /m)[0]!.matchAll(/```json\n([\s\S]*?)```/g)) {
    const example = JSON.parse(body!) as Record<string, unknown>;
    found.set(String(example.type), example);
  }
  return found;
}

describe('errors documented', () => {
  const documented = examples();

  for (const kind of errorKinds) {
    const type = problemType(kind);
    const { status, title } = problemTable[kind];

    it(`${kind}: a row with its status, and an example`, () => {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${type}\` |`));
      assert.ok(row, `docs/reference/errors.md lists ${type}`);
      assert.equal(row.split('|')[2]!.trim(), String(status), `the row of ${type} gives status ${status}`);
      const example = documented.get(type);
      assert.ok(example, `docs/reference/errors.md has an example of ${type}`);
      assert.equal(example.status, status);
      assert.equal(example.title, title);
      assert.equal(typeof example.detail, 'string');
    });
  }

  it('documents no kind the service does not have', () => {
    const known = new Set(errorKinds.map(problemType));
    for (const type of documented.keys()) assert.ok(known.has(type), `${type} is an example of a kind that exists`);
    const rows = [...page.matchAll(/^\| `(urn:dealflow:problem:[a-z-]+)` \|/gm)].map((m) => m[1]);
    for (const type of rows) assert.ok(known.has(type!), `${type} is a row of a kind that exists`);
  });

  it('the OpenAPI ProblemType is the same closed list', () => {
    assert.deepEqual([...openapi.components.schemas.ProblemType.enum].sort(), errorKinds.map(problemType).sort());
  });
});
