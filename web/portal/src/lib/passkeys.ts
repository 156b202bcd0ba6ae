// Passkeys (the shared flow of web/kit/passkeys.ts) with the portal's calls: what the browser's
// WebAuthn refusals mean, in plain words.
import { createPasskey, PasskeysUnsupported, passkeyCancelled, passkeySignIn } from '../../../kit/passkeys.ts';
import { m } from '../messages.ts';
import { ApiError } from './http.ts';
import { describeError, rightAddress } from './errors.ts';
import { portalApi } from './api.ts';
import type { Session } from './types.ts';

/** Creates a passkey for the invitation and signs in with it. */
export const registerPasskey = (invitation: string): Promise<Session> =>
  createPasskey(
    () => portalApi.registrationOptions(invitation),
    (response) => portalApi.register(invitation, response),
  );

/** Signs in with a passkey the device already has (discoverable credentials: no name asked). */
export const signInWithPasskey = (): Promise<Session> => passkeySignIn(portalApi.signInOptions, portalApi.signIn);

/** A passkey failure in plain words: cancelled, refused by the service, or what the service said. */
export function describePasskeyError(error: unknown): string {
  if (error instanceof PasskeysUnsupported) return m.passkeyUnsupported;
  if (passkeyCancelled(error)) return m.passkeyCancelled;
  if (rightAddress(error)) return describeError(error);
  if (error instanceof ApiError && (error.status === 400 || error.status === 401 || error.status === 403)) return m.passkeyRefused;
  return describeError(error);
}
