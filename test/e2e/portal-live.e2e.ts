// The investor portal after the commitment, at 390×844 and 1440×900, with axe-core on each screen:
// opened at the wrong address of the host (127.0.0.1 while PUBLIC_URL says localhost) it says
// which address to use; a reload of the welcome page keeps the invitation; the deal page follows
// the investor's journey live: a payment staff record and an increase staff approve appear without
// a reload; it says committed, received and still to pay, and the QR code's text names the amount
// it encodes; withdrawing is never offered as "what happens next"; a second change request cannot
// be sent while one waits, and nothing shows an internal id. On PGlite, and on PostgreSQL when
// E2E_DATABASE_URL names a server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { BrowserContext, Page } from 'playwright-core';
import { m } from '../../web/portal/src/messages.ts';
import { checkedFetch } from '../support/contract.ts';
import { subscriptionDeal, checkScreen, e2eDatabaseUrl, freePort, investorBrowser, skipE2e, startE2e, type E2e } from './harness.ts';
import { investorBody } from '../support/fixtures.ts';

const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

const sizes = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const dealId = 'portal-live-e2e';
const step = (name: string) => `${dealId}:${name}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe(`the investor portal follows the deal live (${e2eDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, { skip: skipE2e }, () => {
  let e: E2e;
  let port: number;
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  before(async () => {
    port = await freePort();
    e = await startE2e({
      demo: false,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` },
      ...(e2eDatabaseUrl ? { databaseUrl: e2eDatabaseUrl } : {}),
    });
    await subscriptionDeal(e, dealId, {
      series: 'C',
      withdrawnFromPayment: true,
      payee: { beneficiaryName: 'Harbour Capital Fund II', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const investorUserId = `portal-live-${size.width}`;
      const fullName = size.width < 500 ? 'Mary Somerville' : 'Emmy Noether';
      let investor: BrowserContext;
      let page: Page;
      let invitationUrl: string;
      const shot = (name: string) => checkScreen(page, { prefix: 'portal-live', name, width: size.width });

      before(async () => {
        const [forename, surname] = fullName.split(' ') as [string, string];
        await must('PUT', `/investors/${investorUserId}`, investorBody({ forename, surname, dateOfBirth: null, classes: [] }));
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step('invited'), data: {} });
        invitationUrl = (await must('POST', '/investors/portal-invitations', { investorUserIds: [investorUserId] })).invitations[0].url;
        ({ context: investor, page } = await investorBrowser(e, size));
      });
      after(() => investor?.close());

      test('opened at 127.0.0.1, the welcome page names the address the portal works at', async () => {
        await page.goto(invitationUrl.replace('//localhost:', '//127.0.0.1:'));
        const wrong = page.getByTestId('wrong-address');
        await wrong.waitFor();
        assert.equal(await wrong.innerText(), m.wrongAddress(`http://localhost:${port}/portal/`));
        assert.equal(await page.getByRole('link', { name: m.openRightAddress }).getAttribute('href'), invitationUrl);
        await shot('wrong-address');
      });

      test('a reload of the welcome page keeps the invitation; the passkey is created after it', async () => {
        await page.goto(invitationUrl);
        await page.getByText(m.welcomeHello(fullName)).waitFor();
        assert.doesNotMatch(page.url(), /welcome\/[A-Za-z0-9_-]{20,}/);
        await page.reload();
        await page.getByText(m.welcomeHello(fullName)).waitFor();
        await shot('welcome-reloaded');
        await page.getByRole('button', { name: m.welcomeCreate }).click();
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();
      });

      test('staff record the commitment, a payment and an approved increase: the open page shows each without a reload', async () => {
        await page.goto(`http://localhost:${port}/portal/#/deals/${dealId}`);
        await page.getByTestId('current-step').getByText('Invited').waitFor();
        // Withdrawing is an exit, not a next step.
        const next = page.locator('section.next');
        assert.doesNotMatch(await next.innerText(), /Withdrawn/);

        await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
          investorUserId,
          targetStepId: step('commitment'),
          data: { committed_amount: '25000.00', currency: 'EUR' },
        });
        await page.getByTestId('current-step').getByText('Commitment').waitFor();
        assert.match(await next.innerText(), new RegExp(m.nextByStaff('Funds received').replace(/[.]/g, '\\.')));
        assert.doesNotMatch(await next.innerText(), /Withdrawn/);
        const pay = page.locator('section.pay');
        await pay
          .getByTestId('remaining')
          .getByText(/25,000\.00/)
          .waitFor();
        const reference = (await must('GET', `/console/deals/${dealId}/investors/${investorUserId}`)).paymentReference as string;

        // The bank's file of the day: the investor paid in full. The page shows it by itself.
        const statement = `date,amount,currency,reference,bank_reference\n2026-11-24,25000.00,EUR,${reference},live-${size.width}\n`;
        const imported = await checkedFetch(e.url, '/payments/statements', {
          method: 'POST',
          headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'text/csv' },
          body: statement,
        });
        assert.equal(imported.status, 201, imported.text);
        await pay.getByText(m.paidInFull).waitFor({ timeout: 30_000 });
        await page.getByTestId('current-step').getByText('Funds received').waitFor();
        assert.match(await pay.getByTestId('pay-committed').innerText(), /25,000\.00/);
        assert.match(await pay.getByTestId('received').innerText(), /25,000\.00/);
        assert.match(await pay.getByTestId('remaining').innerText(), /0\.00/);
        assert.doesNotMatch(await pay.innerText(), /Amount due/);
        await pay.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot('paid-in-full');

        // The investor asks for more; while it waits, the form is closed and says what waits.
        const change = page.locator('section.change');
        await change.getByLabel(m.editAmount).check();
        await change.getByLabel(/New amount/).fill('30000');
        await change.getByLabel(m.reason).fill('A larger allocation');
        await change.getByRole('button', { name: m.editSubmit }).click();
        await change.getByText(m.editSent).waitFor();
        await change.getByTestId('change-pending').waitFor();
        assert.ok(await change.getByRole('button', { name: m.editSubmit }).isDisabled());
        assert.ok(await change.getByLabel(m.reason).isDisabled());
        assert.match(await change.getByTestId('change-pending').innerText(), /30,000\.00/);
        assert.doesNotMatch(await page.locator('main').innerText(), UUID);
        await change.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot('change-pending');

        // Staff approve: committed 30,000, received 25,000, still to pay 5,000, and the code says and encodes 5,000.
        const pending = await must('GET', `/console/edit-requests?dealId=${dealId}`);
        const request = pending.output.find((r: { investorUserId: string }) => r.investorUserId === investorUserId);
        await must('POST', `/deals/request-to-edit/${request.id}/approve`, { reason: 'Allocation confirmed' });
        await pay
          .getByTestId('remaining')
          .getByText(/5,000\.00/)
          .waitFor({ timeout: 30_000 });
        assert.match(await pay.getByTestId('pay-committed').innerText(), /30,000\.00/);
        assert.match(await pay.getByTestId('received').innerText(), /25,000\.00/);
        assert.match(await page.getByTestId('committed').innerText(), /30,000\.00/);
        const qr = page.getByTestId('epc-qr');
        await qr.waitFor();
        assert.equal(await qr.getAttribute('alt'), m.qrAlt('€5,000.00', reference));
        await qr.scrollIntoViewIfNeeded();
        const png = PNG.sync.read(await qr.screenshot());
        const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
        assert.ok(decoded, 'the QR code decodes');
        assert.equal(decoded.data.split('\n')[7], 'EUR5000.00');
        // A phone cannot scan its own screen: there the caption points to the details to copy.
        const phone = size.width < 720;
        assert.equal(await pay.getByText(m.qrExplainPhone).isVisible(), phone);
        assert.equal(await pay.getByText(m.qrExplain).isVisible(), !phone);
        await pay.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await shot('increase-approved');
        assert.doesNotMatch(await page.locator('main').innerText(), UUID);
      });
    });
  }
});
