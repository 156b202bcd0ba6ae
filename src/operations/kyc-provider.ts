// The seam to an external KYC provider (docs/reference/kyc-provider-contract.md). `KycProvider` is
// what the operations need: start a check, get the provider's id for it (and, when the investor
// completes it on the provider's pages, the link to send them). The result comes back later, by
// the provider's signed webhook (kyc-checks.ts receiveKycResult). One implementation speaks the
// contract over HTTP, so any provider, or a thin bridge in front of one, plugs in by configuration
// (KYC_PROVIDER=http) without a change to the move path, which only reads the investor's KYC level.
import type { KycProviderConfig } from '../config.ts';
import { unprocessable } from '../domain/errors.ts';
import { signatureOf } from '../domain/signed-webhook.ts';

export interface KycCheckRequest {
  /** Our id for the check: the `reference` the provider's result names. */
  reference: string;
  level: number;
  investor: { id: string; fullName: string; email: string | null; dateOfBirth: string | null };
  dealId: string | null;
  /** Where the provider posts the signed result. */
  callbackUrl: string;
}

export interface StartedCheck {
  providerCheckId: string;
  redirectUrl?: string;
}

export interface KycProvider {
  /** What the checks' records call the provider. */
  readonly name: string;
  startCheck(request: KycCheckRequest): Promise<StartedCheck>;
}

const providers = new WeakMap<KycProviderConfig, KycProvider>();

/** The configured provider, or undefined when none is (KYC_PROVIDER=none). */
export function kycProviderOf(config: KycProviderConfig | undefined): KycProvider | undefined {
  if (!config) return undefined;
  let provider = providers.get(config);
  if (!provider) {
    provider = httpKycProvider(config);
    providers.set(config, provider);
  }
  return provider;
}

const refused = (detail: string) => unprocessable(`The KYC provider did not start the check: ${detail}; nothing was recorded, try again later`);

/**
 * `POST <url>/checks` with the request as JSON, signed as our webhooks are (webhook-id: the
 * reference, webhook-timestamp, webhook-signature), so the provider knows it comes from us; the
 * answer must be 200 or 201 with `{ "id": "…", "redirectUrl": "…" }` (redirectUrl optional).
 */
export function httpKycProvider(config: KycProviderConfig, clock: () => Date = () => new Date()): KycProvider {
  const endpoint = `${config.url.href.replace(/\/+$/, '')}/checks`;
  return {
    name: config.name,
    async startCheck(request) {
      const body = JSON.stringify(request);
      const timestamp = Math.floor(clock().getTime() / 1000);
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': request.reference,
            'webhook-id': request.reference,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureOf(config.secret, request.reference, timestamp, body),
          },
          body,
          signal: AbortSignal.timeout(config.timeoutMs),
          redirect: 'error',
        });
      } catch (error) {
        throw refused(`it did not answer within ${config.timeoutMs} ms (${(error as Error).name})`);
      }
      const text = await response.text().catch(() => '');
      if (response.status !== 200 && response.status !== 201) throw refused(`it answered ${response.status}`);
      let answer: { id?: unknown; redirectUrl?: unknown };
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        throw refused('its answer is not JSON');
      }
      if (typeof answer.id !== 'string' || answer.id === '' || answer.id.length > 200) throw refused('its answer has no `id`');
      const redirect = answer.redirectUrl;
      if (redirect !== undefined && redirect !== null && (typeof redirect !== 'string' || !/^https?:\/\/\S{1,2000}$/.test(redirect))) {
        throw refused('its `redirectUrl` is not an http(s) URL');
      }
      return { providerCheckId: answer.id, ...(typeof redirect === 'string' ? { redirectUrl: redirect } : {}) };
    },
  };
}
