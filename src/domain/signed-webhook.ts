// Standard Webhooks signatures (https://www.standardwebhooks.com, "Verifying webhook
// authenticity"), both ways: `v1,` + base64 HMAC-SHA256, keyed with the base64-decoded part of a
// `whsec_…` secret, over `<webhook-id>.<webhook-timestamp>.<body>`. We sign our outgoing webhooks
// with it (operations/webhook-signature.ts) and verify a KYC provider's results with it
// (docs/reference/kyc-provider-contract.md). Pure: no clock, no I/O; the caller says what time it is.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** How far a message's timestamp may be from now, either way, by default: the Standard Webhooks libraries' five minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const keyOf = (secret: string) => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** The `webhook-signature` header's value for one message: `v1,<base64 HMAC-SHA256>`. */
export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export interface SignedMessage {
  /** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers as received (absent: undefined). */
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  /** The body exactly as received: the signature covers its bytes, not a re-encoding. */
  body: string;
}

export const signatureRefusals = ['missing-headers', 'malformed-timestamp', 'timestamp-too-old', 'timestamp-in-future', 'bad-signature'] as const;
export type SignatureRefusal = (typeof signatureRefusals)[number];

export type SignatureVerdict = { ok: true; id: string; timestampSeconds: number } | { ok: false; refusal: SignatureRefusal; detail: string };

/**
 * Whether `message` was signed with `secret` within `toleranceSeconds` of `nowSeconds`. The
 * header may carry several space-separated signatures (a secret being rotated): one match is
 * enough. Compared in constant time. The timestamp is checked first, so a captured message
 * replayed after the window is refused whatever its signature.
 */
export function verifySignedMessage(
  secret: string,
  message: SignedMessage,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignatureVerdict {
  const { id, timestamp, signature, body } = message;
  if (!id || !timestamp || !signature) {
    return { ok: false, refusal: 'missing-headers', detail: 'Send the webhook-id, webhook-timestamp and webhook-signature headers' };
  }
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    return { ok: false, refusal: 'malformed-timestamp', detail: 'webhook-timestamp must be whole seconds since 1970-01-01T00:00:00Z' };
  }
  const at = Number(timestamp);
  if (at < nowSeconds - toleranceSeconds) {
    return { ok: false, refusal: 'timestamp-too-old', detail: `webhook-timestamp is more than ${toleranceSeconds} s old: sign each delivery afresh` };
  }
  if (at > nowSeconds + toleranceSeconds) {
    return { ok: false, refusal: 'timestamp-in-future', detail: `webhook-timestamp is more than ${toleranceSeconds} s ahead of this service's clock` };
  }
  const expected = Buffer.from(signatureOf(secret, id, at, body).slice(3), 'base64');
  const matches = signature
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) return { ok: false, refusal: 'bad-signature', detail: 'webhook-signature does not match the message and the shared secret' };
  return { ok: true, id, timestampSeconds: at };
}
