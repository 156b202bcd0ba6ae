// The staff digest: once a day from MAIL_DIGEST_HOUR (UTC) on, each active person whose digest is
// on is sent what waits for staff (edit requests, queued payments, documents to countersign,
// approvals). Every instance checks; the mail's cause is the person and the day, so however many
// instances check, and however often one restarts, a person gets at most one digest a day.
// PUT /staff/{personId}/digest turns it off or on (the person, or an admin), audited.
import { digestDayDue } from '../domain/mail.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { digestCounts, digestEnabled, insertDigestSetting, peopleWithDigest } from '../store/mail-digest.ts';
import { findPerson } from '../store/staff.ts';
import { recordStaffChange } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { enqueueMail } from './mail-outbox.ts';

/** Enqueues today's digest for everyone who has none yet; how many were added. */
export async function enqueueDueDigests(deps: Deps, options: { hourUtc: number }): Promise<number> {
  const day = digestDayDue(deps.clock(), options.hourUtc);
  if (day === undefined) return 0;
  let added = 0;
  for (const person of await peopleWithDigest(deps.db)) {
    const sent = await inTransaction(deps, async (tx) => {
      const counts = await digestCounts(tx.db, person.id);
      return enqueueMail(tx, {
        kind: 'staff-digest',
        dedupeKey: `staff-digest:${person.id}:${day}`,
        dealId: null,
        to: { address: person.email, name: person.name, language: null },
        senderName: null,
        variables: {
          personId: person.id,
          day,
          editRequests: String(counts.editRequests),
          queuedPayments: String(counts.queuedPayments),
          documentsToCountersign: String(counts.documentsToCountersign),
          approvals: String(counts.approvals),
        },
      });
    });
    if (sent) added++;
  }
  return added;
}

/** PUT /staff/{personId}/digest: the person themselves, or an admin for anyone. */
export async function setDigest(deps: Deps, principal: Principal, personId: string, dailyDigest: boolean): Promise<{ personId: string; dailyDigest: boolean }> {
  return inTransaction(deps, async (tx) => {
    const person = await findPerson(tx.db, personId, true);
    if (!person) throw notFound('staff person', personId);
    if (principal.role !== 'admin' && principal.userId !== person.id) throw new AppError('forbidden', "Only an admin sets another person's digest");
    if ((await digestEnabled(tx.db, person.id)) !== dailyDigest) {
      const now = tx.clock();
      await insertDigestSetting(tx.db, { id: tx.newId(), personId: person.id, dailyDigest, setBy: actorOf(principal), setAt: now });
      await recordStaffChange(tx.db, { principal: actorOf(principal), tokenId: principal.tokenKey }, 'staff.digest-changed', person.id, { dailyDigest }, now);
    }
    return { personId: person.id, dailyDigest };
  });
}
