// Who is signed in (their id, name, role, and how: a pasted key or a passkey), shared with every
// page through a React context, and what their role lets the page offer. The page only hides or
// disables what the role cannot do; the service refuses it anyway (403 naming the role needed).
import { createContext, useContext } from 'react';
import { roleIncludes } from './roles.ts';
import type { StaffRole } from './types.ts';

export interface Who {
  userId: string;
  role: string;
  /** The person's name (a passkey's session says it; a key's is looked up). */
  name?: string;
  via: 'key' | 'passkey';
}

export const WhoContext = createContext<Who | undefined>(undefined);

/** The signed-in person (undefined outside the signed-in shell). */
export const useWho = () => useContext(WhoContext);

/** Whether the signed-in person's role includes `needed` (outside the shell: yes, the service decides). */
export function useMay(needed: StaffRole): boolean {
  const who = useWho();
  return !who || roleIncludes(who.role, needed);
}

/**
 * The props of a control the role may not use: disabled, with a title naming the role it needs;
 * nothing when it may.
 */
export function useRoleGate(needed: StaffRole): { disabled?: true; title?: string } {
  const who = useWho();
  if (!who || roleIncludes(who.role, needed)) return {};
  return { disabled: true, title: `Needs the ${needed} role or above; yours is ${who.role}` };
}
