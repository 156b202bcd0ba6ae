// KYC checks by the provider in the console, end to end at 1440×900 and 390×844: on an investor's
// page the admin starts a check for level 2; the provider simulator (a real HTTP server following
// the contract) posts the signed clear result; the check shows as clear and the page's KYC level
// reads 2. axe-core finds nothing, and a phone does not scroll sideways.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { investorBody } from '../support/fixtures.ts';
import { type KycSimulator, startKycSimulator } from '../support/kyc-simulator.ts';
import { checkScreen, type E2e, skipE2e, startE2e } from './harness.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

describe('KYC checks in the console, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  let simulator: KycSimulator;
  before(async () => {
    simulator = await startKycSimulator({ secret, delayMs: 300 });
    e = await startE2e({
      demo: false,
      env: { KYC_PROVIDER: 'http', KYC_PROVIDER_URL: simulator.url, KYC_WEBHOOK_SECRET: secret, KYC_PROVIDER_NAME: 'simulator' },
    });
    simulator.callbackUrl = `${e.url}/kyc-provider/webhook`;
  });
  after(async () => {
    await simulator?.stop();
    await e?.close();
  });

  for (const width of [1440, 390]) {
    test(`at ${width} px: a check started on the investor's page comes back clear and raises the level`, async () => {
      const id = `kyc-ada-${width}`;
      assert.equal((await e.api('PUT', `/investors/${id}`, investorBody({ forename: 'Ada', surname: 'Byron', kycCheckLevel: 0 }))).status, 201);
      const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      try {
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await page.goto(`${e.url}/console/#/investors/${id}`);
        const checks = page.getByRole('region', { name: 'KYC checks' });
        await checks.getByText('No KYC check yet.').waitFor();
        assert.equal(await page.getByRole('textbox', { name: 'KYC level' }).inputValue(), '0');
        await checks.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await checkScreen(page, { prefix: 'kyc-checks', name: 'none', width });

        await checks.getByRole('textbox', { name: 'Level to check for' }).fill('2');
        await checks.getByRole('button', { name: 'Start KYC check' }).click();
        await checks.getByText('KYC check started with simulator for level 2.').waitFor();
        await checks.getByText('started', { exact: true }).waitFor();

        // The simulator posts its result; the list looks again every 2 s and the page reloads the level.
        await page.getByRole('region', { name: 'KYC checks' }).getByText('clear', { exact: true }).waitFor();
        const level = page.getByRole('textbox', { name: 'KYC level' });
        for (let tries = 0; (await level.inputValue()) !== '2'; tries++) {
          assert.ok(tries < 50, 'the KYC level field reads 2 within 5 s of the result');
          await page.waitForTimeout(100);
        }
        await page.getByRole('region', { name: 'KYC checks' }).evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await checkScreen(page, { prefix: 'kyc-checks', name: 'clear', width });

        const listed = (await e.api('GET', `/investors/${id}/kyc-checks`)).body.checks;
        assert.deepEqual(
          listed.map((c: { state: string; level: number; result: { level: number } }) => [c.state, c.level, c.result.level]),
          [['clear', 2, 2]],
        );
        assert.equal((await e.api('GET', `/investors/${id}`)).body.kycCheckLevel, 2);
      } finally {
        await context.close();
      }
    });
  }
});
