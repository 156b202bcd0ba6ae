// Verifying a webhook delivery as the service signs it, by the Standard Webhooks scheme
// (https://www.standardwebhooks.com): `Webhook-Signature` holds one or more space-separated
// `v1,<base64 HMAC-SHA256>` of `<Webhook-Id>.<Webhook-Timestamp>.<raw body>`, keyed with the
// base64-decoded part of the `whsec_...` secret. Web Crypto only, so it runs on Node 20+, in
// browsers, workers and edge runtimes alike.
import type { components } from './openapi.js';

/**
 * The JSON body of a webhook delivery: a union by `type`, so comparing `event.type` narrows
 * `event.data` to that event's members. (The pull feeds answer the same entries as
 * `components['schemas']['WebhookEvent']`, with `data` open.)
 */
export type WebhookEvent = components['schemas']['WebhookDelivery'];
/** The domain event types: a closed list. */
export type WebhookEventType = components['schemas']['WebhookEventType'];

/** Headers as fetch (`Headers`), Node's `IncomingHttpHeaders` or a plain object of them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (default 300): an older delivery is a replay. */
  toleranceSeconds?: number;
  /** The current time (tests). */
  now?: Date;
}

/** A delivery that is not from the service: unsigned, forged, altered, or too old. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/**
 * Checks a delivery's signature and age and returns its parsed body; throws a
 * WebhookVerificationError otherwise. Pass the body exactly as received (before any JSON parsing).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing Webhook-Id, Webhook-Timestamp or Webhook-Signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('Webhook-Timestamp is not Unix seconds');
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('Webhook-Timestamp is too far from now');

  const keyBytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('The secret is not a whsec_ secret (base64)');
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${text}`);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const mac = base64Bytes(signature);
    // crypto.subtle.verify compares in constant time.
    if (mac && (await crypto.subtle.verify('HMAC', key, mac, signed))) return JSON.parse(text) as WebhookEvent;
  }
  throw new WebhookVerificationError('No Webhook-Signature matches the body');
}
