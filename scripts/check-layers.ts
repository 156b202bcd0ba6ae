// `npm run layers`: checks src/ and the web apps (web/) against the layer rules of .dependency-cruiser.cjs and prints every
// violation; test/architecture/layers.test.ts runs the same check. dependency-cruiser reads
// TypeScript with TypeScript 5's compiler API, which TypeScript 7 (the project's compiler, a native
// binary) no longer has: its `typescript` import is pointed at the `typescript5` package (an npm
// alias), as scripts/generate-client-types.ts does for openapi-typescript.
import { createRequire, registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

registerHooks({
  resolve: (specifier, context, nextResolve) => nextResolve(specifier.replace(/^typescript(?=$|\/)/, 'typescript5'), context),
});

const root = fileURLToPath(new URL('../', import.meta.url));

export interface LayerViolation {
  rule: string;
  from: string;
  to: string;
  /** The files of the circle, for a circular import. */
  cycle: string[];
}

/** Every import in src/ and web/ that breaks a rule of .dependency-cruiser.cjs (empty when the layers hold). */
export async function layerViolations(): Promise<LayerViolation[]> {
  const { cruise } = await import('dependency-cruiser');
  const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs');
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const { output } = await cruise(['src', 'web/console/src', 'web/portal/src', 'web/kit'], {
      ...config.options,
      ruleSet: { forbidden: config.forbidden },
      validate: true,
    });
    if (typeof output === 'string') throw new Error('dependency-cruiser returned text where a result was expected');
    if (output.summary.totalCruised < 100)
      throw new Error(`dependency-cruiser read only ${output.summary.totalCruised} modules of src/: is TypeScript parsing available?`);
    return output.summary.violations.map((v) => ({
      rule: v.rule.name,
      from: v.from,
      to: v.to,
      cycle: (v.cycle ?? []).map((step) => (typeof step === 'string' ? step : step.name)),
    }));
  } finally {
    process.chdir(cwd);
  }
}

/** One line per violation, for a person to read. */
export function describeViolation(v: LayerViolation): string {
  return v.cycle.length ? `${v.rule}: ${v.from} -> ${v.cycle.join(' -> ')}` : `${v.rule}: ${v.from} -> ${v.to}`;
}

if (import.meta.main) {
  const violations = await layerViolations();
  for (const v of violations) console.log(describeViolation(v));
  console.log(
    violations.length ? `${violations.length} import(s) break the layer rules (.dependency-cruiser.cjs)` : 'the layers hold: no forbidden import, no circle',
  );
  process.exitCode = violations.length ? 1 : 0;
}
