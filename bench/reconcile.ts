// `npm run bench:reconcile [-- --credits N | --quick]`: a camt.053 statement of 10,000 credits (default; 2,000 with --quick),
// each paying one investor's commitment exactly, reconciled on a throwaway database
// (DATABASE_URL: a new PostgreSQL database beside it, dropped at the end; else PGlite). Every credit
// is a `matched` line and a move to the payment step, so this measures the whole path: parsing,
// the batch lookup of references, judging under each journey's lock, and the moves (several at once
// on PostgreSQL). Prints the time and the machine's load; exits 1 only when the bench itself fails.
// Also printed, to tell where the time goes: the parse of the file alone, the statements sent per
// credit by kind (PostgreSQL), and the CPU time of this process and of the database's backends.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { databaseCpuMs } from './processes.ts';
import { Caches } from '../src/operations/caches.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { importStatement, parseStatement } from '../src/operations/statement-import.ts';
import { catchUpFunnel } from '../src/operations/funnel.ts';
import { batchConcurrency } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { seedCommittedDeal } from './committed-deal.ts';
import { createBenchDatabase } from './database.ts';

const { values } = parseArgs({ options: { credits: { type: 'string' }, quick: { type: 'boolean', default: false } } });
const credits = Number(values.credits ?? (values.quick ? 2000 : 10000));
const TARGET_SECONDS = 10;

const benchDb = await createBenchDatabase(process.env.DATABASE_URL || undefined);
console.log(`database: ${benchDb.label}`);
// Statements sent during the import, by kind: a prepared statement's name, else its first words.
const sent = new Map<string, number>();
let counting = false;
const kindOf = (text: string) => text.match(/^\/\* prepared:(\S+)/)?.[1] ?? text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 4).join(' ');
const database = await benchDb.open({ onStatement: (text) => counting && sent.set(kindOf(text), (sent.get(kindOf(text)) ?? 0) + 1) });
const caches = new Caches();
try {
  await migrateToLatest(database.db);
  const deps = { db: database.db, clock: systemClock, newId: newUuid, caches };
  const dealId = 'bench-reconcile';
  const people = await seedCommittedDeal(
    deps,
    { id: dealId, name: 'Reconciliation bench', withComplete: true },
    Array.from({ length: credits }, (_, i) => ({
      id: `rec-${i + 1}`,
      name: `Bench rec-${i + 1}`,
      amount: `${(1 + (i % 50)) * 1000}.00`,
    })),
  );
  const entries = people
    .map(
      (p, i) =>
        `<Ntry><Amt Ccy="EUR">${p.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>2026-11-23</Dt></BookgDt><ValDt><Dt>2026-11-23</Dt></ValDt><AcctSvcrRef>BENCH-${i + 1}</AcctSvcrRef>` +
        `<NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i + 1}</EndToEndId></Refs><Amt Ccy="EUR">${p.amount}</Amt>` +
        `<RltdPties><Dbtr><Pty><Nm>${p.id}</Nm></Pty></Dbtr></RltdPties><RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp>` +
        `<Ref>${p.reference}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
    `<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-23T18:00:00</CreDtTm></GrpHdr><Stmt><Id>BENCH</Id>` +
    `<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>\n${entries}\n</Stmt></BkToCstmrStmt></Document>\n`;
  // The seeded journeys' funnel upkeep, as a running service would have done it meanwhile.
  await catchUpFunnel(deps, 'now');
  // The service's own choice (batchConcurrency: the pool less two, at most 8) unless RECONCILE_CONCURRENCY says otherwise.
  const concurrency = process.env.RECONCILE_CONCURRENCY ? Number(process.env.RECONCILE_CONCURRENCY) : batchConcurrency(database.db);
  console.log(
    `statement: ${credits} credits, ${(xml.length / 1024 / 1024).toFixed(1)} MB; concurrency ${concurrency}; load before ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  const parseStarted = performance.now();
  parseStatement({ kind: 'xml', text: xml });
  console.log(`parse alone: ${((performance.now() - parseStarted) / 1000).toFixed(2)} s`);
  const cpuBefore = { node: process.cpuUsage(), database: benchDb.name ? databaseCpuMs(benchDb.name) : undefined };
  counting = true;
  const started = performance.now();
  const result = await importStatement(deps, { userId: 'bench', role: 'admin', tokenKey: 'bench' }, { kind: 'xml', text: xml }, { concurrency });
  const seconds = (performance.now() - started) / 1000;
  counting = false;
  console.log(
    `reconciled in ${seconds.toFixed(2)} s (${(credits / seconds).toFixed(0)} lines/s); outcomes ${JSON.stringify(result.outcomes)}; statuses ${JSON.stringify(result.statuses)}`,
  );
  const node = process.cpuUsage(cpuBefore.node);
  const after = benchDb.name ? databaseCpuMs(benchDb.name) : undefined;
  // A backend that started during the run counts from zero; the WAL writer and checkpointer are not counted.
  const databaseMs = after ? [...after].reduce((sum, [pid, ms]) => sum + ms - (cpuBefore.database?.get(pid) ?? 0), 0) : undefined;
  console.log(
    `CPU: this process ${((node.user + node.system) / 1e6).toFixed(2)} s${databaseMs === undefined ? '' : `, database backends ${(databaseMs / 1000).toFixed(2)} s`}`,
  );
  // The funnel's upkeep of the moves the statement made, off the statement's path (a service runs it
  // in the background every FUNNEL_UPKEEP_INTERVAL_MS): timed on its own.
  counting = false;
  const upkeepStarted = performance.now();
  const upkept = await catchUpFunnel(deps);
  console.log(
    `funnel upkeep of the statement's moves (in the background in a service): ${upkept} noted journeys in ${((performance.now() - upkeepStarted) / 1000).toFixed(2)} s`,
  );
  if (sent.size > 0) {
    const total = [...sent.values()].reduce((a, b) => a + b, 0);
    const kinds = [...sent]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([kind, n]) => `${kind} ${(n / credits).toFixed(2)}`);
    console.log(`statements per credit: ${(total / credits).toFixed(2)} (${kinds.join('; ')})`);
  }
  console.log(
    `target: under ${TARGET_SECONDS} s: ${seconds < TARGET_SECONDS ? 'met' : 'MISSED'}; load after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  if (result.statuses['matched'] !== credits) process.exitCode = 1;
} finally {
  await database.close();
  await benchDb.drop();
  caches.close();
}
