// Staff people: invited by an admin (a person with a name, an e-mail and a role), signed in to the
// console with a passkey (sign-in.ts's `staff` audience: the same invitations, passkeys and sessions
// as investors in the portal), given another role, deactivated. Deactivation ends everything at
// once: their sessions, passkeys, open invitations and API keys. An admin changes neither their own
// role nor their own standing, so an installation always keeps the admin who could undo it.
import type { Config } from '../config.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { actorOf, isStaffRole, type Principal, type StaffRole } from '../domain/principal.ts';
import * as signInStore from '../store/sign-in.ts';
import type { Db } from '../store/schema.ts';
import * as store from '../store/staff.ts';
import { revokePersonTokens } from '../store/tokens.ts';
import { recordStaffChange, recordTokenChange } from './audit-entries.ts';
import { invalidateLocally, publishInvalidation } from './caches.ts';
import { type Deps, inTransaction } from './deps.ts';
import { type Audience, changeType, endAccess, newSecret, sessionKey, type SignInSession } from './sessions.ts';
import { hashToken } from './tokens.ts';

const DAY = 86_400_000;

/** Staff, as sign-in.ts's audience: active people only, recorded in their staff chain. */
export function staffAudience(config: Pick<Config, 'portal' | 'staff'>): Audience {
  return {
    audience: 'staff',
    settings: {
      origin: config.portal.origin,
      rpId: config.portal.rpId,
      idleMinutes: config.staff.sessionMinutes,
      maxHours: config.staff.sessionMaxHours,
    },
    describe: async (db, personId) => {
      const person = await store.findPerson(db, personId);
      return person && person.deactivated_at === null ? { name: person.name, email: person.email } : undefined;
    },
    record: recordPersonChange,
  };
}

const recordPersonChange: Audience['record'] = (db, by, change, personId, data, at) =>
  recordStaffChange(db, by, changeType('staff', change) as `staff.${typeof change}`, personId, data, at);

/** The principal a console session acts as: the person, with their role as it is now. */
export const staffSessionPrincipal = (session: SignInSession): Principal => ({
  userId: session.subjectId,
  role: session.role as StaffRole,
  tokenKey: sessionKey('staff', session.sessionId),
  name: session.name,
});

const by = (principal: Principal) => ({ principal: actorOf(principal), tokenId: principal.tokenKey });

type By = { principal: string; tokenId: string | null };

/** Adds a person, with its audit entry, in the caller's transaction (an invitation, or a single sign-on whose claim gives a role); the row. */
export async function addPerson(deps: Pick<Deps, 'newId'>, db: Db, by: By, person: { name: string; email: string; role: StaffRole }, now: Date, note = {}) {
  const id = deps.newId();
  await store.insertPerson(db, { id, ...person, createdBy: by.principal, createdAt: now });
  await recordStaffChange(db, by, 'staff.person-added', id, { role: person.role, ...note }, now);
  return (await store.findPerson(db, id))!;
}

/** Gives a person another role, with its audit entry, in the caller's transaction. */
export async function setPersonRole(db: Db, by: By, person: { id: string; role: string }, role: StaffRole, now: Date, note = {}) {
  await store.setRole(db, person.id, role);
  await recordStaffChange(db, by, 'staff.role-changed', person.id, { from: person.role, to: role, ...note }, now);
}

export interface StaffInvitation {
  personId: string;
  email: string;
  role: StaffRole;
  url: string;
  expiresAt: string;
}

/**
 * POST /staff/invitations, `dealflow staff invite`: adds the person when their e-mail is new, and
 * gives them a single-use link to register a passkey (earlier unused links of theirs are revoked).
 * An active person keeps their role (change it with PUT /staff/{personId}); a deactivated one is
 * not invited again.
 */
