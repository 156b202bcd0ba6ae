// The mail outbox's background work in `serve` and `dealflow worker`: the dispatcher, and a check
// every minute whether staff digests are due. Without SMTP_URL nothing starts (mails are still
// enqueued, and sent once it is set, unless older than MAIL_MAX_AGE_HOURS by then).
import type { Config } from '../config.ts';
import { interruptOrphanedAttempts } from '../store/mails.ts';
import type { Db } from '../store/schema.ts';
import { newUuid, systemClock } from './deps.ts';
import { enqueueDueDigests } from './mail-digest.ts';
import { createMailDispatcher } from './mail-dispatcher.ts';
import { runEvery } from './periodic.ts';

const DIGEST_CHECK_MS = 60_000;

export interface MailLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Starts sending. `embedded`: the embedded database, where this is the only process, so the
 * attempts left without an outcome by the last one are interrupted now rather than when their
 * lease runs out.
 */
export async function startMail(config: Config, db: Db, embedded: boolean, log: MailLog): Promise<{ stop(): Promise<void> }> {
  const smtp = config.portal.smtp;
  if (!smtp) return { stop: async () => {} };
  if (embedded) {
    const interrupted = await interruptOrphanedAttempts(db, systemClock());
    if (interrupted > 0) log.warn({ interrupted }, 'mails whose sending was interrupted by the last stop are sent again');
  }
  const dispatcher = createMailDispatcher({ db, smtp, mail: config.mail, publicUrl: config.portal.publicUrl, clock: systemClock, log });
  dispatcher.start();
  const deps = { db, clock: systemClock, newId: newUuid };
  const digest = () =>
    enqueueDueDigests(deps, { hourUtc: config.mail.digestHourUtc }).then((added) => {
      if (added > 0) log.info({ added }, 'staff digests enqueued');
    });
  void digest().catch((err: unknown) => log.warn({ err }, 'staff digests could not be enqueued'));
  const digests = runEvery(DIGEST_CHECK_MS, digest, (err) => log.warn({ err }, 'staff digests could not be enqueued'));
  return {
    async stop() {
      await digests.stop();
      await dispatcher.stop();
    },
  };
}
