// A write route's handler parses, calls one operation and answers: at most five lines
// (docs/architecture.md, "The path of a move"). What a write does (idempotency, grouping, dry run,
// retries, the transaction) is the write pipeline's, in src/operations/pipeline.ts, and never
// assembled in a handler. Read from the TypeScript syntax tree of every route file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript5';

const MAX_LINES = 5;
const http = fileURLToPath(new URL('../../src/http/', import.meta.url));
const files = [...readdirSync(`${http}routes`).map((f) => `routes/${f}`), 'sign-in-routes.ts'].filter((f) => f.endsWith('.ts'));

/** Every `x.post(…)`, `x.put(…)`, `x.patch(…)`, `x.delete(…)` route with the line count of its handler. */
function writeHandlers(file: string): { route: string; lines: number }[] {
  const text = readFileSync(http + file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { route: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['post', 'put', 'patch', 'delete'].includes(node.expression.name.text)) {
      const [path] = node.arguments;
      const handler = node.arguments.at(-1);
      if (path && ts.isStringLiteral(path) && handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
        const first = source.getLineAndCharacterOfPosition(handler.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(handler.getEnd()).line;
        found.push({ route: `${node.expression.name.text.toUpperCase()} ${path.text} (${file})`, lines: last - first + 1 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('every write route handler is at most five lines', () => {
  const handlers = files.flatMap(writeHandlers);
  assert.ok(handlers.length >= 25, `found only ${handlers.length} write routes: is the syntax tree read?`);
  const long = handlers.filter((h) => h.lines > MAX_LINES).map((h) => `${h.route}: ${h.lines} lines`);
  assert.deepEqual(long, []);
});
