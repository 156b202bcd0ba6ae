// The subcommands of `dealflow`. Each one opens the database the service would use, does its work
// through the operations, and closes it.
import path from 'node:path';
import { AppError } from '../domain/errors.ts';
import { isRole } from '../domain/principal.ts';
import { importHelp, runImport } from './import.ts';
import { newUuid, systemClock } from '../operations/deps.ts';
import { reconcileCommand } from './reconcile.ts';
import { eraseCommand } from './erase.ts';
import { sanctionsCommand } from './sanctions.ts';
import { staffCommand } from './staff.ts';
import type { Database } from '../store/database.ts';
import { type Command, inService, out, positiveInteger, progressBar, withDatabase } from './command.ts';

export { inService };

// The operations and the store are imported by the commands that use them, when they run: most of
// the code loads in a few hundred milliseconds that `dealflow --help` has no need of.
const operations = {
  verify: () => import('./verify.ts'),
  seed: () => import('../operations/seed.ts'),
  tokens: () => import('../operations/tokens.ts'),
  migrate: () => import('../store/migrate.ts'),
};

export const commands: Record<string, Command> = {
  verify: {
    summary: 'recompute the audit chains and checkpoints; exit 1 at the first mismatch',
    help: `dealflow verify [--deal <dealId>] [--seal] [--adopt-copy]

Recomputes every audit chain and every checkpoint: each entry's hash from the one before and its
content, the heads kept on journeys and workflows, each checkpoint's Merkle root over exactly its
entries. With --deal, the deal's journeys and workflow, the checkpoints' own hash chain, and an
inclusion proof of each of the deal's entries into its checkpoint (not the other deals' entries).
Prints the first entry that does not match and exits 1, or the counts and heads and exits 0.
Without --deal it also checks the database as a whole, and says whether it is a copy: a dump
loaded into another cluster fails (the cluster's system identifier is not the one recorded), and a
restored, cloned or promoted copy is named (the newest checkpoint was sealed on another server or
timeline).
  --seal        first seal a checkpoint over the entries not covered yet (as the service does)
  --adopt-copy  record this server's cluster as the database's own (a copy that is to be the database from now on)`,
    options: { deal: { type: 'string' }, seal: { type: 'boolean' }, 'adopt-copy': { type: 'boolean' } },
    async run(config, values) {
      const dealId = typeof values.deal === 'string' ? values.deal : undefined;
      const { runVerify } = await operations.verify();
      return withDatabase(config, ({ db }) =>
        runVerify(db, { ...(dealId === undefined ? {} : { dealId }), seal: values.seal === true, adoptCopy: values['adopt-copy'] === true }, out),
      );
    },
  },
  backup: {
    summary: 'copy the embedded database to a file while the service runs (PostgreSQL: pg_basebackup)',
    help: `dealflow backup <file> [--force]

Writes a consistent copy of the embedded database (DATA_DIR) to <file>, a gzipped tar of its data
folder, taken between transactions: while the service runs it makes the copy itself (requests wait
for the moment of the copy), otherwise the command opens the folder. Everything committed before the
copy is in it. Restore it with dealflow restore. On PostgreSQL (DATABASE_URL) use pg_basebackup and
WAL archiving instead (docs/operations/README.md), and dealflow verify after a restore.
  --force   replace <file> if it exists`,
    options: { force: { type: 'boolean' } },
    resolvesPaths: true,
    async run(config, values, positionals) {
      const [file] = positionals;
      if (!file || positionals.length > 1) throw new AppError('validation', 'usage: dealflow backup <file>');
      if (config.databaseUrl)
        throw new AppError(
          'validation',
          'dealflow backup copies the embedded database; on PostgreSQL use pg_basebackup and WAL archiving (docs/operations/README.md)',
        );
      const { writeBackup } = await import('./backup.ts');
      const written = await withDatabase(config, (database) => writeBackup(database, path.resolve(file), values.force === true));
      out(`Wrote ${written.file}: ${written.bytes} bytes in ${written.ms} ms.`);
    },
  },
  restore: {
    summary: 'restore a backup of the embedded database into an empty folder, then verify it',
    help: `dealflow restore <file> [--data-dir <folder>] [--force]
dealflow restore --postgres <folder> --port <port> [--listen-addresses <list>] [--shared-buffers <size>]

Unpacks a backup made by dealflow backup into DATA_DIR (or --data-dir), which must be missing or
empty, starts the database on it once and runs the checks of dealflow verify (schema, counts, feed,
audit chains); exits 1 if one fails. Then start the service on the folder.
  --data-dir  the folder to restore into (default: DATA_DIR)
  --force     delete what the folder holds first (never while a service holds it)

With --postgres: prepares a PostgreSQL data folder restored from a base backup (of a
pg_auto_failover node above all) to start as a server of its own, with the server stopped: no
synchronous standby, the given port and listen_addresses (default localhost), shared_buffers if
given, pg_autoctl's settings emptied, standby.signal removed. Start PostgreSQL on it, then run
dealflow verify (docs/operations/README.md).`,
    options: {
      'data-dir': { type: 'string' },
      force: { type: 'boolean' },
      postgres: { type: 'string' },
      port: { type: 'string' },
      'listen-addresses': { type: 'string' },
      'shared-buffers': { type: 'string' },
    },
    resolvesPaths: true,
    async run(config, values, positionals) {
      if (typeof values.postgres === 'string') {
        if (positionals.length > 0) throw new AppError('validation', 'usage: dealflow restore --postgres <folder> --port <port>');
        const { resetRestoredPostgres } = await import('./restore-postgres.ts');
        const sharedBuffers = values['shared-buffers'];
        if (sharedBuffers !== undefined && (typeof sharedBuffers !== 'string' || !/^\d+(kB|MB|GB)?$/.test(sharedBuffers))) {
          throw new AppError('validation', '--shared-buffers must be a size such as 256MB');
        }
        const changes = resetRestoredPostgres(path.resolve(values.postgres), {
          port: positiveInteger(values.port, '--port', 65535),
          listenAddresses: typeof values['listen-addresses'] === 'string' ? values['listen-addresses'] : 'localhost',
          ...(typeof sharedBuffers === 'string' ? { sharedBuffers } : {}),
        });
        for (const change of changes) out(change);
        out('Start PostgreSQL on the folder, then run dealflow verify against it.');
        return 0;
      }
      const [file] = positionals;
      if (!file || positionals.length > 1) throw new AppError('validation', 'usage: dealflow restore <file> [--data-dir <folder>]');
      if (config.databaseUrl)
        throw new AppError(
          'validation',
          'dealflow restore fills an embedded database folder; on PostgreSQL restore a base backup with its WAL (docs/operations/README.md), then run dealflow verify',
        );
      const dataDir = typeof values['data-dir'] === 'string' ? path.resolve(values['data-dir']) : config.dataDir;
      if (dataDir.startsWith('memory://')) throw new AppError('validation', 'restore needs a folder, not memory://');
      const { restorePGlite } = await import('../store/backup.ts');
      const restored = await restorePGlite(path.resolve(file), dataDir, { force: values.force === true });
      out(`Restored ${restored.bytes} bytes into ${dataDir}. Verifying:`);
      const { runVerify } = await operations.verify();
      return withDatabase({ ...config, dataDir }, ({ db }) => runVerify(db, {}, out));
    },
  },
  erase: eraseCommand,
  serve: {
    summary: 'run the HTTP service (what npm start does)',
    help: `dealflow serve [--no-demo]

Runs the service on PORT (default 3000). Without DATABASE_URL it uses the embedded database in
DATA_DIR; on its first run it creates an admin token and prints it once.
  --no-demo   do not seed the demo deal on the first embedded run`,
    options: { 'no-demo': { type: 'boolean' } },
    async run(config, values) {
      // Tracing first, so its instrumentation sees the HTTP server and pg load (telemetry.ts).
      const stopTracing = config.tracing ? await (await import('../telemetry.ts')).startTracing(config.tracing) : undefined;
      // Loaded when used: the HTTP service is most of the code, and `dealflow --help` needs none of it.
      const [{ serveUntilSignalled }, { openServiceChannel }] = await Promise.all([import('../main.ts'), import('./service-channel.ts')]);
      try {
        await serveUntilSignalled(config, { demo: !values['no-demo'], openChannel: (c, database) => openServiceChannel(c, database, commands) });
      } finally {
        await stopTracing?.();
      }
    },
  },
  worker: {
    summary: 'deliver webhooks, seal audit checkpoints and keep the funnel, without the HTTP API',
    help: `dealflow worker

Delivers the webhooks of step triggers from the outbox until stopped (SIGTERM or Ctrl-C), and
meanwhile seals audit checkpoints (every AUDIT_SEAL_INTERVAL_MS) and applies committed moves to the
kept funnel (every FUNNEL_UPKEEP_INTERVAL_MS). Any number of workers and services may run against
one PostgreSQL; each delivery attempt is made by one of them, and their funnel upkeeps take turns. \`serve\` runs the same dispatcher unless WEBHOOKS_DISPATCHER=off. On the embedded
database (no DATABASE_URL) only one process may open DATA_DIR: there the service already
delivers, and a worker is for when the service is stopped.`,
    options: {},
    async run(config) {
      const stopTracing = config.tracing ? await (await import('../telemetry.ts')).startTracing(config.tracing) : undefined;
      const { runWorkerUntilSignalled } = await import('../main.ts');
      try {
        await runWorkerUntilSignalled(config);
      } finally {
        await stopTracing?.();
      }
    },
  },
  migrate: {
    summary: 'bring the database schema up to date',
    help: `dealflow migrate

Runs every pending migration; running it again changes nothing.`,
    options: {},
    async run(config) {
      const { migrateToLatest } = await operations.migrate();
      await withDatabase(config, async ({ db }) => {
        // withDatabase already migrated; report what the schema is at.
        const results = await migrateToLatest(db);
        out(results.length === 0 ? 'The database schema is up to date.' : `Applied ${results.length} migration(s).`);
      });
    },
  },
  token: {
    summary: 'create, list or revoke API tokens',
    help: `dealflow token create --role admin --name <name>
dealflow token create --role <staff role> --name <name> [--person <e-mail> | --integration <name>] [--expires <ISO date>]
dealflow token create --role investor --investor <investorUserId> [--name <name>] [--allow-unknown]
dealflow token list
dealflow token revoke <id>

A new token is printed once; only its SHA-256 hash is stored. A staff key may belong to a person
(--person: deactivating them revokes it, and it carries at most their role) or name the
integration that uses it, and may expire. The investor must be in the directory (PUT
/investors/{id}); --allow-unknown binds a token to an id not there yet.`,
    options: {
      role: { type: 'string' },
      name: { type: 'string' },
      investor: { type: 'string' },
      'allow-unknown': { type: 'boolean' },
      person: { type: 'string' },
      integration: { type: 'string' },
      expires: { type: 'string' },
    },
    async run(config, values, positionals) {
      const [action, id] = positionals;
      const { createToken, listTokens, revokeToken } = await operations.tokens();
      switch (action) {
        case 'create': {
          const role = values.role;
          if (!isRole(role)) throw new AppError('validation', '--role must be viewer, operator, approver, admin or investor');
          const investor = typeof values.investor === 'string' ? values.investor : undefined;
          const name = typeof values.name === 'string' ? values.name : role === 'investor' ? `investor ${investor ?? ''}` : '';
          if (!name) throw new AppError('validation', '--name is required for a staff token');
          const expires = typeof values.expires === 'string' ? new Date(values.expires) : undefined;
          if (expires && Number.isNaN(expires.getTime())) throw new AppError('validation', '--expires must be an ISO 8601 date or time');
          const owner = {
            ...(typeof values.person === 'string' ? { personEmail: values.person } : {}),
            ...(typeof values.integration === 'string' ? { integration: values.integration } : {}),
            ...(expires ? { expiresAt: expires } : {}),
          };
          const created = await withDatabase(config, ({ db }) =>
            createToken(db, { name, role, ...(investor ? { investorUserId: investor } : {}), requireKnownInvestor: !values['allow-unknown'], ...owner }),
          );
          out(`Created ${created.role} token ${created.id} (${created.name}). Shown once, keep it:`);
          out(created.token);
          return;
        }
        case 'list': {
          const tokens = await withDatabase(config, ({ db }) => listTokens(db));
          out(['id'.padEnd(36), 'role'.padEnd(8), 'created'.padEnd(24), 'last used'.padEnd(24), 'status'.padEnd(8), 'name'].join('  '));
          const now = new Date().toISOString();
          for (const t of tokens) {
            // The investor is named once: the default name ("investor <id>") already says it.
            const bound = t.investorUserId && !t.name.includes(t.investorUserId) ? ` (investor ${t.investorUserId})` : '';
            const owner = t.personId ? ` (person ${t.personId})` : t.integration ? ` (integration ${t.integration})` : '';
            const status = t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt <= now ? 'expired' : 'live';
            out([t.id, t.role.padEnd(8), t.createdAt, (t.lastUsedAt ?? '-').padEnd(24), status.padEnd(8), t.name + bound + owner].join('  '));
          }
          return;
        }
        case 'revoke': {
          if (!id) throw new AppError('validation', 'usage: dealflow token revoke <id>');
          await withDatabase(config, ({ db }) => revokeToken(db, id));
          out(`Revoked token ${id}.`);
          return;
        }
        default:
          process.stderr.write(`${this.help}\n`);
          return 1;
      }
    },
  },
  seed: {
    summary: 'create the demo deal, or bigger data sets for benchmarks',
    help: `dealflow seed --demo
dealflow seed --investors <N> --deals <M>

--demo creates the deal "demo" (a workflow of eight steps: interest, commitment, a KYC branch with a
KYC-level requirement beside a professional-investor review, documents, payment, complete,
withdrawn) with 200 investors spread across it; it does nothing when that deal exists. The first
start of the embedded database runs it (unless serve --no-demo).

--investors N --deals M creates M new deals with the same workflow and N new investors, each with a
journey in every deal, written in bulk (a progress bar shows on a terminal).`,
    options: { demo: { type: 'boolean' }, investors: { type: 'string' }, deals: { type: 'string' } },
    async run(config, values) {
      const { seedDemo, seedScale } = await operations.seed();
      const deps = (db: Database['db']) => ({ db, clock: systemClock, newId: newUuid });
      if (values.demo) {
        const result = await withDatabase(config, ({ db }) => seedDemo(deps(db)));
        out(
          result.created ? `Created the demo deal "${result.dealId}" with ${result.investors} investors.` : `The demo deal "${result.dealId}" exists already.`,
        );
        return;
      }
      if (values.investors === undefined && values.deals === undefined) {
        process.stderr.write(`${this.help}\n`);
        return 1;
      }
      const investors = positiveInteger(values.investors, '--investors', 10_000_000);
      const deals = positiveInteger(values.deals ?? '1', '--deals', 1000);
      const result = await withDatabase(config, ({ db }) => seedScale(deps(db), { investors, deals, onProgress: progressBar('journeys') }));
      out(`Created ${result.investors} investors and ${result.journeys} journeys in ${result.dealIds.length} deal(s): ${result.dealIds.join(', ')}`);
    },
  },
  import: {
    summary: 'import investors (CSV or NDJSON) or the moves of a deal (CSV) from a file',
    help: importHelp,
    options: {
      deal: { type: 'string' },
      step: { type: 'string' },
      'dry-run': { type: 'boolean' },
      columns: { type: 'string' },
      separator: { type: 'string' },
      numbers: { type: 'string' },
      dates: { type: 'string' },
      duplicates: { type: 'string' },
    },
    run: runImport,
  },
  reconcile: reconcileCommand,
  sanctions: sanctionsCommand,
  staff: staffCommand,
  openapi: {
    summary: 'print the OpenAPI 3.1 document (npm run openapi writes openapi.json)',
    help: `dealflow openapi

Prints the OpenAPI document of this version, as served at /openapi.json.`,
    options: {},
    async run(config) {
      const { generateOpenApi } = await import('../main.ts');
      out(JSON.stringify(await generateOpenApi(config), null, 2));
    },
  },
};
