// A deal's documents in the console, end to end at 1440×900 and 390×844, light and dark: a PDF
// uploaded from a file, released to everyone at or past a step and to one investor found by name,
// downloaded as it was uploaded, and who opened it shown (the download itself is a read). axe-core finds
// nothing, and a phone does not scroll sideways.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { investorBody } from '../support/fixtures.ts';
import { checkScreen, type E2e, skipE2e, startE2e, subscriptionDeal } from './harness.ts';

const dealId = 'documents-e2e';
const step = (name: string) => `${dealId}:${name}`;

describe("a deal's documents in the console, end to end", { skip: skipE2e }, () => {
  let e: E2e;
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-documents-e2e-'));
  before(async () => {
    e = await startE2e({ demo: false });
    await subscriptionDeal(e, dealId, { series: 'E' });
    for (const [id, forename, surname] of [
      ['documents-ada', 'Ada', 'Lovelace'],
      ['documents-grace', 'Grace', 'Hopper'],
    ] as const) {
      assert.equal((await e.api('PUT', `/investors/${id}`, investorBody({ forename, surname, dateOfBirth: null, classes: [] }))).status, 201);
      assert.equal((await e.api('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: id, targetStepId: step('invited'), data: {} })).status, 201);
    }
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    test(`at ${width} px: uploaded, released to a step and to one investor, downloaded, and who opened it`, async () => {
      const title = `Information memorandum ${width}`;
      const bytes = Buffer.from(`%PDF-1.7\n% ${title}\n${' '.repeat(2000)}\n%%EOF\n`);
      const file = join(dir, `memorandum-${width}.pdf`);
      writeFileSync(file, bytes);
      const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1, acceptDownloads: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      try {
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await page.goto(`${e.url}/console/#/deals/${dealId}/documents`);
        await page.getByRole('heading', { name: 'Upload a document' }).waitFor();

        await page.getByLabel('PDF (up to 64 MB)').setInputFiles(file);
        await page.getByLabel("Title (the file's name when empty)").fill(title);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        await page.getByRole('status').getByText(`${title} is uploaded.`, { exact: false }).waitFor();
        const row = page.locator('tr', { has: page.getByRole('button', { name: title }) });
        await row.getByText('Nobody yet').waitFor();
        await checkScreen(page, { prefix: 'documents', name: 'uploaded-light', width });

        // To everyone at or past Invited, then to Grace alone, found by name.
        const release = row.getByRole('form', { name: `Release ${title}` });
        await release.getByLabel('Step', { exact: true }).selectOption({ label: 'Invited' });
        await release.getByRole('button', { name: 'Release' }).click();
        await row.getByText('Everyone at or past Invited').waitFor();
        await release.getByLabel('Release to', { exact: true }).selectOption('investor');
        await release.getByLabel('Investor (name or e-mail)').fill('Hopper');
        await release.getByRole('radio', { name: /Grace Hopper/ }).check();
        await release.getByRole('button', { name: 'Release' }).click();
        await page.getByRole('status').getByText(`${title} is released to Grace Hopper.`).waitFor();
        await row.getByText('Grace Hopper').first().waitFor();

        const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: title }).click()]);
        assert.ok(readFileSync((await download.path())!).equals(bytes), 'the PDF as it was uploaded');

        // The download is a read like any other: the console says who opened it.
        await page.reload();
        await row.getByText('Once').click();
        await row.getByText('(admin)').waitFor();
        await page.emulateMedia({ colorScheme: 'dark' });
        await checkScreen(page, { prefix: 'documents', name: 'released-dark', width });
      } finally {
        await context.close();
      }
    });
  }
});
