// KYC evidence end to end, at 390×844 and 1440×900 with axe-core on each screen: an investor at the
// KYC step is refused the commitment; in the portal they upload their identity document (PDF) and
// proof of address (PNG) and confirm a category statement; staff accept both documents on the
// console's Checks page; the investor's KYC is then complete and the commitment that was refused is
// made. On PGlite, and on PostgreSQL when E2E_DATABASE_URL names a server.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { m } from '../../web/portal/src/messages.ts';
import { investorBody } from '../support/fixtures.ts';
import { files, kycWorkflow } from '../support/kyc.ts';
import { checkScreen, e2eDatabaseUrl, freePort, investorBrowser, skipE2e, startE2e, type E2e } from './harness.ts';

const sizes = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const dealId = 'kyc-e2e';
const step = (name: string) => `${dealId}.${name}`;

describe(`KYC evidence in the portal and the console (${e2eDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, { skip: skipE2e }, () => {
  let e: E2e;
  let port: number;
  const folder = mkdtempSync(join(tmpdir(), 'dealflow-kyc-'));
  const passport = join(folder, 'passport.pdf');
  const bill = join(folder, 'utility-bill.png');
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  before(async () => {
    writeFileSync(passport, files.pdf('passport of the investor'));
    writeFileSync(bill, files.png());
    port = await freePort();
    e = await startE2e({
      demo: false,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` },
      ...(e2eDatabaseUrl ? { databaseUrl: e2eDatabaseUrl } : {}),
    });
    await must('PUT', `/deals/deal/${dealId}`, { name: 'Harbour Series K', currency: 'EUR' });
    await must('PUT', `/deals/deal/${dealId}/workflow`, kycWorkflow(dealId));
    await must('PUT', `/deals/deal/${dealId}/kyc-settings`, { stepId: step('kyc'), level: 2, documents: ['identity', 'proof-of-address'] });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const investorUserId = `kyc-e2e-${size.width}`;
      const surname = size.width < 500 ? 'Hopper' : 'Noether';
      let investor: BrowserContext;
      let page: Page;
      const shot = (p: Page, name: string) => checkScreen(p, { prefix: 'kyc', name, width: size.width });

      before(async () => {
        await must('PUT', `/investors/${investorUserId}`, investorBody({ forename: 'Grace', surname, dateOfBirth: null, kycCheckLevel: null, classes: [] }));
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step('interest'), data: {} });
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step('kyc'), data: {} });
        const invitationUrl = (await must('POST', '/investors/portal-invitations', { investorUserIds: [investorUserId] })).invitations[0].url;
        ({ context: investor, page } = await investorBrowser(e, size));
        await page.goto(invitationUrl);
        await page.getByRole('button', { name: m.welcomeCreate }).click();
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();
      });
      after(() => investor?.close());

      test('documents uploaded and a category confirmed in the portal, accepted in the console: the commitment refused before is made', async () => {
        await page.goto(`http://localhost:${port}/portal/#/deals/${dealId}`);
        const kyc = page.locator('section.kyc-card');
        await kyc.getByRole('heading', { name: m.kycTitle }).waitFor();

        // The commitment is refused while the KYC is missing.
        const commit = page.locator('form.step-form');
        const commitNow = async () => {
          await commit.getByRole('textbox', { name: /Committed amount/ }).fill('30000');
          await commit.getByRole('combobox', { name: /Currency/ }).selectOption('EUR');
          await commit.getByRole('button', { name: m.formSubmit('Commitment') }).click();
        };
        await commitNow();
        await commit
          .getByRole('alert')
          .getByText(/KYC check level is not set/)
          .waitFor();

        await kyc.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot(page, 'portal-asked');
        await kyc.getByLabel(m.kycUpload + m.kycUploadFor(m.kycKinds.identity!)).setInputFiles(passport);
        await kyc.locator('li[data-kind="identity"]').getByText(m.kycStates.submitted!).waitFor();
        await kyc.getByLabel(m.kycUpload + m.kycUploadFor(m.kycKinds['proof-of-address']!)).setInputFiles(bill);
        await kyc.locator('li[data-kind="proof-of-address"]').getByText(m.kycStates.submitted!).waitFor();

        await kyc.getByRole('radio', { name: m.categoryNames['self-certified-sophisticated'] }).check();
        await kyc
          .getByTestId('category-statement')
          .getByText(/self-certified sophisticated investor/)
          .waitFor();
        const confirm = kyc.getByRole('button', { name: m.categoryConfirm });
        assert.equal(await confirm.isDisabled(), true, 'not before the statement is ticked');
        await kyc.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot(page, 'portal-requests');
        await kyc.getByRole('checkbox', { name: m.categoryAgree }).check();
        await confirm.click();
        await kyc.getByTestId('category-done').waitFor();

        // Staff accept both documents on the Checks page.
        const console = await e.browser.newContext({ viewport: size, deviceScaleFactor: 1 });
        try {
          const staff = await console.newPage();
          staff.setDefaultTimeout(15_000);
          await staff.goto(`${e.url}/console/`);
          await staff.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
          await staff.getByRole('button', { name: 'Sign in with the key' }).click();
          await staff.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
          await staff.getByRole('link', { name: 'Checks' }).click();
          const reviews = staff.getByRole('region', { name: 'KYC documents to review', exact: true });
          const rows = reviews.locator('tr[data-kyc-document]', { has: staff.locator(`a[href="#/investors/${investorUserId}"]`) });
          await rows.first().waitFor();
          assert.equal(await rows.count(), 2);
          await reviews.evaluate((s) => s.scrollIntoView({ block: 'start' }));
          await shot(staff, 'console-reviews');
          for (const name of [/^Accept the identity document/, /^Accept the proof of address/]) {
            await reviews.getByRole('button', { name }).first().click();
            await staff
              .getByRole('status')
              .getByText(/accepted\./)
              .waitFor();
          }
          await rows.first().waitFor({ state: 'detached' });
        } finally {
          await console.close();
        }

        await page.reload();
        await page.locator('section.kyc-card').getByTestId('kyc-done').waitFor();
        await commitNow();
        await page.getByTestId('current-step').getByText('Commitment').waitFor();
        const journey = await must('GET', `/investors/${investorUserId}/deals/${dealId}`);
        assert.equal(journey.currentStep.id, step('commitment'), 'the investor committed');
        await page.locator('section.kyc-card').evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot(page, 'portal-done');
      });
    });
  }
});
