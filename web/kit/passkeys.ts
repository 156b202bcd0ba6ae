// Passkeys through @simplewebauthn/browser, as both apps use them: the service's options handed to
// the browser's WebAuthn and its answer handed back; each app brings its own calls and words.
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';

/** Thrown when this browser has no WebAuthn (the app says so in its words). */
export class PasskeysUnsupported extends Error {}

/** Creates a passkey with the options the service gave, and sends the browser's answer back. */
export async function createPasskey<S>(options: () => Promise<{ options: unknown }>, register: (response: unknown) => Promise<S>): Promise<S> {
  if (!browserSupportsWebAuthn()) throw new PasskeysUnsupported();
  const { options: optionsJSON } = await options();
  return register(await startRegistration({ optionsJSON: optionsJSON as PublicKeyCredentialCreationOptionsJSON }));
}

/** Signs in with a passkey the device already has (discoverable credentials: no name asked). */
export async function passkeySignIn<S>(options: () => Promise<{ options: unknown }>, signIn: (response: unknown) => Promise<S>): Promise<S> {
  if (!browserSupportsWebAuthn()) throw new PasskeysUnsupported();
  const { options: optionsJSON } = await options();
  return signIn(await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON }));
}

/** The person cancelled the browser's passkey prompt, or it timed out. */
export const passkeyCancelled = (error: unknown) =>
  error instanceof WebAuthnError || (error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError'));
