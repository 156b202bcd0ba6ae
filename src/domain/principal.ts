// Who is calling. Every authenticated request carries one.

export const roles = ['admin', 'investor'] as const;
export type Role = (typeof roles)[number];

export interface Principal {
  /** The user id recorded as `createdByUserId`: the JWT `sub`, or the API key's id. */
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

/** Investors may act only for themselves; staff for anyone. */
export function canActFor(principal: Principal, investorUserId: string): boolean {
  return principal.role === 'admin' || principal.investorUserId === investorUserId;
}
