// Staff people: the console's passkey sign-in (its door, /console/api) and the People page's calls.
import { createPasskey, PasskeysUnsupported, passkeyCancelled, passkeySignIn } from '../../../kit/passkeys.ts';
import { rightAddress } from '../../../kit/errors.ts';
import { describeError } from './errors.ts';
import { ApiError, call, doorBase, doorCall } from './http.ts';
import type * as T from './types.ts';

export { ROLES, roleIncludes } from './roles.ts';

const enc = encodeURIComponent;

export const staffApi = {
  registrationOptions: (invitation: string) => doorCall<T.StaffRegistrationOptions>('POST', '/passkeys/registration-options', { invitation }),
  register: (invitation: string, response: unknown) => doorCall<T.StaffSession>('POST', '/passkeys', { invitation, response }),
  signInOptions: () => doorCall<T.StaffSignInOptions>('POST', '/sessions/options', {}),
  signIn: (response: unknown) => doorCall<T.StaffSession>('POST', '/sessions', { response }),
  /** The session of this browser's cookie, if any (a 401 here is the expected "no one"). */
  session: () => doorCall<T.StaffSession>('GET', '/session', undefined, { quiet401: true }),
  signOut: (everywhere: boolean) => doorCall<void>('POST', '/sign-out', { everywhere }),
  /** Whether single sign-on (OpenID Connect) is offered, and what to call it. */
  singleSignOn: () => doorCall<{ enabled: boolean; name: string | null }>('GET', '/oidc'),
  people: () => call<{ people: T.StaffPerson[] }>('GET', '/staff'),
  invite: (body: { email: string; name: string; role: T.StaffRole }) => call<T.StaffInvitation>('POST', '/staff/invitations', body),
  setRole: (personId: string, role: T.StaffRole) => call<{ personId: string }>('PUT', `/staff/${enc(personId)}`, { role }),
  deactivate: (personId: string) => call<{ revokedKeys: string[] }>('POST', `/staff/${enc(personId)}/deactivate`),
};

/** Creates a passkey for the invitation and signs in with it. */
export const registerPasskey = (invitation: string) =>
  createPasskey(
    () => staffApi.registrationOptions(invitation),
    (response) => staffApi.register(invitation, response),
  );

/** Where the browser goes to sign in with the identity provider (it comes back signed in, to the console). */
export const singleSignOnStart = `${doorBase}/oidc/start`;

/** Signs in with a passkey this device has for the console. */
export const signInWithPasskey = () => passkeySignIn(staffApi.signInOptions, staffApi.signIn);

/** A passkey failure in plain words. */
export function describePasskeyError(error: unknown): string {
  if (error instanceof PasskeysUnsupported) return 'This browser cannot use passkeys. Use a current browser, or sign in with a key below.';
  if (passkeyCancelled(error)) return 'The passkey prompt was closed before it finished. Try again.';
  const address = rightAddress(error);
  if (address) return `Passkeys work only at the console's own address: open ${address} and sign in there.`;
  if (error instanceof ApiError && (error.status === 400 || error.status === 401))
    return 'That passkey was not accepted: it may belong to a person who was deactivated, or to another site. Ask an admin for a new invitation.';
  return describeError(error);
}
