// The layers of src/ (docs/architecture.md), held by dependency-cruiser. Run with `npm run layers`;
// test/architecture/layers.test.ts runs the same check, so `npm test` and CI fail on a violation.
// Type-only imports and re-exports count, and no rule has an exception: a type that points the
// wrong way is still a seam that leaks.
// The web apps' rules (below the layers) keep the investor portal free of console code and the
// service modules the browsers import (BROWSER_SAFE) free of Node built-ins.
const BROWSER_SAFE = '^src/domain/(field-value|calendar-date|currency|investor-category|workflow|written-forms)[.]ts$';

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
      comment:
        'store/ turns rows into domain values and SQLSTATEs into domain errors; it knows nothing above it (config.ts and metrics.ts are leaves every layer may use).',
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
      name: 'store-never-re-exported',
      comment:
        'A layer above store/ never re-exports it (types included): what store/ returns reaches http/ only as a domain value or as a type operations/ declares, so http/ cannot name a store type through operations/.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '^src/store/', dependencyTypes: ['export'] },
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
      comment:
        "Statements are written and drivers opened in store/ alone, and the drivers' types named there alone: elsewhere the database handle is store/schema.ts Db.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: 'node_modules/(kysely|pg|@electric-sql/pglite)/' },
    },
    {
      name: 'portal-ships-no-console-code',
      comment: 'The investor portal is built from web/portal/ and the shared kit (web/kit/) only: not one module of the staff console goes to investors.',
      severity: 'error',
      from: { path: '^web/portal/' },
      to: { path: '^web/console/' },
    },
    {
      name: 'console-imports-no-portal-code',
      comment: 'What both apps need lives in web/kit/, never in one app for the other to import.',
      severity: 'error',
      from: { path: '^web/console/' },
      to: { path: '^web/portal/' },
    },
    {
      name: 'kit-imports-neither-app',
      comment: 'The shared kit is below both apps: it imports neither.',
      severity: 'error',
      from: { path: '^web/kit/' },
      to: { path: '^web/(console|portal)/' },
    },
    {
      name: 'browsers-import-only-browser-safe-modules',
      comment: "The web apps share the service's code only through the browser-safe modules (each says so in its first lines).",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: BROWSER_SAFE },
    },
    {
      name: 'browser-safe-modules-stay-browser-safe',
      comment: 'A browser-safe module imports no Node built-in (node:*) and, of ours, only other browser-safe modules.',
      severity: 'error',
      from: { path: BROWSER_SAFE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'browser-safe-modules-import-only-browser-safe-modules',
      comment: 'A browser-safe module imports, of ours, only other browser-safe modules.',
      severity: 'error',
      from: { path: BROWSER_SAFE },
      to: { path: '^src/', pathNot: BROWSER_SAFE },
    },
    {
      name: 'no-circular',
      comment: 'Every import points one way: a type several files share lives in a module of its own.',
      severity: 'error',
      from: { path: '^(src|web)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
