// An external KYC provider (docs/reference/kyc-provider-contract.md): which one (KYC_PROVIDER:
// none, or http for a provider or bridge that speaks the contract at KYC_PROVIDER_URL), and the
// secret both sides sign with (KYC_WEBHOOK_SECRET). The secret is never echoed in an error.
import { ConfigError, duration, type Env, integer, oneOf } from './config-env.ts';
import { DEFAULT_TOLERANCE_SECONDS, SECRET_PREFIX } from './domain/signed-webhook.ts';

export interface KycProviderConfig {
  /** The provider's base URL: checks are started with POST <url>/checks. */
  url: URL;
  /** What the checks' records call it (KYC_PROVIDER_NAME; the URL's host when unset). */
  name: string;
  /** `whsec_` and base64 of at least 24 bytes: signs our requests and verifies the provider's results. */
  secret: string;
  /** How far a result's webhook-timestamp may be from now (KYC_WEBHOOK_TOLERANCE), in seconds. */
  toleranceSeconds: number;
  /** Longest wait for the provider's answer to a start (KYC_PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
}

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]']);

export function kycProviderConfig(env: Env): KycProviderConfig | undefined {
  const kind = oneOf(env, 'KYC_PROVIDER', ['none', 'http'] as const, 'none');
  if (kind === 'none') return undefined;
  const raw = env.KYC_PROVIDER_URL || undefined;
  if (raw === undefined)
    throw new ConfigError('KYC_PROVIDER_URL', 'is needed with KYC_PROVIDER=http: the provider’s base URL, such as https://kyc.example.com/v1');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('KYC_PROVIDER_URL', `is not a URL: "${raw}"`);
  }
  const local = url.protocol === 'http:' && LOCAL.has(url.hostname);
  if (url.protocol !== 'https:' && !local) throw new ConfigError('KYC_PROVIDER_URL', 'must be an https URL (http only for a provider on this machine)');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('KYC_PROVIDER_URL', 'must be an origin and a path only, without query, fragment or credentials');
  }
  const secret = env.KYC_WEBHOOK_SECRET || undefined;
  if (secret === undefined)
    throw new ConfigError('KYC_WEBHOOK_SECRET', 'is needed with KYC_PROVIDER=http: the secret shared with the provider, whsec_ and base64');
  const key = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length < 24) {
    throw new ConfigError(
      'KYC_WEBHOOK_SECRET',
      'must be whsec_ followed by base64 of at least 24 random bytes (echo "whsec_$(openssl rand -base64 32)" makes one)',
    );
  }
  return {
    url,
    name: env.KYC_PROVIDER_NAME || url.host,
    secret,
    toleranceSeconds: duration(env, 'KYC_WEBHOOK_TOLERANCE', DEFAULT_TOLERANCE_SECONDS, 30, 3600),
    timeoutMs: integer(env, 'KYC_PROVIDER_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}
