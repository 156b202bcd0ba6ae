// `npm run bench:proposals [-- --investors N]`: what proposing investors for the reconciliation
// queue costs with 10,000 investors (default) in one deal, on a throwaway database (DATABASE_URL: a
// new PostgreSQL database beside it, dropped at the end; else PGlite). A statement of 20 credits
// without a usable reference (payer names with typos, amounts owed) is queued; then timed: a page
// of the queue with its proposals (GET /payments/lines?status=queued, cold and warm), the ranking
// alone over the candidates in TypeScript, and the same name ranking by pg_trgm's similarity() in SQL.
import { parseArgs } from 'node:util';
import { proposeInvestors } from '../src/domain/payment-proposal.ts';
import { Caches } from '../src/operations/caches.ts';
import { newUuid, systemClock } from '../src/operations/deps.ts';
import { listPaymentLines } from '../src/operations/payment-queue.ts';
import { importStatement } from '../src/operations/statement-import.ts';
import { findPaymentCandidates } from '../src/store/payment-candidates.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { sql } from 'kysely';
import { seedCommittedDeal } from './committed-deal.ts';
import { createBenchDatabase } from './database.ts';

const { values } = parseArgs({ options: { investors: { type: 'string' } } });
const count = Number(values.investors ?? 10000);
const forenames = [
  'Ada',
  'Grace',
  'Anne',
  'Charles',
  'Mary',
  'Alan',
  'Katherine',
  'John',
  'Sophie',
  'Emmy',
  'Lise',
  'Marie',
  'Niels',
  'Paul',
  'Rosalind',
  'Dorothy',
];
const surnames = [
  'Lovelace',
  'Hopper',
  'Byron',
  'Babbage',
  'Somerville',
  'Turing',
  'Johnson',
  'Neumann',
  'Germain',
  'Noether',
  'Meitner',
  'Curie',
  'Bohr',
  'Dirac',
  'Franklin',
  'Hodgkin',
];

const benchDb = await createBenchDatabase(process.env.DATABASE_URL || undefined);
console.log(`database: ${benchDb.label}; ${count} investors in one deal`);
const database = await benchDb.open();
const ms = (started: number) => `${(performance.now() - started).toFixed(0)} ms`;
try {
  await migrateToLatest(database.db);
  const deps = { db: database.db, clock: systemClock, newId: newUuid, caches: new Caches() };
  const dealId = 'bench-proposals';
  const people = await seedCommittedDeal(
    deps,
    { id: dealId, name: 'Proposals bench', withComplete: false },
    Array.from({ length: count }, (_, i) => ({
      id: `prop-${i + 1}`,
      name: `${forenames[i % forenames.length]} ${surnames[Math.floor(i / forenames.length) % surnames.length]}-${i}`,
      amount: `${1000 + (i % 997) * 25}.00`,
    })),
  );
  // 20 credits: a payer name with a letter dropped, the amount owed plus one cent (so only the name
  // decides), and a line that quotes the deal's first reference so the statement's deal is known.
  const picks = Array.from({ length: 20 }, (_, k) => people[Math.floor((k * count) / 20)]!);
  const rows = [`date,amount,currency,reference,counterparty`, `2026-03-20,${people[0]!.amount},EUR,${people[0]!.reference},${people[0]!.name}`];
  for (const p of picks.slice(1)) rows.push(`2026-03-20,${p.amount.replace(/\.00$/, '.01')},EUR,thanks,${p.name.slice(0, 2)}${p.name.slice(3)}`);
  const principal = { userId: 'bench', role: 'admin' as const, tokenKey: 'bench' };
  const csv = {
    columns: { date: 'date', amount: 'amount', currency: 'currency', reference: 'reference', counterparty: 'counterparty' },
    delimiter: ',',
    decimalSeparator: '.',
  } as const;
  await importStatement(deps, principal, { kind: 'csv', text: rows.join('\n'), csv } as Parameters<typeof importStatement>[2]);

  let started = performance.now();
  const page = await listPaymentLines(deps, { status: 'queued' }, { limit: 20, page: 1 });
  console.log(`a page of ${page.output.length} queued lines with proposals: ${ms(started)} (cold)`);
  started = performance.now();
  await listPaymentLines(deps, { status: 'queued' }, { limit: 20, page: 1 });
  console.log(`the same page again: ${ms(started)}`);
  const right = page.output.filter((l, k) => l.proposals?.[0]?.investorUserId === picks[k + 1]?.id).length;
  console.log(`first proposal right for ${right} of ${page.output.length} lines (name with a letter dropped, amount off by a cent)`);

  started = performance.now();
  const candidates = await findPaymentCandidates(database.db, { dealIds: [dealId] }, 50_000);
  console.log(`read ${candidates.length} candidates: ${ms(started)}`);
  const asCandidates = candidates.map((c) => ({ ...c, stillOwed: c.commitment }));
  started = performance.now();
  for (const line of page.output)
    proposeInvestors({ amount: line.amount, currency: line.currency, payerName: line.debtorName, referenceTexts: [line.remittance] }, asCandidates, 3);
  console.log(`ranking alone in TypeScript, ${page.output.length} lines × ${asCandidates.length} candidates: ${ms(started)}`);
  started = performance.now();
  for (const line of page.output) {
    await sql`select j.investor_user_id, similarity(i.full_name, ${line.debtorName}) as s from journeys j join investors i on i.id = j.investor_user_id
      where j.deal_id = ${dealId} order by s desc limit 3`.execute(database.db);
  }
  console.log(`names alone by pg_trgm similarity() in SQL, ${page.output.length} lines: ${ms(started)}`);
} finally {
  await database.close();
  await benchDb.drop();
}
