// Standard Webhooks signatures (https://www.standardwebhooks.com, "Verifying webhook
// authenticity") on our outgoing webhooks: the rule itself is domain/signed-webhook.ts, which
// also verifies what a KYC provider sends us. Receivers can verify with any Standard Webhooks library.
import { randomBytes } from 'node:crypto';
import { SECRET_PREFIX, signatureOf } from '../domain/signed-webhook.ts';

export { SECRET_PREFIX } from '../domain/signed-webhook.ts';

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return signatureOf(secret, id, timestampSeconds, body);
}

/** A fresh secret in the Standard Webhooks form (32 random bytes). */
export const newWebhookSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64');
