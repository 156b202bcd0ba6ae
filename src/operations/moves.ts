// The single move as a write (POST /deals/deal/{dealId}/jump-to-step), through the write pipeline
// (pipeline.ts):
//
// - ?dryRun=true: the move in a transaction that is rolled back (bulk-moves.ts dryRunMove); 200
//   with the event it would record and the steps it passes over, or the refusal it would get.
// - otherwise: the deal's group commit (move-groups.ts), with the request's Idempotency-Key when it
//   has one, claimed and answered (the encoded 201 stored) in the group's transaction. A key a row
//   already holds (a replay, another request's key, one still running) goes the ordinary way:
//   `write` with moveToStep, which replays or refuses for that row.
import type { WorkflowEvent } from '../domain/event.ts';
import { dryRunMove, errorOf } from './bulk-moves.ts';
import type { Deps } from './deps.ts';
import type { MoveInput } from './apply-moves.ts';
import { moveToStep } from './journeys.ts';
import { MoveGroups } from './move-groups.ts';
import { type Answer, answered, write, type WriteRequest } from './pipeline.ts';

/** The group commit of this instance, one per database handle (the app's), made on first use. */
const groups = new WeakMap<Deps['db'], MoveGroups>();

function groupsOf(deps: Deps): MoveGroups {
  let found = groups.get(deps.db);
  if (!found) {
    found = new MoveGroups(deps);
    groups.set(deps.db, found);
  }
  return found;
}

/** The 200 of a dry run: the event the move would record and the steps it passes over. */
export interface MoveDryRun {
  dryRun: true;
  event: WorkflowEvent;
  intermediaryStepIds: string[];
}

export async function moveInvestor(deps: Deps, request: WriteRequest, dealId: string, input: MoveInput): Promise<Answer> {
  const { principal, key } = request;
  if (request.dryRun) {
    const result = await dryRunMove(deps, principal, dealId, input);
    if (!result.ok) throw errorOf(result.refusal);
    return answered(request, 200, { dryRun: true, event: result.event, intermediaryStepIds: result.intermediaryStepIds } satisfies MoveDryRun);
  }
  const keyed = key && {
    request: { scope: key.scope, key: key.key, fingerprint: key.fingerprint },
    ttlMs: key.ttlMs,
    respond: (event: WorkflowEvent) => ({ status: 201, body: request.encode(201, event) }),
  };
  const grouped = await groupsOf(deps).move(principal, dealId, input, keyed);
  if ('held' in grouped) return write(deps, request, 201, (tx) => moveToStep(tx, principal, dealId, input));
  return grouped.response ? { ...grouped.response, replayed: false } : answered(request, 201, grouped.result);
}
