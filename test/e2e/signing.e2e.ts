// Subscription agreements signed end to end, at 1440×900 and 390×844 with axe-core on each screen:
// an approver (signed in to the console with a passkey from their invitation) uploads the deal's
// agreement template; the investor (the portal, with Chromium's virtual authenticator) reads the
// agreement filled with their details and signs it with their passkey; the approver countersigns
// it in the console; the investor downloads the countersigned PDF, and pdfsig finds both
// signatures valid. The move past the signing step is refused before and allowed after.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { m } from '../../web/portal/src/messages.ts';
import { investorBody } from '../support/fixtures.ts';
import { pdfsig, templatePdf } from '../support/signing.ts';
import { agreementWorkflow } from '../support/workflows.ts';
import { checkScreen, e2eDatabaseUrl, freePort, investorBrowser, skipE2e, startE2e, type E2e } from './harness.ts';

const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

describe(`subscription agreements signed in the portal and countersigned in the console (${e2eDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, {
  skip: skipE2e,
}, () => {
  let e: E2e;
  let origin: string;
  before(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    e = await startE2e({ demo: false, env: { PORT: String(port), PUBLIC_URL: origin }, ...(e2eDatabaseUrl ? { databaseUrl: e2eDatabaseUrl } : {}) });
  });
  after(() => e?.close());

  const call = (method: string, path: string, body?: unknown) => e.api(method, path, body);
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await call(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const { width } = size;
      const dealId = `signing-${width}`;
      const investorUserId = `signing-investor-${width}`;
      const shot = (page: Page, name: string) => checkScreen(page, { prefix: 'signing', name, width });
      const moveToClosing = () => call('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: `${dealId}.closing`, data: {} });

      test('template uploaded, signed with a passkey, countersigned, downloaded: pdfsig finds both signatures valid', async () => {
        await must('PUT', `/deals/deal/${dealId}`, { name: `Fund IV (${width})`, description: 'A closed-ended growth fund.', currency: 'EUR' });
        await must('PUT', `/deals/deal/${dealId}/workflow`, agreementWorkflow(dealId));
        await must('PUT', `/investors/${investorUserId}`, investorBody({ forename: 'Lise', surname: 'Meitner', dateOfBirth: null, classes: [] }));
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
          investorUserId,
          targetStepId: `${dealId}.commitment`,
          data: { committed_amount: '40000.00', currency: 'EUR', address_line1: '7 Kaiser-Wilhelm-Strasse' },
        });
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: `${dealId}.signing`, data: {} });

        // The approver joins the console with a passkey and uploads the template.
        const invitation = await must('POST', '/staff/invitations', { email: `bea-${width}@example.com`, name: `Bea Approver ${width}`, role: 'approver' });
        const staff = await investorBrowser(e, size, { acceptDownloads: true });
        await staff.page.goto(invitation.url);
        await staff.page.getByRole('button', { name: 'Create your passkey' }).click();
        await staff.page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await staff.page.goto(`${origin}/console/#/deals/${dealId}/documents`);
        await staff.page.getByRole('heading', { name: 'Subscription agreements' }).waitFor();
        await staff.page.getByLabel('Template PDF').setInputFiles({ name: 'agreement-template.pdf', mimeType: 'application/pdf', buffer: await templatePdf() });
        await staff.page.getByRole('button', { name: 'Upload template' }).click();
        await staff.page.getByText(/The agreement template is uploaded/).waitFor();
        await staff.page.getByRole('heading', { name: 'Subscription agreements' }).scrollIntoViewIfNeeded();
        await shot(staff.page, 'console-template-uploaded');

        const before = await moveToClosing();
        assert.equal(before.status, 422, 'closing is closed before the signatures');
        assert.match(before.body.detail, /signed-agreement/);

        // The investor reads and signs in the portal.
        const invited = (await must('POST', '/investors/portal-invitations', { investorUserIds: [investorUserId] })).invitations[0].url;
        const investor = await investorBrowser(e, size, { acceptDownloads: true });
        await investor.page.goto(invited);
        await investor.page.getByRole('button', { name: m.welcomeCreate }).click();
        await investor.page.getByRole('heading', { name: m.dealsTitle }).waitFor();
        await investor.page.goto(`${origin}/portal/#/deals/${dealId}`);
        const card = investor.page.getByTestId('agreement');
        await card.getByRole('link', { name: m.agreementOpen }).waitFor();
        // The step ahead says what it waits for, instead of offering a move that would be refused.
        const waits = investor.page.getByTestId('step-waits');
        await waits.getByText(m.waitsForSignature('Closing')).waitFor();
        assert.equal(await investor.page.getByRole('heading', { name: m.formTitle('Closing') }).count(), 0);
        await card.scrollIntoViewIfNeeded();
        await shot(investor.page, 'to-sign');
        await card.getByRole('checkbox', { name: m.agreementConfirm }).check();
        await card.getByRole('button', { name: m.agreementSign }).click();
        await card.getByText(/You signed on/).waitFor();
        await waits.getByText(m.waitsForCountersignature('Closing')).waitFor();
        await shot(investor.page, 'signed');
        assert.equal((await moveToClosing()).status, 422, 'still closed before the countersignature');

        // The approver countersigns in the console.
        await staff.page.reload();
        const row = staff.page.locator(`tr[data-investor="${investorUserId}"]`);
        await row.getByRole('button', { name: 'Countersign with passkey' }).click();
        await staff.page.getByText(/agreement is countersigned/).waitFor();
        await row.getByText('Countersigned', { exact: true }).waitFor();
        await shot(staff.page, 'console-countersigned');

        // The investor downloads the countersigned PDF: two valid signatures.
        await investor.page.reload();
        const download = card.getByRole('link', { name: m.agreementDownloadCountersigned });
        await download.waitFor();
        await card.scrollIntoViewIfNeeded();
        await shot(investor.page, 'countersigned');
        await investor.page.getByRole('heading', { name: m.formTitle('Closing') }).waitFor();
        assert.equal(await waits.count(), 0, 'nothing holds the step back any more');
        const [file] = await Promise.all([investor.page.waitForEvent('download'), download.click()]);
        const verdict = pdfsig(readFileSync((await file.path())!));
        assert.deepEqual(
          verdict.signatures.map((s) => [s.field, s.valid]),
          [
            ['Investor signature', true],
            ['Countersignature', true],
          ],
          verdict.output,
        );
        assert.ok(verdict.signatures[1]!.totalDocumentSigned, verdict.output);

        assert.equal((await moveToClosing()).status, 201, 'closing opens after the countersignature');
        await investor.context.close();
        await staff.context.close();
      });
    });
  }
});
