// The row types written on raw statements (`sql<Row>`...`.execute(db)` in src/store) checked against
// the schema: each statement is described by a freshly migrated PGlite (parsed and planned, never
// run) and the columns it returns are compared with the properties its row type declares, names and,
// where both sides say, kinds (a bigint or numeric column is text from both drivers, an integer a
// number, a timestamp a Date). A statement is covered when its text can be rebuilt from the source:
// its substitutions are values (bound parameters), the `prepared()` name, or fragments whose text the
// source states (constant templates, sql.raw/ref/val, sql.join of a written-out list, a condition
// between two, or the call of a helper that returns one, inlined with its arguments). Every raw
// statement with a row type must be covered: one the test cannot rebuild or describe fails it, so a
// new helper shape is either taught here or the statement moves to Kysely's typed builder.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PGliteDialect } from 'kysely';
import { migrateToLatest } from '../../src/store/migrate.ts';

describe('raw row types', () => {
  // TypeScript 7 (the project's compiler) is a native binary without a compiler API; TypeScript 5's
  // is installed as `typescript5` for tools that need one.
  const ts: typeof import('typescript5') = createRequire(import.meta.url)('typescript5');

  const storeDir = fileURLToPath(new URL('../../src/store/', import.meta.url));

  interface Statement {
    where: string;
    text: string | undefined;
    /** Why the text could not be rebuilt. */
    uncovered?: string;
    declared: Map<string, Kind>;
  }

  type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'other';

  /** What each driver hands back for a column type (store/database.ts: int8 and numeric as text). */
  const kindOfOid: Record<number, Kind> = {
    16: 'boolean',
    20: 'string',
    1700: 'string',
    21: 'number',
    23: 'number',
    26: 'number',
    700: 'number',
    701: 'number',
    18: 'string',
    19: 'string',
    25: 'string',
    1043: 'string',
    2950: 'string',
    28: 'string',
    5069: 'string',
    3220: 'string',
    1114: 'Date',
    1184: 'Date',
  };

  function statements(): Statement[] {
    const files = readdirSync(storeDir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => storeDir + f);
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      types: ['node'],
    });
    const checker = program.getTypeChecker();
    const found: Statement[] = [];
    const kindOf = (type: import('typescript5').Type): Kind => {
      const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
      const kinds = new Set(
        parts.map((t): Kind => {
          if (t.flags & ts.TypeFlags.StringLike) return 'string';
          if (t.flags & ts.TypeFlags.NumberLike) return 'number';
          if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
          if (t.getSymbol()?.getName() === 'Date') return 'Date';
          return 'other';
        }),
      );
      return kinds.size === 1 ? [...kinds][0]! : 'other';
    };
    const isFragment = (expr: import('typescript5').Expression) => {
      const type = checker.getTypeAtLocation(expr);
      return (type.isUnion() ? type.types : [type]).some((t) => t.getProperty('toOperationNode') !== undefined);
    };
    type Rendered = string | { uncovered: string };
    type Params = { n: number };
    type Node = import('typescript5').Node;
    type Expression = import('typescript5').Expression;
    // What the parameters of a helper being inlined stand for: the argument (or the default) and the
    // bindings it is read with.
    type Env = Map<import('typescript5').Symbol, { expr: Expression; env: Env }>;
    /** The symbol a name refers to, through an import to its declaration. */
    const symbolOf = (expr: Node) => {
      const symbol = checker.getSymbolAtLocation(expr);
      return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    };
    const bound = (expr: Node, env: Env) => {
      const symbol = checker.getSymbolAtLocation(expr);
      return symbol ? env.get(symbol) : undefined;
    };
    /** The expression an identifier stands for: a bound parameter, or a variable's initializer. */
    const resolve = (expr: Expression, env: Env): { expr: Expression; env: Env } | undefined => {
      if (!ts.isIdentifier(expr)) return undefined;
      const binding = bound(expr, env);
      if (binding) return binding;
      const declaration = symbolOf(expr)?.valueDeclaration;
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) return { expr: declaration.initializer, env };
      return undefined;
    };
    /** The expression a helper function returns: an arrow's body, or the last return of a block. */
    const returned = (fn: import('typescript5').SignatureDeclaration): Expression | undefined => {
      if (ts.isArrowFunction(fn) && !ts.isBlock(fn.body)) return fn.body;
      const body = (fn as { body?: Node }).body;
      if (!body || !ts.isBlock(body)) return undefined;
      const last = [...body.statements].reverse().find(ts.isReturnStatement);
      return last?.expression;
    };
    // A fragment spliced in is rendered where the source says what it is: a constant `sql` template,
    // `sql.raw('…')`, `sql.ref('…')`, `sql.val(…)`, `sql.join` of a list the source writes out, an
    // inline template, a call of a helper of ours that returns one of those (inlined, its parameters
    // bound to the arguments), or a condition between two of those (its first branch: the condition
    // picks rows or a clause, not the columns returned).
    const renderFragment = (expr: Expression, params: Params, env: Env, depth = 0): Rendered => {
      if (depth > 20) return { uncovered: `nests helpers too deeply: \${${expr.getText().slice(0, 60)}}` };
      const again = (next: Expression, nextEnv = env) => renderFragment(next, params, nextEnv, depth + 1);
      if (ts.isParenthesizedExpression(expr)) return again(expr.expression);
      if (ts.isTaggedTemplateExpression(expr) && expr.tag.getText() === 'sql') return renderTemplate(expr.template, params, env, depth + 1);
      if (ts.isConditionalExpression(expr)) return again(expr.whenTrue);
      if (ts.isCallExpression(expr) && ['sql.raw', 'sql.ref', 'sql.id', 'sql.lit'].includes(expr.expression.getText())) {
        // The text as written, or a constant's (`sql.lit(DEFAULT_COMMITMENT_FIELD_KEY)`), through imports.
        const [written] = expr.arguments;
        const arg = written && (resolve(written, env)?.expr ?? written);
        if (arg && ts.isStringLiteralLike(arg)) return expr.expression.getText() === 'sql.lit' ? `'${arg.text.replaceAll("'", "''")}'` : arg.text;
      }
      if (ts.isCallExpression(expr) && expr.expression.getText() === 'sql.val') return `$${++params.n}`;
      if (ts.isCallExpression(expr) && expr.expression.getText() === 'sql.join') {
        const [list, separator] = expr.arguments;
        const items = list && (resolve(list, env) ?? { expr: list, env });
        if (items && ts.isArrayLiteralExpression(items.expr)) {
          const glue = separator ? again(separator) : ', ';
          if (typeof glue !== 'string') return glue;
          const parts: string[] = [];
          for (const item of items.expr.elements) {
            const part = again(item, items.env);
            if (typeof part !== 'string') return part;
            parts.push(part);
          }
          return parts.join(glue);
        }
      }
      if (ts.isIdentifier(expr)) {
        const target = resolve(expr, env);
        if (target) return again(target.expr, target.env);
      }
      if (ts.isPropertyAccessExpression(expr)) {
        const owner = resolve(expr.expression, env);
        const object = owner && ts.isObjectLiteralExpression(owner.expr) ? owner.expr : undefined;
        const member = object?.properties.find((p) => p.name?.getText() === expr.name.text);
        if (member && ts.isPropertyAssignment(member)) return again(member.initializer, owner!.env);
      }
      if (ts.isCallExpression(expr) && ts.isIdentifier(expr.expression)) {
        const declaration = symbolOf(expr.expression)?.valueDeclaration;
        const fn =
          declaration && ts.isFunctionDeclaration(declaration)
            ? declaration
            : declaration &&
                ts.isVariableDeclaration(declaration) &&
                declaration.initializer &&
                (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
              ? declaration.initializer
              : undefined;
        const body = fn && returned(fn);
        if (fn && body && fn.parameters.every((p) => ts.isIdentifier(p.name))) {
          const inner: Env = new Map(env);
          fn.parameters.forEach((p, i) => {
            const arg = expr.arguments[i];
            const value = arg ? { expr: arg, env } : p.initializer ? { expr: p.initializer, env: inner } : undefined;
            const parameter = checker.getSymbolAtLocation(p.name);
            if (value && parameter) inner.set(parameter, value);
          });
          return again(body, inner);
        }
      }
      return { uncovered: `splices a fragment: \${${expr.getText().slice(0, 60)}}` };
    };
    const renderTemplate = (template: import('typescript5').TemplateLiteral, params: Params, env: Env = new Map(), depth = 0): Rendered => {
      if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
      let text = template.head.text;
      for (const span of template.templateSpans) {
        const expr = span.expression;
        if (ts.isCallExpression(expr) && expr.expression.getText() === 'prepared') text += '';
        else if (isFragment(expr)) {
          const part = renderFragment(expr, params, env, depth);
          if (typeof part !== 'string') return part;
          text += part;
        } else text += `$${++params.n}`;
        text += span.literal.text;
      }
      return text;
    };
    for (const file of program.getSourceFiles()) {
      if (!file.fileName.startsWith(storeDir) || file.fileName.includes('/migrations/')) continue;
      const visit = (node: import('typescript5').Node) => {
        if (
          ts.isTaggedTemplateExpression(node) &&
          node.tag.getText() === 'sql' &&
          node.typeArguments?.length === 1 &&
          ts.isPropertyAccessExpression(node.parent) &&
          node.parent.name.text === 'execute'
        ) {
          const rowType = checker.getTypeFromTypeNode(node.typeArguments[0]!);
          const props = checker.getPropertiesOfType(rowType);
          if (props.length > 0 && !(rowType.flags & ts.TypeFlags.StringLike)) {
            const declared = new Map(props.map((p) => [p.getName(), kindOf(checker.getTypeOfSymbolAtLocation(p, node))]));
            const where = `${file.fileName.slice(storeDir.length - 'src/store/'.length)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
            const rendered = renderTemplate(node.template, { n: 0 });
            const text = typeof rendered === 'string' ? rendered : undefined;
            const uncovered = typeof rendered === 'string' ? undefined : rendered.uncovered;
            found.push({ where, text, declared, ...(uncovered ? { uncovered } : {}) });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
    return found;
  }

  let pglite: PGlite;

  before(async () => {
    pglite = await PGlite.create({ extensions: { pg_trgm, btree_gin } });
    const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
    await migrateToLatest(db);
  });

  after(async () => {
    await pglite.close();
  });

  test('the columns of raw statements match the row types they are declared with', async (t) => {
    const all = statements();
    const mismatches: string[] = [];
    const notCovered: string[] = [];
    const undeclared: string[] = [];
    let covered = 0;
    for (const s of all) {
      if (s.text === undefined) {
        notCovered.push(`${s.where}: ${s.uncovered}`);
        continue;
      }
      let fields: { name: string; dataTypeID: number }[];
      try {
        ({ resultFields: fields } = await pglite.describeQuery(s.text));
      } catch (err) {
        notCovered.push(`${s.where}: PostgreSQL cannot describe it without its fragments' types (${(err as Error).message})`);
        continue;
      }
      covered++;
      const returned = new Map(fields.map((f) => [f.name, kindOfOid[f.dataTypeID] ?? 'other']));
      for (const [name, kind] of s.declared) {
        if (!returned.has(name))
          mismatches.push(`${s.where}: declares "${name}", which the statement does not return (it returns ${[...returned.keys()].join(', ')})`);
        else if (kind !== 'other' && returned.get(name) !== 'other' && returned.get(name) !== kind) {
          mismatches.push(`${s.where}: declares "${name}" as ${kind}; the driver hands back ${returned.get(name)}`);
        }
      }
      // A column returned and not declared is read by nobody (a side effect such as set_config, or a
      // column left over): reported, not a failure.
      for (const name of returned.keys()) if (!s.declared.has(name)) undeclared.push(`${s.where}: returns "${name}", which its row type does not declare`);
    }
    t.diagnostic(`${covered} of ${all.length} raw statements with a row type described and compared`);
    if (undeclared.length) t.diagnostic(`columns returned that no row type declares:\n${undeclared.join('\n')}`);
    assert.ok(covered >= 1, 'no raw statement was checked: has the way statements are written changed?');
    assert.deepEqual(
      notCovered,
      [],
      'raw statements with a row type that this test cannot rebuild and describe: teach it the helper they use, or write them with the typed builder',
    );
    assert.deepEqual(mismatches, [], `raw statements whose row type disagrees with what they return:\n${mismatches.join('\n')}`);
  });
});
