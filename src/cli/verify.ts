// `dealflow verify`: the report of operations/audit.ts as lines and an exit code, apart from the
// command so tests run it on their own database. Without --deal it also checks the database as a
// whole (operations/integrity.ts): the schema version, counts, and the feed's continuity, which is
// what to run after a restore (docs/operations/README.md).
import { sealAll } from '../operations/audit.ts';
import { verifyAudit } from '../operations/audit-verify.ts';
import { adoptCopy, checkIntegrity } from '../operations/integrity.ts';
import { systemClock } from '../operations/deps.ts';
import type { Db } from '../store/schema.ts';

/**
 * 0 when every chain and checkpoint recomputes (and, for the whole database, the schema, counts and
 * feed checks hold), 1 at the first mismatch or failed check (named in the output).
 */
export async function runVerify(db: Db, options: { dealId?: string; seal?: boolean; adoptCopy?: boolean }, out: (line: string) => void): Promise<number> {
  if (options.adoptCopy && (await adoptCopy({ db }))) out("Adopted: this server's cluster is now the one the database records as its own.");
  if (options.seal) await sealAll({ db, clock: systemClock });
  const report = await verifyAudit({ db }, options.dealId === undefined ? {} : { dealId: options.dealId });
  if (!report.ok) {
    const m = report.mismatch!;
    const where = m.checkpoint !== undefined ? `checkpoint ${m.checkpoint}` : `entry ${m.chain} #${m.seq}`;
    out(`MISMATCH at ${where}: ${m.detail}`);
    out(`(verified before it: ${report.entries} entries in ${report.chains} chains, ${report.checkpoints} checkpoints)`);
    return 1;
  }
  if (report.proved === undefined) {
    out(`OK: ${report.entries} entries in ${report.chains} chains, ${report.checkpoints} checkpoints, ${report.unsealed} entries not yet in a checkpoint`);
  } else {
    out(
      `OK: ${report.entries} entries in ${report.chains} chains; ${report.proved} of them proved in their checkpoints, ${report.unsealed} not yet in a checkpoint; the chain of ${report.checkpoints} checkpoints`,
    );
  }
  const shown = report.heads.slice(0, 10);
  for (const h of shown) out(`  ${h.chain}  #${h.seq}  ${h.hash}`);
  if (report.heads.length > shown.length) out(`  … and ${report.heads.length - shown.length} more chains`);
  if (options.dealId !== undefined) return 0;
  const { schema, facts, problems, notes } = await checkIntegrity({ db });
  const id = facts.identity;
  if (id) out(`Identity: instance ${id.instanceId} on ${id.server}, system ${id.system}, timeline ${id.timeline}`);
  for (const note of notes) out(`NOTE: ${note}`);
  out(`Schema: ${schema.applied} of ${schema.known} migrations applied, latest ${schema.latest ?? 'none'}`);
  const c = facts.counts;
  out(
    `Counts: ${c.deals} deals, ${c.investors} investors, ${c.journeys} journeys, ${c.events} events, ${c.subscriptions} subscriptions, ${c.paymentLines} payment lines, ${c.outbox} feed entries, ${c.auditEntries} audit entries`,
  );
  for (const problem of problems) out(`FAILED: ${problem}`);
  if (problems.length > 0) return 1;
  out(`Feed: positions up to ${facts.outboxMaxPosition}, the next is ${facts.outboxNextPosition}; every entry's transaction is behind the next one`);
  return 0;
}
