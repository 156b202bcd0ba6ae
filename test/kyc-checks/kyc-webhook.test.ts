// The KYC provider's webhook refuses what it cannot trust, with a problem document and no change:
// no or a wrong signature, a body changed after signing, a timestamp outside the window (a replay
// after it), an unknown check, a result that contradicts the recorded one or reuses a webhook-id.
// The same result again is answered as the first. Without a provider, or with one that does not
// answer, a check is not started and nothing is recorded.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signatureOf } from '../../src/domain/signed-webhook.ts';
import { client, expectProblem, type StartedApp, startTestApp, type TestApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';
import { type KycSimulator, startKycSimulator } from '../support/kyc-simulator.ts';
import { rowCounts } from '../support/row-counts.ts';

describe('kyc webhook', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let simulator: KycSimulator;
  let t: StartedApp;
  before(async () => {
    // The simulator answers starts but never posts on its own here: each test posts the result itself.
    simulator = await startKycSimulator({ secret, delayMs: 3_600_000 });
    const app = await startTestApp({
      env: { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: simulator.url, KYC_WEBHOOK_SECRET: secret, KYC_PROVIDER_NAME: 'simulator' },
    });
    t = { ...app, admin: client(app.app, app.adminToken) };
  });
  after(async () => {
    await simulator?.stop();
    await t?.close();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const resultBody = (check: { id: string; providerCheckId: string }, overrides: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: 'kyc.check.decided',
      reference: check.id,
      checkId: check.providerCheckId,
      outcome: 'clear',
      level: 2,
      decidedAt: new Date().toISOString(),
      ...overrides,
    });

  /** Posts `body` to the webhook as is, signed as told (or not at all: `headers` null). */
  async function deliver(app: TestApp, body: string, sign: { id?: string; timestamp?: number; key?: string; headers?: Record<string, string> | null } = {}) {
    const id = sign.id ?? `msg_${randomUUID()}`;
    const timestamp = sign.timestamp ?? now();
    const headers =
      sign.headers === null
        ? {}
        : {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureOf(sign.key ?? secret, id, timestamp, body),
            ...sign.headers,
          };
    const response = await client(app.app).raw({
      method: 'POST',
      url: '/kyc-provider/webhook',
      headers: { 'content-type': 'application/json', ...headers },
      payload: body,
    });
    return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
  }

  async function startedCheck(level = 2) {
    const { id: investor } = await createInvestor(t.admin, { kycCheckLevel: 1 });
    const started = await t.admin.post(`/investors/${investor}/kyc-checks`, { level });
    assert.equal(started.status, 201, started.text);
    return { investor, check: started.body as { id: string; providerCheckId: string } };
  }
  const levelOf = async (investor: string) => (await t.admin.get(`/investors/${investor}`)).body.kycCheckLevel;

  describe('the KYC provider webhook', () => {
    test('each refusal is a problem document and changes nothing', async () => {
      const { investor, check } = await startedCheck();
      const body = resultBody(check);
      const before = await rowCounts(t);
      const refusals: [string, () => Promise<{ status: number; headers: Record<string, unknown>; body: any }>, number, RegExp][] = [
        ['unsigned', () => deliver(t, body, { headers: null }), 401, /webhook-id, webhook-timestamp and webhook-signature/],
        ['signed with another secret', () => deliver(t, body, { key: `whsec_${randomBytes(32).toString('base64')}` }), 401, /does not match/],
        [
          'changed after signing',
          () => deliver(t, body, { headers: { 'webhook-signature': signatureOf(secret, 'msg_x', now(), resultBody(check, { level: 3 })) }, id: 'msg_x' }),
          401,
          /does not match/,
        ],
        ['signed 301 s ago (a replay after the window)', () => deliver(t, body, { timestamp: now() - 301 }), 401, /more than 300 s old/],
        ['signed 301 s ahead', () => deliver(t, body, { timestamp: now() + 301 }), 401, /ahead/],
        ['an unknown check', () => deliver(t, resultBody({ id: randomUUID(), providerCheckId: check.providerCheckId })), 404, /KYC check/],
        ['another provider id for the check', () => deliver(t, resultBody({ id: check.id, providerCheckId: 'sim_other' })), 404, /KYC check/],
        ['a reference that is no check id', () => deliver(t, resultBody({ id: 'not-a-uuid', providerCheckId: check.providerCheckId })), 400, /reference/],
        ['clear without a level', () => deliver(t, resultBody(check, { level: null })), 400, /not valid/],
        ['refer with a level', () => deliver(t, resultBody(check, { outcome: 'refer' })), 400, /not valid/],
        ['an unknown outcome', () => deliver(t, resultBody(check, { outcome: 'maybe' })), 400, /outcome/],
      ];
      for (const [name, response, status, detail] of refusals) {
        const problem = expectProblem(await response(), status);
        assert.match(JSON.stringify(problem), detail, name);
      }
      assert.deepEqual(await rowCounts(t), before);
      assert.equal(await levelOf(investor), 1);
      assert.equal((await t.admin.get(`/investors/${investor}/kyc-checks`)).body.checks[0].state, 'started');
    });

    test('the first result decides; the same again is answered as the first; another, or a reused webhook-id, is a 409', async () => {
      const { investor, check } = await startedCheck();
      const first = await deliver(t, resultBody(check), { id: 'msg_first' });
      assert.deepEqual([first.status, first.body], [200, { checkId: check.id, state: 'clear', duplicate: false }]);
      assert.equal(await levelOf(investor), 2);
      const before = await rowCounts(t);

      // The provider retries: the same webhook-id, signed afresh, and the same result under a new id.
      for (const id of ['msg_first', 'msg_again']) {
        const again = await deliver(t, resultBody(check), { id, timestamp: now() - 60 });
        assert.deepEqual([again.status, again.body], [200, { checkId: check.id, state: 'clear', duplicate: true }]);
      }
      // Another result for the decided check, under a new id or the first one's.
      assert.match(
        expectProblem(await deliver(t, resultBody(check, { outcome: 'failed', level: null }), { id: 'msg_later' }), 409).detail,
        /already decided \(clear\)/,
      );
      assert.match(expectProblem(await deliver(t, resultBody(check, { level: 3 }), { id: 'msg_first' }), 409).detail, /already used/);
      // The first check's webhook-id, on another check's result.
      const { investor: other, check: second } = await startedCheck();
      const afterSecond = await rowCounts(t);
      assert.match(expectProblem(await deliver(t, resultBody(second), { id: 'msg_first' }), 409).detail, /already used/);
      assert.deepEqual(await rowCounts(t), afterSecond);
      assert.equal(afterSecond.kyc_checks, before.kyc_checks! + 1);
      assert.equal(await levelOf(investor), 2);
      assert.equal(await levelOf(other), 1);
    });
  });

  describe('without a KYC provider, or with one that does not answer', () => {
    for (const [name, env, detail] of [
      ['none configured', {}, /No KYC provider is configured/],
      [
        'unreachable',
        { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: 'http://127.0.0.1:9/kyc', KYC_WEBHOOK_SECRET: secret, KYC_PROVIDER_TIMEOUT_MS: '1000' },
        /did not answer/,
      ],
    ] as const) {
      test(`${name}: a start is a 422 and records nothing`, async () => {
        const app = await startTestApp({ env });
        try {
          const admin = client(app.app, app.adminToken);
          const { id: investor } = await createInvestor(admin);
          const before = await rowCounts(app);
          assert.match(expectProblem(await admin.post(`/investors/${investor}/kyc-checks`, { level: 2 }), 422).detail, detail);
          if (name === 'none configured') expectProblem(await deliver(app, resultBody({ id: randomUUID(), providerCheckId: 'x' })), 404);
          assert.deepEqual(await rowCounts(app), before);
        } finally {
          await app.close();
        }
      });
    }
  });
});
