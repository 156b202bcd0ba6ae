// Who is calling. Every authenticated request carries one.

/** Staff roles, least power first: each can do everything the ones before it can. */
export const staffRoles = ['viewer', 'operator', 'approver', 'admin'] as const;
export type StaffRole = (typeof staffRoles)[number];
export const roles = [...staffRoles, 'investor'] as const;
export type Role = (typeof roles)[number];

export interface Principal {
  /** Who authenticated: the JWT `sub`, or the API key's id (for an investor key, the investor's id). Writes record `actorOf`, not this. */
  userId: string;
  role: Role;
  /** Set for investors: the only investor whose data this caller may see. */
  investorUserId?: string;
  /** Rate limits and idempotency keys are scoped to this: the API key's id, or a JWT's sub, role and investor together. */
  tokenKey: string;
  /** A JWT's `name` claim, when it has one (API keys' names are looked up by id instead). */
  name?: string;
}

export const isRole = (value: unknown): value is Role => (roles as readonly unknown[]).includes(value);
export const isStaffRole = (value: unknown): value is StaffRole => (staffRoles as readonly unknown[]).includes(value);

/** Staff: any role but investor (what the operations' "only staff …" checks mean). */
export const isStaff = (principal: Pick<Principal, 'role'>): boolean => isStaffRole(principal.role);

/** Whether a staff role includes the power of `needed` (viewer < operator < approver < admin). */
export const roleMeets = (role: Role, needed: StaffRole): boolean => isStaffRole(role) && staffRoles.indexOf(role) >= staffRoles.indexOf(needed);

/** Investors may act only for themselves; staff for anyone. */
export function canActFor(principal: Principal, investorUserId: string): boolean {
  return isStaff(principal) || principal.investorUserId === investorUserId;
}

/**
 * Who a write records as having made it (an event's `createdByUserId`, a revision's `setByUserId`,
 * an edit request's author, an audit entry's principal, …): an investor is their investor id, whatever
 * credential they came with (a JWT's `sub` may be an identity provider's user id); staff are their
 * JWT's `sub` or their API key's id. Every write derives it here, so a move of the investor's own
 * is never shown as made by someone else.
 */
export const actorOf = (principal: Principal): string =>
  principal.role === 'investor' && principal.investorUserId !== undefined ? principal.investorUserId : principal.userId;
