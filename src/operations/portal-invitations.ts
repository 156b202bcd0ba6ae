// Invitations to the investor portal: a single-use link that expires, one per investor, its e-mail
// enqueued in the same transaction (mail-outbox.ts) when SMTP is configured. Registering a passkey
// with it is sign-in.ts's.
import type { PortalConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import { erasedAmong } from '../store/erasure.ts';
import * as store from '../store/sign-in.ts';
import { recordPortalChange } from './audit-entries.ts';
import { type Deps, inTransaction } from './deps.ts';
import { newSecret } from './sessions.ts';
import { enqueueInvitationMail } from './mail-outbox.ts';
import { hashToken } from './tokens.ts';

const MINUTE = 60_000;

export interface CreatedInvitation {
  investorUserId: string;
  url: string;
  expiresAt: string;
  emailed: boolean;
}

/**
 * POST /investors/portal-invitations: one invitation per investor, all or none (an unknown id: 404
 * naming it). A new invitation revokes the investor's earlier unused ones. With SMTP_URL set, each
 * investor with an address is sent the link: the mail is enqueued in the same transaction.
 */
export async function createPortalInvitations(
  deps: Deps,
  portal: PortalConfig,
  principal: Principal,
  investorUserIds: readonly string[],
): Promise<CreatedInvitation[]> {
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + portal.invitationDays * 24 * 60 * MINUTE);
  const ids = [...new Set(investorUserIds)];
  const by = { principal: actorOf(principal), tokenId: principal.tokenKey };
  const created = await inTransaction(deps, async (tx) => {
    const { db } = tx;
    const found = new Map((await store.findInvestorNames(db, ids)).map((i) => [i.id, i]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length === 1) throw new AppError('not-found', `investor ${JSON.stringify(missing[0])} does not exist; no invitation was created`);
    if (missing.length > 1)
      throw new AppError('not-found', `investors ${missing.map((m) => JSON.stringify(m)).join(', ')} do not exist; no invitation was created`);
    // An erased investor's access ended with the erasure and is not given again.
    const erased = await erasedAmong(db, ids);
    if (erased.length > 0) {
      throw new AppError(
        'conflict',
        `${erased.length === 1 ? 'investor' : 'investors'} ${erased.map((e) => JSON.stringify(e)).join(', ')} ${erased.length === 1 ? 'was' : 'were'} erased; no invitation was created`,
      );
    }
    const revoked = await store.revokeOpenInvitations(db, 'investor', ids, now);
    const invitations = ids.map((investorUserId) => ({ id: deps.newId(), investorUserId, token: newSecret() }));
    await store.insertInvitations(
      db,
      invitations.map((i) => ({
        id: i.id,
        audience: 'investor' as const,
        subjectId: i.investorUserId,
        tokenHash: hashToken(i.token),
        createdBy: actorOf(principal),
        createdAt: now,
        expiresAt,
      })),
    );
    // Chains in one order, so two batches sharing investors take their heads' locks in the same order.
    for (const invitation of [...invitations].sort((a, b) => (a.investorUserId < b.investorUserId ? -1 : 1))) {
      for (const r of revoked.filter((r) => r.subjectId === invitation.investorUserId)) {
        await recordPortalChange(db, by, 'portal.invitation-revoked', r.subjectId, { invitationId: r.id, reason: 'replaced', replacedBy: invitation.id }, now);
      }
      await recordPortalChange(
        db,
        by,
        'portal.invitation-created',
        invitation.investorUserId,
        { invitationId: invitation.id, expiresAt: expiresAt.toISOString() },
        now,
      );
    }
    const url = (token: string) => `${portal.publicUrl}/portal/#/welcome/${token}`;
    const emailed = new Set<string>();
    for (const i of portal.smtp ? invitations : []) {
      if (await enqueueInvitationMail(tx, { invitationId: i.id, investorUserId: i.investorUserId, url: url(i.token), expiresAt }))
        emailed.add(i.investorUserId);
    }
    return invitations.map((i) => ({ ...i, url: url(i.token), emailed: emailed.has(i.investorUserId) }));
  });
  return created.map((i) => ({ investorUserId: i.investorUserId, url: i.url, expiresAt: expiresAt.toISOString(), emailed: i.emailed }));
}
