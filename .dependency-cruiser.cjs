// The layers of src/ (docs/architecture.md), held by dependency-cruiser. Run with `npm run layers`;
// test/architecture/layers.test.ts runs the same check, so `npm test` and CI fail on a violation.
// Type-only imports count: a type that points the wrong way is still a seam that leaks.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      comment: 'domain/ is pure TypeScript: it imports only other domain files (and node built-ins).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'store-imports-only-domain-and-config',
      comment: 'store/ turns rows into domain values and SQLSTATEs into domain errors; it knows nothing above it (config.ts and metrics.ts are leaves every layer may use).',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: ['^src/store/', '^src/domain/', '^src/config[.]ts$', '^src/metrics[.]ts$'] },
    },
    {
      name: 'operations-never-import-http-or-cli',
      comment: 'operations/ serve both edges (HTTP and the command line) and so import neither.',
      severity: 'error',
      from: { path: '^src/operations/', pathNot: '^src/operations/import-readers/(investor-rows|rows)[.]ts$' },
      to: { path: '^src/(http|cli)/' },
    },
    {
      // KNOWN DEBT, narrowly scoped: the import readers validate an NDJSON investor row against the
      // wire schema of PUT /investors and its strict JSON parser, which still live in http/. The
      // exception admits exactly those three files from exactly these two readers; it goes when the
      // wire schemas and the strict JSON parser move to a module of their own that http/, the
      // readers and the CLI all import.
      name: 'operations-never-import-http--wire-schema-exception',
      severity: 'error',
      from: { path: '^src/operations/import-readers/(investor-rows|rows)[.]ts$' },
      to: { path: '^src/(http|cli)/', pathNot: '^src/http/(errors|json-body|schemas/investor)[.]ts$' },
    },
    {
      name: 'http-never-imports-store',
      comment: 'http/ calls operations and sees domain values and domain errors, never SQL or the schema.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/store/' },
    },
    {
      name: 'cli-never-imports-http',
      comment: 'The command line calls operations (or the HTTP API over the network), never the HTTP layer.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'sql-only-in-store',
      comment: 'Statements are written and drivers opened in store/ alone; elsewhere the database handle is only a type.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: 'node_modules/(kysely|pg|@electric-sql/pglite)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'Every import points one way: a type several files share lives in a module of its own.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
