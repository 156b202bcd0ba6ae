// The checks of `dealflow verify` besides the audit chains (cli/verify.ts), the post-restore check
// above all: the schema is the one this version expects, the kept counts agree with the rows, and
// the feed can continue where it stopped (store/integrity.ts says why that can break).
import { adoptSystemIdentifier, type IntegrityFacts, readIntegrityFacts } from '../store/integrity.ts';
import { type SchemaStatus, schemaStatus } from '../store/migrate.ts';
import type { Deps } from './deps.ts';

export interface IntegrityReport {
  schema: SchemaStatus;
  facts: IntegrityFacts;
  /** Each check that failed, in words; empty when all hold. */
  problems: string[];
  /** What is worth knowing and is not a failure (a copy of the data, said as such). */
  notes: string[];
}

/** Records this server's cluster as the database's own (a logical copy that is to be the database from now on). */
export const adoptCopy = (deps: Pick<Deps, 'db'>) => adoptSystemIdentifier(deps.db);

export async function checkIntegrity(deps: Pick<Deps, 'db'>): Promise<IntegrityReport> {
  const [schema, facts] = [await schemaStatus(deps.db), await readIntegrityFacts(deps.db)];
  const problems: string[] = [];
  if (schema.applied !== schema.known) {
    problems.push(`the schema has ${schema.applied} of this version's ${schema.known} migrations applied (latest ${schema.latest ?? 'none'})`);
  }
  if (facts.journeyEventCount !== facts.counts.events) {
    problems.push(`the journeys count ${facts.journeyEventCount} events, the event table holds ${facts.counts.events}`);
  }
  if (facts.outboxNextPosition <= facts.outboxMaxPosition) {
    problems.push(
      `the outbox sequence would hand out position ${facts.outboxNextPosition} again (entries go up to ${facts.outboxMaxPosition}): new feed entries would collide with ones consumers have read`,
    );
  }
  if (!facts.outboxXidsBehindNext) {
    problems.push(
      "outbox entries carry transaction ids ahead of the database's next one (a logical dump restored into a new cluster?): new feed entries would sort before ones consumers have read",
    );
  }
  const identity = facts.identity;
  if (identity === undefined) problems.push('the database records no identity (database_identity is empty): it was not made by the migrations');
  else if (identity.recordedSystem !== identity.system) {
    problems.push(
      `this database is a copy: its data was recorded on the cluster with system identifier ${identity.recordedSystem}, and this server's is ${identity.system} (a dump loaded into another cluster); if it is to be the database from now on, run "dealflow verify --adopt-copy" once`,
    );
  }
  if (facts.duplicatePositions > 0) problems.push(`${facts.duplicatePositions} outbox positions are used more than once`);
  // A physical copy (a base backup, a point-in-time restore, a clone, a promoted standby) keeps the
  // system identifier and the transaction counter, so only where the checkpoints were sealed tells.
  const notes: string[] = [];
  const where = (s: { server: string; system: string; timeline: number }) => `${s.server} (system ${s.system}, timeline ${s.timeline})`;
  const copy =
    'a restored or cloned copy, a promoted standby, or a server that moved; if the database it came from still takes writes, the two diverge under one instance id';
  for (const { from, to } of facts.moves) {
    notes.push(`a copy: checkpoint ${from.number} was sealed on ${where(from)}, checkpoint ${to.number} on ${where(to)}: ${copy}`);
  }
  const seal = facts.lastSeal;
  if (
    identity !== undefined &&
    seal !== undefined &&
    (seal.system !== identity.system || seal.timeline !== identity.timeline || seal.server !== identity.server)
  ) {
    notes.push(`a copy: checkpoint ${seal.number} was sealed on ${where(seal)}, this is ${where(identity)}: ${copy}`);
  }
  return { schema, facts, problems, notes };
}
