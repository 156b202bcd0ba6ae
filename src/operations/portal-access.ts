// The investor portal's sign-in: investors are sign-in.ts's `investor` audience. Staff invite them
// (portal-invitations.ts); the session acts as the investor, with exactly an investor token's rights.
import type { PortalConfig } from '../config.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import * as store from '../store/sign-in.ts';
import { recordPortalChange } from './audit-entries.ts';
import type { Deps } from './deps.ts';
import { type Audience, changeType, endAccess, sessionKey, type SignInSession } from './sessions.ts';

/** A portal session ends at the latest this long after its sign-in, however often it is used. */
export const SESSION_MAX_HOURS = 12;

/** Investors, as sign-in.ts's audience: named from the directory, recorded in their portal chain. */
export function investorAudience(portal: PortalConfig): Audience {
  return {
    audience: 'investor',
    settings: { origin: portal.origin, rpId: portal.rpId, idleMinutes: portal.sessionMinutes, maxHours: SESSION_MAX_HOURS },
    describe: async (db, investorUserId) => {
      const [investor] = await store.findInvestorNames(db, [investorUserId]);
      return investor && { name: investor.name, email: investor.email };
    },
    record: recordInvestorChange,
  };
}

const recordInvestorChange: Audience['record'] = (db, by, change, investorUserId, data, at) =>
  recordPortalChange(db, by, changeType('investor', change) as `portal.${typeof change}`, investorUserId, data, at);

/** The principal a portal session acts as: the investor, with exactly an investor token's rights. */
export const sessionPrincipal = (session: SignInSession): Principal => ({
  userId: session.subjectId,
  role: 'investor',
  investorUserId: session.subjectId,
  tokenKey: sessionKey('investor', session.sessionId),
});

/**
 * Ends an investor's portal access in the caller's transaction (an erasure): unused invitations
 * revoked, passkeys replaced by none, sessions ended, each recorded in their portal chain.
 */
export async function endPortalAccess(db: Deps['db'], principal: Principal, investorUserId: string, now: Date): Promise<void> {
  await endAccess(
    db,
    { audience: 'investor', record: recordInvestorChange },
    { principal: actorOf(principal), tokenId: principal.tokenKey },
    investorUserId,
    'erased',
    now,
  );
}
