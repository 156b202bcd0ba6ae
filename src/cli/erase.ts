// `dealflow erase investor`: an investor's personal data replaced with a tombstone, under the same
// rules as POST /investors/{investorUserId}/erasure: refused within the retention period unless
// overridden with a reason, and held for a second admin when a deal of theirs says so (four-eyes).
import { AppError } from '../domain/errors.ts';
import { newUuid, systemClock } from '../operations/deps.ts';
import { type Command, out, withDatabase } from './command.ts';

export const eraseCommand: Command = {
  summary: "erase an investor's personal data from the directory (after retention)",
  help: `dealflow erase investor <investorUserId> [--override-retention --reason <text>]

Replaces the investor's names, e-mail, username and date of birth in the directory with a tombstone,
keeping ids, events, amounts and the audit chains (which still verify). Refused while the retention
period runs (ERASURE_RETENTION_YEARS, default 5, after the investor's last event) unless
--override-retention with --reason (the legal basis).`,
  options: { 'override-retention': { type: 'boolean' }, reason: { type: 'string' } },
  async run(config, values, positionals) {
    const [what, id] = positionals;
    if (what !== 'investor' || !id) throw new AppError('validation', 'usage: dealflow erase investor <investorUserId>');
    const [{ eraseFromCommandLine }, { SYSTEM_PRINCIPAL }, { openContentStore }] = await Promise.all([
      import('../operations/erasure.ts'),
      import('../operations/audit-entries.ts'),
      import('../store/content-store.ts'),
    ]);
    // The store of document contents, so that an object store's copies of what is erased go too.
    const contentStore = await openContentStore(config.documentStore);
    const outcome = await withDatabase(config, ({ db }) =>
      eraseFromCommandLine(
        { db, clock: systemClock, newId: newUuid, contentStore },
        SYSTEM_PRINCIPAL,
        id,
        { overrideRetention: values['override-retention'] === true, ...(typeof values.reason === 'string' ? { reason: values.reason } : {}) },
        config.erasureRetentionYears,
      ),
    ).finally(() => contentStore.close());
    if ('proposal' in outcome) {
      const { proposal } = outcome;
      out(
        `Held for a second admin (deal ${proposal.dealId} holds its investors' erasure): proposal ${proposal.id}. Nothing is erased until another admin approves it.`,
      );
      return;
    }
    const erased = outcome.erasure;
    out(
      `Erased the personal data of investor ${erased.investorUserId} at ${erased.erasedAt}${erased.overrideRetention ? ' (before the end of retention, by override)' : ''}.`,
    );
  },
};
