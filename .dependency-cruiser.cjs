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
      name: 'wire-imports-only-domain',
      comment:
        'wire/ is the wire format that both edges read (body schemas the import readers share, the strict JSON parser, validation issues as field errors): http/, operations/ and cli/ import it; it imports only domain/.',
      severity: 'error',
      from: { path: '^src/wire/' },
      to: { path: '^src/', pathNot: ['^src/wire/', '^src/domain/'] },
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
      from: { path: '^src/operations/' },
      to: { path: '^src/(http|cli)/' },
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
