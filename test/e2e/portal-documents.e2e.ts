// The investor's documents in the portal, at 390×844 and 1440×900 with axe-core on each screen:
// the documents staff released to a step the investor has reached are listed on the deal's page
// and download as the PDF that was uploaded; one released to a later step appears once staff move
// the investor there, without a reload; staff then see who opened what. On PGlite, and on
// PostgreSQL when E2E_DATABASE_URL names a server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { m } from '../../web/portal/src/messages.ts';
import { checkedFetch } from '../support/contract.ts';
import { investorBody } from '../support/fixtures.ts';
import { checkScreen, e2eDatabaseUrl, freePort, investorBrowser, skipE2e, startE2e, subscriptionDeal, type E2e } from './harness.ts';

const sizes = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const dealId = 'portal-documents-e2e';
const step = (name: string) => `${dealId}:${name}`;
const pdf = (text: string) => Buffer.from(`%PDF-1.7\n% ${text}\n${' '.repeat(4000)}\n%%EOF\n`);

describe(`the investor's documents in the portal (${e2eDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, { skip: skipE2e }, () => {
  let e: E2e;
  let port: number;
  const memorandum = pdf('Information memorandum of Harbour Series D');
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const upload = async (title: string, bytes: Buffer) => {
    const response = await checkedFetch(e.url, `/deals/deal/${dealId}/documents?title=${encodeURIComponent(title)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'application/pdf' },
      body: bytes,
    });
    assert.equal(response.status, 201, response.text);
    return JSON.parse(response.text).id as string;
  };
  let memorandumId: string;

  before(async () => {
    port = await freePort();
    e = await startE2e({
      demo: false,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` },
      ...(e2eDatabaseUrl ? { databaseUrl: e2eDatabaseUrl } : {}),
    });
    await subscriptionDeal(e, dealId, { series: 'D' });
    memorandumId = await upload('Information memorandum', memorandum);
    const agreement = await upload('Subscription agreement', pdf('Subscription agreement'));
    await must('POST', `/deals/deal/${dealId}/documents/${memorandumId}/releases`, { stepId: step('invited') });
    await must('POST', `/deals/deal/${dealId}/documents/${agreement}/releases`, { stepId: step('commitment') });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const investorUserId = `portal-documents-${size.width}`;
      let investor: BrowserContext;
      let page: Page;
      const shot = (name: string) => checkScreen(page, { prefix: 'portal-documents', name, width: size.width });

      before(async () => {
        await must(
          'PUT',
          `/investors/${investorUserId}`,
          investorBody({ forename: 'Lise', surname: size.width < 500 ? 'Meitner' : 'Franklin', dateOfBirth: null, classes: [] }),
        );
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step('invited'), data: {} });
        const invitationUrl = (await must('POST', '/investors/portal-invitations', { investorUserIds: [investorUserId] })).invitations[0].url;
        ({ context: investor, page } = await investorBrowser(e, size, { acceptDownloads: true }));
        await page.goto(invitationUrl);
        await page.getByRole('button', { name: m.welcomeCreate }).click();
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();
      });
      after(() => investor?.close());

      test('the released document is listed and downloads as uploaded; the later one comes with the step', async () => {
        await page.goto(`http://localhost:${port}/portal/#/deals/${dealId}`);
        const documents = page.locator('section.documents-card');
        const link = documents.getByRole('link', { name: m.documentDownload('Information memorandum') });
        await link.waitFor();
        assert.equal(await documents.getByRole('link').count(), 1, 'only what is released to a step reached');
        await documents.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot('listed');

        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        assert.equal(download.suggestedFilename(), 'Information memorandum.pdf');
        assert.ok(readFileSync((await download.path())!).equals(memorandum), 'the PDF as it was uploaded');

        await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
          investorUserId,
          targetStepId: step('commitment'),
          data: { committed_amount: '20000.00', currency: 'EUR' },
        });
        await documents.getByRole('link', { name: m.documentDownload('Subscription agreement') }).waitFor({ timeout: 30_000 });
        await documents.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot('after-commitment');

        const reads = await must('GET', `/deals/deal/${dealId}/documents/${memorandumId}/reads`);
        assert.ok(
          reads.some((r: { reader: string }) => r.reader === investorUserId),
          'staff see that the investor opened it',
        );
      });
    });
  }
});
