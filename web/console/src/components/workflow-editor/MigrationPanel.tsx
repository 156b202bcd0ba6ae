// The investors who started on an earlier version of the workflow: a saved change reaches them
// only when they are moved onto the current version (POST …/workflow/migrate). The panel shows the
// dry run (who would move, who stays and why) and moves them on request; each keeps the time they
// entered their step.
import { useEffect, useState } from 'react';
import { consoleApi, isHeld, type Ok } from '../../lib/api.ts';
import { plural } from '../../lib/format.ts';
import { useSubmission } from '../../../../kit/hooks.ts';
import { FormStatus } from '../ui.tsx';

type Migration = Ok<'migrateWorkflow'>;

/** `version` changes with every save, so the dry run is read again. */
export function MigrationPanel({ dealId, version }: { dealId: string; version: number }) {
  const [dry, setDry] = useState<Migration>();
  const [reads, setReads] = useState(0);
  const { busy, error, done, run, clear } = useSubmission();
  useEffect(() => {
    let stale = false;
    consoleApi.migrateWorkflow(dealId, true).then(
      (r) => !stale && setDry(isHeld(r) ? undefined : r),
      () => !stale && setDry(undefined),
    );
    return () => {
      stale = true;
    };
  }, [dealId, version, reads]);
  useEffect(() => clear(), [version, clear]);

  if (!dry || (dry.journeys === 0 && !done)) return null;
  const move = () =>
    run(async () => {
      const result = await consoleApi.migrateWorkflow(dealId, false);
      setReads((n) => n + 1);
      if (isHeld(result)) return 'The migration is held for a second person: no one moves until another admin approves it in the Inbox.';
      return `${plural(result.migrated, 'investor')} moved onto version ${result.toVersion}; each keeps the time they entered their step.`;
    });
  return (
    <section className="changes-panel" aria-labelledby="migration-title" data-testid="migration-panel">
      <h3 id="migration-title">Investors on an earlier version</h3>
      {dry.journeys > 0 && (
        <>
          <p>
            {plural(dry.journeys, 'investor')} started on an earlier version of this workflow and still follow{dry.journeys === 1 ? 's' : ''} it: the saved
            changes (which links investors may take themselves, fields, requirements) reach them once they are moved onto version {dry.toVersion}.
          </p>
          <p>
            Dry run: {plural(dry.migrated, 'investor')} can move, each staying at the same step
            {dry.notFitting.length > 0 ? `; ${plural(dry.notFitting.length, 'investor')} would stay on their version:` : '.'}
          </p>
          {dry.notFitting.length > 0 && (
            <ul>
              {dry.notFitting.slice(0, 20).map((m) => (
                <li key={m.investorUserId}>{m.detail}</li>
              ))}
            </ul>
          )}
        </>
      )}
      <FormStatus error={error} done={done} />
      {dry.migrated > 0 && (
        <div className="row-actions">
          <button type="button" className="button button-primary" onClick={() => void move()} disabled={busy}>
            {busy ? 'Moving…' : `Move ${plural(dry.migrated, 'investor')} onto version ${dry.toVersion}`}
          </button>
        </div>
      )}
    </section>
  );
}
