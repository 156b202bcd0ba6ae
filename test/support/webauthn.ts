// A software WebAuthn authenticator for tests: what a browser and a platform authenticator answer
// to creation and request options (W3C WebAuthn Level 3, sections 6.1 and 6.5), with a P-256 key
// from node:crypto, 'none' attestation and the CBOR of the attestation object. Each registration
// makes a new discoverable credential; an assertion signs authenticator data ‖ SHA-256(client data).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type CBORType, encodeCBOR } from '@levischuck/tiny-cbor';

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const uint32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  /** The user handle the options named (base64url), answered on sign-in. */
  userHandle: string;
  counter: number;
}

export class SoftAuthenticator {
  readonly origin: string;
  readonly credentials: SoftCredential[] = [];

  constructor(origin: string) {
    this.origin = origin;
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** Answers creation options (startRegistration in a browser): a new credential for the options' user. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, tweak: { origin?: string; credentialId?: string } = {}) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // A given id stands for an authenticator that answers with a credential id already registered.
    const credentialId = tweak.credentialId === undefined ? randomBytes(32) : Buffer.from(tweak.credentialId, 'base64url');
    const coseKey = new Map<number, CBORType>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]);
    const credentialIdLength = Buffer.alloc(2);
    credentialIdLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([UP | UV | AT]),
      uint32(0),
      Buffer.alloc(16),
      credentialIdLength,
      credentialId,
      Buffer.from(encodeCBOR(coseKey)),
    ]);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const credential: SoftCredential = { id: b64url(credentialId), privateKey, userHandle: options.user.id, counter: 0 };
    this.credentials.push(credential);
    return {
      credential,
      response: {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, tweak.origin)),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      },
    };
  }

  /**
   * Answers request options (startAuthentication) with a credential (the newest by default); its
   * counter goes up by one unless `counter` sets what it reports.
   */
  authenticate(options: { challenge: string; rpId?: string }, use: { credential?: SoftCredential; counter?: number; origin?: string } = {}) {
    const credential = use.credential ?? this.credentials.at(-1);
    if (!credential) throw new Error('register a credential first');
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    credential.counter = use.counter ?? credential.counter + 1;
    const authData = Buffer.concat([sha256(rpId), Buffer.from([UP | UV]), uint32(credential.counter)]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, use.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
