// What each staff role may do: viewer < operator < approver < admin, each with everything the
// ones before it may (docs/reference/roles.md). The order is the service's (test/console checks it).
import type { StaffRole } from './types.ts';

export const ROLES: readonly StaffRole[] = ['viewer', 'operator', 'approver', 'admin'];

/** Whether `role` includes `needed` (an unknown role, an integration's, includes nothing). */
export const roleIncludes = (role: string, needed: StaffRole) => {
  const have = ROLES.indexOf(role as StaffRole);
  return have >= 0 && have >= ROLES.indexOf(needed);
};
