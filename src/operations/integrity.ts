// The checks of `dealflow verify` besides the audit chains (cli/verify.ts), the post-restore check
// above all: the schema is the one this version expects, the kept counts agree with the rows, and
// the feed can continue where it stopped (store/integrity.ts says why that can break).
import { type IntegrityFacts, readIntegrityFacts } from '../store/integrity.ts';
import { type SchemaStatus, schemaStatus } from '../store/migrate.ts';
import type { Deps } from './deps.ts';

export interface IntegrityReport {
  schema: SchemaStatus;
  facts: IntegrityFacts;
  /** Each check that failed, in words; empty when all hold. */
  problems: string[];
}

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
    problems.push(`the outbox sequence would hand out position ${facts.outboxNextPosition} again (entries go up to ${facts.outboxMaxPosition}): new feed entries would collide with ones consumers have read`);
  }
  if (!facts.outboxXidsBehindNext) {
    problems.push("outbox entries carry transaction ids ahead of the database's next one (a logical dump restored into a new cluster?): new feed entries would sort before ones consumers have read");
  }
  if (facts.duplicatePositions > 0) problems.push(`${facts.duplicatePositions} outbox positions are used more than once`);
  return { schema, facts, problems };
}
