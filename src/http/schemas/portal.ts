// The portal's sign-in shapes. WebAuthn's JSON forms (W3C WebAuthn Level 3, section 5.1.8 and
// 5.4) are named by their members the service relies on and left open for the rest: browsers and
// @simplewebauthn/browser add members as the standard grows.
import { Type } from 'typebox';
import { ExternalId, Timestamp } from './common.ts';

const open = { additionalProperties: true };
const Base64Url = Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 65536 });

export const PortalSession = Type.Object(
  {
    investorUserId: Type.String(),
    name: Type.String(),
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every write through /portal/api' }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the session ends unless used again (each use renews it, up to 12 hours after sign-in)' }),
  },
  { title: 'PortalSession', description: 'A signed-in investor: the session cookie (dealflow_portal) is set beside it' },
);

export const PublicKeyCredentialCreationOptionsJSON = Type.Object(
  {
    rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }, open),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }, open),
    challenge: Type.String(),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() }, open)),
    timeout: Type.Optional(Type.Integer()),
  },
  {
    ...open,
    title: 'PublicKeyCredentialCreationOptionsJSON',
    description: 'WebAuthn creation options: pass them to navigator.credentials.create (startRegistration of @simplewebauthn/browser)',
  },
);

export const PublicKeyCredentialRequestOptionsJSON = Type.Object(
  {
    challenge: Type.String(),
    timeout: Type.Optional(Type.Integer()),
    rpId: Type.Optional(Type.String()),
  },
  {
    ...open,
    title: 'PublicKeyCredentialRequestOptionsJSON',
    description: 'WebAuthn request options for a discoverable passkey: pass them to navigator.credentials.get (startAuthentication)',
  },
);

export const RegistrationResponseJSON = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object(
      { clientDataJSON: Base64Url, attestationObject: Base64Url, transports: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })) },
      open,
    ),
    clientExtensionResults: Type.Object({}, open),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { ...open, title: 'RegistrationResponseJSON', description: 'What navigator.credentials.create answered (startRegistration of @simplewebauthn/browser)' },
);

export const AuthenticationResponseJSON = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object({ clientDataJSON: Base64Url, authenticatorData: Base64Url, signature: Base64Url, userHandle: Type.Optional(Base64Url) }, open),
    clientExtensionResults: Type.Object({}, open),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { ...open, title: 'AuthenticationResponseJSON', description: 'What navigator.credentials.get answered (startAuthentication of @simplewebauthn/browser)' },
);

const Invitation = Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation link (after #/welcome/)' });

export const RegistrationOptionsBody = Type.Object({ invitation: Invitation }, { additionalProperties: false });
export const RegistrationOptions = Type.Object(
  {
    investor: Type.Object({ investorUserId: Type.String(), name: Type.String() }),
    options: PublicKeyCredentialCreationOptionsJSON,
  },
  { title: 'PasskeyRegistrationOptions' },
);
export const RegisterPasskeyBody = Type.Object({ invitation: Invitation, response: RegistrationResponseJSON }, { additionalProperties: false });
export const SignInOptionsBody = Type.Object({}, { additionalProperties: false });
export const SignInOptions = Type.Object({ options: PublicKeyCredentialRequestOptionsJSON }, { title: 'SignInOptions' });
export const SignInBody = Type.Object({ response: AuthenticationResponseJSON }, { additionalProperties: false });
export const SignOutBody = Type.Object(
  { everywhere: Type.Optional(Type.Boolean({ description: 'true: every session of the investor ends, on every device' })) },
  { additionalProperties: false },
);

export const InvitationsBody = Type.Object(
  { investorUserIds: Type.Array(ExternalId, { minItems: 1, maxItems: 500, uniqueItems: true }) },
  { additionalProperties: false },
);
export const PortalInvitations = Type.Object(
  {
    invitations: Type.Array(
      Type.Object(
        {
          investorUserId: Type.String(),
          url: Type.String({ description: 'The link to send the investor: PUBLIC_URL/portal/#/welcome/<token>; works once' }),
          expiresAt: Timestamp,
          emailed: Type.Boolean({
            description: 'Whether an e-mail with the link was enqueued, to be sent by the mail dispatcher (SMTP_URL set and the investor has an address)',
          }),
        },
        { title: 'PortalInvitation' },
      ),
    ),
  },
  { title: 'PortalInvitations' },
);
