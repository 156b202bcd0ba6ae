// POST /deals/deal/{dealId}/workflow/migrate (admin): moves the journeys still on older versions of
// the deal's workflow onto the current one, each to `stepMapping[its step]` or to the same step,
// as one event per journey (the move's own load and write, operations/apply-moves.ts) in one
// transaction. A journey whose captured data would not fit its new step stays on its version and
// is listed; a step the new version lacks with investors on it and no mapping refuses the whole run
// (409 naming the steps and counts). `dryRun`: the same answer, nothing written.
import { conflict, forbidden, invalid, notFound } from '../domain/errors.ts';
import { isStaff, type Principal } from '../domain/principal.ts';
import { decideMigration, type MigrationDecision } from '../domain/workflow-migration.ts';
import { findDeal } from '../store/deals.ts';
import { listJourneysToMigrate } from '../store/workflow-migration.ts';
import { findStep, findWorkflowVersion } from '../store/workflows.ts';
import { type Deps, inTransaction } from './deps.ts';
import { migrateJourney } from './migrate-journey.ts';
import { loadWorkflow } from './workflows.ts';

export interface MigrationInput {
  /** Old step id → step of the current version; added to (and overriding) the mapping the PUT named. */
  stepMapping?: Record<string, string> | undefined;
}

export type Misfit = Extract<MigrationDecision, { fits: false }> & { workflowVersion: number };

export interface MigrationResult {
  dryRun: boolean;
  toVersion: number;
  /** The mapping applied: the version's own, with the request's on top. */
  stepMapping: Record<string, string>;
  /** Journeys on older versions when the run started. */
  journeys: number;
  /** Journeys moved onto the current version (with dryRun: that would be). */
  migrated: number;
  /** Every journey that stays on its version, and why. */
  notFitting: Omit<Misfit, 'fits'>[];
}

const people = (n: number) => (n === 1 ? '1 investor' : `${n} investors`);

export async function migrateWorkflow(
  deps: Deps,
  principal: Principal,
  dealId: string,
  input: MigrationInput,
  options: { dryRun: boolean },
): Promise<MigrationResult> {
  if (!isStaff(principal)) throw forbidden('Only staff migrate workflows');
  return inTransaction(deps, async (tx) => {
    // FOR SHARE: no new version while this runs; moves go on (each journey is locked as it moves).
    const current = (await loadWorkflow(tx, dealId, { lock: 'share' }))?.workflow;
    if (!current) throw (await findDeal(tx.db, dealId)) ? notFound('workflow of deal', dealId) : notFound('deal', dealId);
    const stored = (await findWorkflowVersion(tx.db, dealId, current.version))?.stepMapping ?? {};
    const stepMapping = { ...stored, ...input.stepMapping };
    await checkMapping(tx, dealId, current.steps, input.stepMapping ?? {});

    const journeys = await listJourneysToMigrate(tx.db, dealId, current.version);
    const decisions = journeys.map((j) => ({
      journey: j,
      decision: decideMigration(
        { investorUserId: j.investorUserId, currentStepId: j.currentStepId, captured: new Map(Object.entries(j.captured)) },
        current,
        stepMapping,
      ),
    }));
    const removed = new Map<string, number>();
    for (const { decision } of decisions)
      if (!decision.fits && decision.reason === 'step-removed') removed.set(decision.fromStepId, (removed.get(decision.fromStepId) ?? 0) + 1);
    if (!options.dryRun && removed.size > 0) {
      const steps = [...removed].map(([stepId, investors]) => ({ stepId, investors }));
      throw conflict(
        `Investors stand on steps the current version removed, and the stepMapping does not name them: ${steps.map((s) => `${s.stepId} (${people(s.investors)})`).join(', ')}`,
        { steps },
      );
    }
    const notFitting = decisions
      .filter((d) => !d.decision.fits)
      .map(({ journey, decision }) => {
        const { fits: _fits, ...misfit } = decision as Misfit;
        return { ...misfit, workflowVersion: journey.workflowVersion };
      });
    let migrated = decisions.length - notFitting.length;
    if (!options.dryRun) {
      migrated = 0;
      for (const { journey, decision } of decisions) {
        if (!decision.fits) continue;
        // Decided again under the journey's lock: it may have moved since the list was read.
        const event = await migrateJourney(
          tx,
          principal,
          { dealId, investorUserId: journey.investorUserId },
          {
            workflow: current,
            decide: (locked) => {
              if (locked.workflowVersion === current.version) return undefined;
              const again = decideMigration(
                { investorUserId: journey.investorUserId, currentStepId: locked.currentStepId, captured: locked.captured },
                current,
                stepMapping,
              );
              return again.fits ? again.toStepId : undefined;
            },
          },
        );
        if (event) migrated += 1;
      }
    }
    return { dryRun: options.dryRun, toVersion: current.version, stepMapping, journeys: journeys.length, migrated, notFitting };
  });
}

/** The request's mapping: keys are steps of the deal (any version), values live steps of the current one. */
async function checkMapping(tx: Deps, dealId: string, steps: readonly { id: string }[], mapping: Record<string, string>): Promise<void> {
  const live = new Set(steps.map((s) => s.id));
  const errors = [];
  for (const [from, to] of Object.entries(mapping)) {
    if ((await findStep(tx.db, from))?.dealId !== dealId)
      errors.push({ in: 'body' as const, field: `stepMapping.${from}`, detail: 'is not a step of this deal' });
    if (!live.has(to)) errors.push({ in: 'body' as const, field: `stepMapping.${from}`, detail: `"${to}" is not a step of the current version` });
  }
  if (errors.length > 0) throw invalid(errors, `The stepMapping is not valid: ${errors.map((e) => `${e.field} ${e.detail}`).join('; ')}`);
}