export async function invitePerson(
  deps: Deps,
  config: Pick<Config, 'portal' | 'staff'>,
  principal: Principal,
  input: { email: string; name: string; role: StaffRole },
): Promise<StaffInvitation> {
  const now = deps.clock();
  const email = input.email.trim();
  const name = input.name.trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254) throw new AppError('validation', `"${input.email}" is not an e-mail address`);
  if (name === '' || name.length > 200) throw new AppError('validation', 'the name must be 1 to 200 characters');
  if (!isStaffRole(input.role)) throw new AppError('validation', `role must be viewer, operator, approver or admin; got "${input.role}"`);
  const expiresAt = new Date(now.getTime() + config.staff.invitationDays * DAY);
  const token = newSecret();
  const personId = await inTransaction(deps, async ({ db }) => {
    let person = await store.findPersonByEmail(db, email, true);
    if (person?.deactivated_at) throw new AppError('conflict', `${email} was deactivated; a deactivated person is not invited again`);
    if (person && person.role !== input.role)
      throw new AppError('conflict', `${email} is already staff with the ${person.role} role; change the role with PUT /staff/${person.id}`);
    person ??= await addPerson(deps, db, by(principal), { name, email, role: input.role }, now);
    const id = person!.id;
    for (const r of await signInStore.revokeOpenInvitations(db, 'staff', [id], now)) {
      await recordStaffChange(db, by(principal), 'staff.invitation-revoked', id, { invitationId: r.id, reason: 'replaced' }, now);
    }
    const invitationId = deps.newId();
    await signInStore.insertInvitations(db, [
      { id: invitationId, audience: 'staff', subjectId: id, tokenHash: hashToken(token), createdBy: actorOf(principal), createdAt: now, expiresAt },
    ]);
    await recordStaffChange(db, by(principal), 'staff.invitation-created', id, { invitationId, expiresAt: expiresAt.toISOString() }, now);
    return id;
  });
  return { personId, email, role: input.role, url: `${config.portal.publicUrl}/console/#/join/${token}`, expiresAt: expiresAt.toISOString() };
}

export interface StaffPerson extends Omit<store.StaffPersonRow, 'role'> {
  role: StaffRole;
}

/** GET /staff: every person, active first. */
export async function listPeople(deps: Deps): Promise<StaffPerson[]> {
  return (await store.listPeople(deps.db, deps.clock())).map((p) => ({ ...p, role: p.role as StaffRole }));
}

async function lockOther(deps: Deps, principal: Principal, personId: string, doing: string) {
  const person = await store.findPerson(deps.db, personId, true);
  if (!person) throw notFound('staff person', personId);
  if (person.id === principal.userId) throw new AppError('conflict', `You cannot ${doing} yourself: another admin must`);
  if (person.deactivated_at) throw new AppError('conflict', `${person.email} is deactivated`);
  return person;
}

/** PUT /staff/{personId}: a new role, applied to the person's open sessions from their next request. */
export async function changeRole(deps: Deps, principal: Principal, personId: string, role: StaffRole) {
  const now = deps.clock();
  return inTransaction(deps, async (tx) => {
    const person = await lockOther(tx, principal, personId, 'change the role of');
    if (person.role !== role) await setPersonRole(tx.db, by(principal), person, role, now);
    return person.id;
  });
}

/**
 * POST /staff/{personId}/deactivate: the person can no longer sign in, and everything that let
 * them in ends in this transaction: sessions, passkeys, open invitations, API keys (every instance
 * refuses the keys from the commit on).
 */
export async function deactivatePerson(deps: Deps, principal: Principal, personId: string): Promise<{ revokedKeys: string[] }> {
  const now = deps.clock();
  const revokedKeys = await inTransaction(deps, async (tx) => {
    const person = await lockOther(tx, principal, personId, 'deactivate');
    const { db } = tx;
    await store.deactivate(db, person.id, actorOf(principal), now);
    await recordStaffChange(db, by(principal), 'staff.deactivated', person.id, {}, now);
    await endAccess(db, { audience: 'staff', record: recordPersonChange }, by(principal), person.id, 'deactivated', now);
    const keys = await revokePersonTokens(db, person.id, now);
    for (const id of keys) {
      await recordTokenChange(db, principal, 'token.revoked', { id, personId: person.id, reason: 'deactivated' }, now);
      await publishInvalidation(db, { kind: 'token', tokenId: id });
    }
    return keys;
  });
  for (const tokenId of revokedKeys) invalidateLocally({ kind: 'token', tokenId });
  return { revokedKeys };
}

/** GET /staff/{personId}/sessions: an admin's view of anyone's, or a person's own. */
export async function listPersonSessions(deps: Deps, principal: Principal, personId: string) {
  const person = await store.findPerson(deps.db, personId);
  if (!person) throw notFound('staff person', personId);
  if (principal.role !== 'admin' && principal.userId !== person.id) throw new AppError('forbidden', "Only an admin sees another person's sessions");
  return { sessions: await signInStore.listLiveSessions(deps.db, 'staff', person.id, deps.clock()) };
}
