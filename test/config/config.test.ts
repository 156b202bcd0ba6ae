import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.ts';

const KYC_SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

describe('configuration', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.basePath, '');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, fileURLToPath(new URL('../../.data', import.meta.url)), 'the checkout root, whatever the working directory');
    assert.equal(config.bodyLimit, 1024 * 1024);
    assert.equal(config.rateLimitPerMinute, 0);
    assert.equal(config.jwt, undefined);
    assert.deepEqual(config.portal, {
      publicUrl: 'http://localhost:3000',
      origin: 'http://localhost:3000',
      rpId: 'localhost',
      invitationDays: 7,
      sessionMinutes: 30,
      rateLimitPerMinute: 30,
    });
    assert.deepEqual(config.kyc, { validMonths: 12, documentMaxBytes: 20 * 1024 * 1024 });
  });

  test('KYC: how long a level counts and the largest file, each within its bounds', () => {
    assert.deepEqual(loadConfig({ KYC_VALID_MONTHS: '24', KYC_DOCUMENT_MAX_BYTES: '1048576' }).kyc, { validMonths: 24, documentMaxBytes: 1048576 });
    for (const env of [{ KYC_VALID_MONTHS: '0' }, { KYC_VALID_MONTHS: '121' }, { KYC_VALID_MONTHS: 'twelve' }, { KYC_DOCUMENT_MAX_BYTES: '100' }]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
  });

  test('the portal: PUBLIC_URL gives the origin and the relying party id; the default follows PORT and BASE_PATH', () => {
    assert.equal(loadConfig({ PORT: '8080', BASE_PATH: '/api/gw' }).portal.publicUrl, 'http://localhost:8080/api/gw');
    const portal = loadConfig({
      PUBLIC_URL: 'https://deals.example.com:8443/gw/',
      SMTP_URL: 'smtps://u:p@mail.example.com',
      SMTP_FROM: 'Deals <deals@example.com>',
    }).portal;
    assert.equal(portal.publicUrl, 'https://deals.example.com:8443/gw');
    assert.equal(portal.origin, 'https://deals.example.com:8443');
    assert.equal(portal.rpId, 'deals.example.com');
    assert.deepEqual(portal.smtp, { url: 'smtps://u:p@mail.example.com', from: 'Deals <deals@example.com>' });
  });

  test('TRUST_PROXY: off by default; true, a hop count, or addresses and CIDRs', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  const bad: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['BASE_PATH', { BASE_PATH: 'no-leading-slash' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['JWT_SECRET', { JWT_SECRET: 'short' }],
    ['JWT_JWKS_URL', { JWT_JWKS_URL: 'not a url' }],
    ['BODY_LIMIT', { BODY_LIMIT: '-1' }],
    ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '1.5' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'deals.example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://deals.example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://deals.example.com/?a=1' }],
    ['PORTAL_INVITATION_DAYS', { PORTAL_INVITATION_DAYS: '0' }],
    ['PORTAL_SESSION_MINUTES', { PORTAL_SESSION_MINUTES: '721' }],
    ['PORTAL_RATE_LIMIT_PER_MINUTE', { PORTAL_RATE_LIMIT_PER_MINUTE: 'many' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.com', SMTP_FROM: 'deals@example.com' }],
    ['SMTP_FROM', { SMTP_URL: 'smtp://mail.example.com:587' }],
    ['SMTP_FROM', { SMTP_URL: 'smtp://mail.example.com:587', SMTP_FROM: 'nobody' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'the load balancer' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    ['STAFF_SESSION_MINUTES', { STAFF_SESSION_MINUTES: '0' }],
    ['STAFF_SESSION_MAX_HOURS', { STAFF_SESSION_MAX_HOURS: '169' }],
    ['OIDC_CLIENT_SECRET', { OIDC_ISSUER: 'https://login.example.com', OIDC_CLIENT_ID: 'dealflow' }],
    ['OIDC_ISSUER', { OIDC_CLIENT_ID: 'dealflow', OIDC_CLIENT_SECRET: 's' }],
    ['OIDC_ISSUER', { OIDC_ISSUER: 'http://login.example.com', OIDC_CLIENT_ID: 'dealflow', OIDC_CLIENT_SECRET: 's' }],
    ['OIDC_ISSUER', { OIDC_ISSUER: 'login.example.com', OIDC_CLIENT_ID: 'dealflow', OIDC_CLIENT_SECRET: 's' }],
    ['KYC_PROVIDER', { KYC_PROVIDER: 'simulator' }],
    ['KYC_PROVIDER_URL', { KYC_PROVIDER: 'http', KYC_WEBHOOK_SECRET: KYC_SECRET }],
    ['KYC_PROVIDER_URL', { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'http://kyc.example.com', KYC_WEBHOOK_SECRET: KYC_SECRET }],
    ['KYC_PROVIDER_URL', { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://user:pw@kyc.example.com', KYC_WEBHOOK_SECRET: KYC_SECRET }],
    ['KYC_WEBHOOK_SECRET', { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com' }],
    ['KYC_WEBHOOK_SECRET', { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com', KYC_WEBHOOK_SECRET: 'whsec_c2hvcnQ=' }],
    [
      'KYC_WEBHOOK_SECRET',
      { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com', KYC_WEBHOOK_SECRET: 'a plain password of forty characters....' },
    ],
    [
      'KYC_WEBHOOK_TOLERANCE',
      { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com', KYC_WEBHOOK_SECRET: KYC_SECRET, KYC_WEBHOOK_TOLERANCE: '2h' },
    ],
  ];
  for (const [variable, env] of bad) {
    test(`a bad ${variable} (${JSON.stringify(env)}) is refused, naming it`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(variable),
      );
    });
  }

  test('single sign-on: off by default; https, or http only for a provider on this machine', () => {
    assert.equal(loadConfig({}).oidc, undefined);
    const remote = loadConfig({ OIDC_ISSUER: 'https://login.example.com/realms/fund', OIDC_CLIENT_ID: 'dealflow', OIDC_CLIENT_SECRET: 's' }).oidc!;
    assert.deepEqual(
      [remote.issuer.href, remote.allowHttp, remote.name, remote.roleClaim],
      ['https://login.example.com/realms/fund', false, 'single sign-on', undefined],
    );
    const local = loadConfig({ OIDC_ISSUER: 'http://localhost:9000', OIDC_CLIENT_ID: 'd', OIDC_CLIENT_SECRET: 's', OIDC_ROLE_CLAIM: 'role' }).oidc!;
    assert.deepEqual([local.allowHttp, local.roleClaim], [true, 'role']);
  });

  test('a KYC provider: none by default; https, or http on this machine; the secret never in an error', () => {
    assert.equal(loadConfig({}).kycProvider, undefined);
    const remote = loadConfig({ KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com/v1', KYC_WEBHOOK_SECRET: KYC_SECRET }).kycProvider!;
    assert.deepEqual([remote.url.href, remote.name, remote.toleranceSeconds, remote.timeoutMs], ['https://kyc.example.com/v1', 'kyc.example.com', 300, 10_000]);
    const local = loadConfig({ KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'http://127.0.0.1:4010', KYC_WEBHOOK_SECRET: KYC_SECRET, KYC_PROVIDER_NAME: 'sim' })
      .kycProvider!;
    assert.equal(local.name, 'sim');
    const short = 'whsec_c2hvcnQ=';
    assert.throws(
      () => loadConfig({ KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'https://kyc.example.com', KYC_WEBHOOK_SECRET: short }),
      (err: unknown) => err instanceof ConfigError && !err.message.includes(short),
    );
  });

  test('the CLI exits 1 with a message naming the variable', () => {
    const result = spawnSync(process.execPath, ['bin/dealflow.js', 'migrate'], {
      env: { ...process.env, PORT: 'abc' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /invalid configuration: PORT: must be a whole number/);
  });
});
