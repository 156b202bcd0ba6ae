// The two doors people sign in by, each with a passkey and a session cookie: investors at
// ${BASE_PATH}/portal/ and staff at ${BASE_PATH}/console/. Behind each, under `<door>/api`, the
// same sign-in routes (sign-in-routes.ts) and the whole API again (cookie-api.ts), as the person
// the session stands for. A door says who its audience is, its cookie, and its answers' shapes.
import type { TSchema } from 'typebox';
import type { Principal } from '../domain/principal.ts';
import { investorAudience, sessionPrincipal } from '../operations/portal-access.ts';
import type { Audience, SignInSession } from '../operations/sessions.ts';
import { staffAudience, staffSessionPrincipal } from '../operations/staff.ts';
import type { AppContext } from './context.ts';
import { PortalSession, RegistrationOptions } from './schemas/portal.ts';
import { StaffRegistrationOptions, StaffSession } from './schemas/staff.ts';

export interface Door {
  /** The path under the base path (the app's files; its API is `<name>/api`) and the cookie's path. */
  name: 'portal' | 'console';
  cookie: string;
  /** The OpenAPI tag of its sign-in routes. */
  tag: string;
  audience: (ctx: AppContext) => Audience;
  principal: (session: SignInSession) => Principal;
  /** The session as answered, and its schema (the session's id stays on the server). */
  sessionSchema: TSchema;
  present: (session: SignInSession) => Record<string, unknown>;
  registrationSchema: TSchema;
  presentRegistration: (result: { subject: { id: string; name: string }; options: unknown }) => Record<string, unknown>;
}

export const portalDoor: Door = {
  name: 'portal',
  cookie: 'dealflow_portal',
  tag: 'portal',
  audience: (ctx) => investorAudience(ctx.config.portal),
  principal: sessionPrincipal,
  sessionSchema: PortalSession,
  present: (s) => ({ investorUserId: s.subjectId, name: s.name, csrfToken: s.csrfToken, expiresAt: s.expiresAt }),
  registrationSchema: RegistrationOptions,
  presentRegistration: ({ subject, options }) => ({ investor: { investorUserId: subject.id, name: subject.name }, options }),
};

export const consoleDoor: Door = {
  name: 'console',
  cookie: 'dealflow_console',
  tag: 'staff',
  audience: (ctx) => staffAudience(ctx.config),
  principal: staffSessionPrincipal,
  sessionSchema: StaffSession,
  present: (s) => ({ personId: s.subjectId, name: s.name, role: s.role, csrfToken: s.csrfToken, expiresAt: s.expiresAt }),
  registrationSchema: StaffRegistrationOptions,
  presentRegistration: ({ subject, options }) => ({ person: { personId: subject.id, name: subject.name }, options }),
};
