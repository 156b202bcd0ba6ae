// `dealflow verify`: the report of operations/audit.ts as lines and an exit code, apart from the
// command so tests run it on their own database.
import type { Kysely } from 'kysely';
import { sealAll } from '../operations/audit.ts';
import { verifyAudit } from '../operations/audit-verify.ts';
import { systemClock } from '../operations/deps.ts';
import type { DB } from '../store/schema.ts';

/** 0 when every chain and checkpoint recomputes, 1 at the first mismatch (named in the output). */
export async function runVerify(db: Kysely<DB>, options: { dealId?: string; seal?: boolean }, out: (line: string) => void): Promise<number> {
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
    out(`OK: ${report.entries} entries in ${report.chains} chains; ${report.proved} of them proved in their checkpoints, ${report.unsealed} not yet in a checkpoint; the chain of ${report.checkpoints} checkpoints`);
  }
  const shown = report.heads.slice(0, 10);
  for (const h of shown) out(`  ${h.chain}  #${h.seq}  ${h.hash}`);
  if (report.heads.length > shown.length) out(`  … and ${report.heads.length - shown.length} more chains`);
  return 0;
}
