// Standard Webhooks signatures (https://www.standardwebhooks.com, "Verifying webhook
// authenticity"): `v1,` + base64 HMAC-SHA256, keyed with the base64-decoded part of the
// `whsec_…` secret, over `<webhook-id>.<webhook-timestamp>.<body>`. Receivers can verify with
// any Standard Webhooks library.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** A fresh secret in the Standard Webhooks form (32 random bytes). */
export const newWebhookSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64');
