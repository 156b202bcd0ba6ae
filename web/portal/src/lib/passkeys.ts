// Passkeys through @simplewebauthn/browser: what the browser's WebAuthn refusals mean, in plain words.
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { m } from '../messages.ts';
import { ApiError } from './http.ts';
import { describeError, rightAddress } from './errors.ts';
import { portalApi } from './api.ts';
import type { Session } from './types.ts';

/** Creates a passkey for the invitation and signs in with it. */
export async function registerPasskey(invitation: string): Promise<Session> {
  if (!browserSupportsWebAuthn()) throw new Error(m.passkeyUnsupported);
  const { options } = await portalApi.registrationOptions(invitation);
  const response = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
  return portalApi.register(invitation, response);
}

/** Signs in with a passkey the device already has (discoverable credentials: no name asked). */
export async function signInWithPasskey(): Promise<Session> {
  if (!browserSupportsWebAuthn()) throw new Error(m.passkeyUnsupported);
  const { options } = await portalApi.signInOptions();
  const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
  return portalApi.signIn(response);
}

/** A passkey failure in plain words: cancelled, refused by the service, or what the service said. */
export function describePasskeyError(error: unknown): string {
  if (error instanceof WebAuthnError || (error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError')))
    return m.passkeyCancelled;
  if (rightAddress(error)) return describeError(error);
  if (error instanceof ApiError && (error.status === 400 || error.status === 401 || error.status === 403)) return m.passkeyRefused;
  return describeError(error);
}
