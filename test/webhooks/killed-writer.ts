// A writer to kill: makes one move in a transaction, says so on stdout, and keeps the transaction
// open until the process is killed (the feed test sends SIGKILL). Not a test file.
// Usage: node killed-writer.ts <databaseUrl> <schema> <dealId> <investorUserId> <targetStepId>
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { inTransaction, newUuid } from '../../src/operations/deps.ts';
import { moveToStep } from '../../src/operations/journeys.ts';
import { openDatabase } from '../../src/store/database.ts';

const [url, schema, dealId, investorUserId, targetStepId] = process.argv.slice(2) as [string, string, string, string, string];
const database = await openDatabase({ ...loadConfig({}), databaseUrl: url }, { schema });
await inTransaction({ db: database.db, clock: () => new Date(), newId: newUuid }, async (tx) => {
  const event = await moveToStep(tx, { userId: 'ops-killed', role: 'admin', tokenKey: 'test' }, dealId, { investorUserId, targetStepId, data: {} });
  process.stdout.write(`written ${event.id}\n`);
  await sql`select pg_sleep(600)`.execute(tx.db);
});
