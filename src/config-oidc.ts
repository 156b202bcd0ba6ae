// Single sign-on to the console with OpenID Connect (docs/reference/staff.md): the identity
// provider's issuer, this service's client id and secret there, and optionally the claim that
// carries a person's role. All three of issuer, client id and secret, or none.
import { ConfigError, type Env } from './config-env.ts';

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** A claim of the ID token whose value (viewer, operator, approver, admin) is the person's role; unset: the invitation's role. */
  roleClaim?: string;
  /** What the console's button calls the provider. */
  name: string;
  /** http:// is accepted only for an issuer on this machine (a provider run for development or tests). */
  allowHttp: boolean;
}

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]']);

export function oidcConfig(env: Env): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER || undefined;
  const clientId = env.OIDC_CLIENT_ID || undefined;
  const clientSecret = env.OIDC_CLIENT_SECRET || undefined;
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    const missing = (['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const).find((name) => !env[name]);
    throw new ConfigError(missing!, 'is needed with the other OIDC_ settings: the issuer, the client id and the client secret go together');
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError('OIDC_ISSUER', `is not a URL: "${issuer}" (expected https://login.example.com/realms/fund)`);
  }
  const allowHttp = url.protocol === 'http:' && LOCAL.has(url.hostname);
  if (url.protocol !== 'https:' && !allowHttp) throw new ConfigError('OIDC_ISSUER', 'must be an https URL (http only for a provider on this machine)');
  const roleClaim = env.OIDC_ROLE_CLAIM || undefined;
  return { issuer: url, clientId, clientSecret, name: env.OIDC_NAME || 'single sign-on', allowHttp, ...(roleClaim ? { roleClaim } : {}) };
}
