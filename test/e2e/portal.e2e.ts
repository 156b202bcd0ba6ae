// The investor portal end to end, against the real service, at 390×844 and 1440×900: staff set the
// deal's bank account and invite an investor from the console; the investor opens the link in
// Chromium with a virtual WebAuthn authenticator (the DevTools protocol's WebAuthn domain), creates
// a passkey, signs out and in again with it, fills the commitment form of a step open to
// investors, reads the payment instructions and the EPC QR code (decoded from its pixels: amount
// and reference), asks for a higher amount; staff approve it in the console's inbox; the investor
// sees the new amount and the decision, pays with the reference shown, and the day's bank statement
// matches them. On PGlite, and on PostgreSQL when E2E_DATABASE_URL names a server
// (`npm run test:e2e:postgres`, which CI runs). Every screen is checked in the light and the dark theme
// with axe-core (no violation) and, at 390 px, for sideways scrolling; no page breaks the
// Content-Security-Policy. The portal's origin is http://localhost (the WebAuthn relying party is
// a host name, never an IP address; Chromium counts localhost as a secure context, so the
// session's Secure cookie is kept over plain http there).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { BrowserContext, Page } from 'playwright-core';
import { m } from '../../web/portal/src/messages.ts';
import { checkedFetch } from '../support/contract.ts';
import { checkScreen as harnessCheckScreen, subscriptionDeal, e2eDatabaseUrl, freePort, investorBrowser, skipE2e, startE2e, type E2e } from './harness.ts';
import { investorBody } from '../support/fixtures.ts';

// jsqr is CommonJS: its module object is the function (with the same function as `default`).
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

const sizes = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const dealId = 'portal-e2e';
const step = (name: string) => `${dealId}:${name}`;
const IBAN = 'DE89370400440532013000';
const BIC = 'COBADEFFXXX';
const BENEFICIARY = 'Harbour Capital Fund I';

/**
 * Each screen in both themes: axe-core, no sideways scroll at 390 px, a screenshot. `docs` names
 * the widths whose light screenshot the investor portal guide shows.
 */
async function checkBoth(page: Page, name: string, width: number, docs: number[] = []) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await harnessCheckScreen(page, { prefix: 'portal', name: `${name}-${colorScheme}`, width, readme: docs.includes(width) && colorScheme === 'light' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe(`the investor portal, end to end (${e2eDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, { skip: skipE2e }, () => {
  let e: E2e;
  let portalUrl: string;
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  before(async () => {
    const port = await freePort();
    e = await startE2e({
      demo: false,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` },
      ...(e2eDatabaseUrl ? { databaseUrl: e2eDatabaseUrl } : {}),
    });
    portalUrl = `http://localhost:${port}/portal/`;
    await subscriptionDeal(e, dealId, { series: 'B', signedOn: true });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const investorUserId = `portal-investor-${size.width}`;
      const fullName = size.width < 500 ? 'Ada Lovelace' : 'Grace Hopper';
      let staff: BrowserContext;
      let investor: BrowserContext;
      let console_: Page;
      let page: Page;
      let cspViolations: string[];
      let invitationUrl: string;
      let reference: string;

      before(async () => {
        const [forename, surname] = fullName.split(' ') as [string, string];
        await must('PUT', `/investors/${investorUserId}`, investorBody({ forename, surname, dateOfBirth: null, classes: [] }));
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId, targetStepId: step('invited'), data: {} });
        staff = await e.browser.newContext({ viewport: size, deviceScaleFactor: 1 });
        await staff.addInitScript((token) => sessionStorage.setItem('dealflow.console.token', token), e.adminToken);
        console_ = await staff.newPage();
        console_.setDefaultTimeout(15_000);
        // A platform authenticator with user verification, as a phone's or a laptop's.
        ({ context: investor, page } = await investorBrowser(e, size));
        // Content-Security-Policy violations either page reports (none is allowed).
        cspViolations = [];
        for (const p of [console_, page]) p.on('console', (message) => /Content Security Policy/i.test(message.text()) && cspViolations.push(message.text()));
      });
      after(async () => {
        await staff?.close();
        await investor?.close();
      });

      test('staff set the bank account in the deal settings and invite the investor from the console', async () => {
        await console_.goto(`${e.url}/console/#/deals/${dealId}/settings`);
        const form = console_.locator('form', { has: console_.getByRole('heading', { name: 'Payments' }) });
        await form.getByLabel('Beneficiary name').fill(BENEFICIARY);
        await form.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
        await form.getByRole('button', { name: 'Save payment settings' }).click();
        await form.getByRole('alert').getByText('This IBAN is not valid').waitFor();
        await form.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
        await form.getByLabel('BIC').fill(BIC);
        await form.getByRole('button', { name: 'Save payment settings' }).click();
        await form.getByText('Payment settings saved.').waitFor();
        const settings = await must('GET', `/deals/deal/${dealId}/payment-settings`);
        assert.deepEqual([settings.beneficiaryName, settings.iban, settings.bic], [BENEFICIARY, IBAN, BIC]);

        // Many at once from the board's selection (here every investor of the deal so far): a link each.
        await console_.goto(`${e.url}/console/#/deals/${dealId}`);
        const cards = console_.locator('.card[data-investor-id] input.card-check');
        await console_.locator(`.card[data-investor-id="${investorUserId}"]`).waitFor();
        const count = await cards.count();
        for (let n = 0; n < count; n++) await cards.nth(n).check();
        await console_.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Invite to the portal…' }).click();
        // The dialog's title changes from the invitation to the links once they are made.
        const many = console_.locator('dialog.invite-dialog');
        await many
          .getByRole('heading', { name: count === 1 ? `Invite ${fullName} to the investor portal` : `Invite ${count} investors to the investor portal` })
          .waitFor();
        await many.getByRole('button', { name: count === 1 ? 'Create the link' : `Create ${count} links` }).click();
        await many
          .getByTestId('invite-url')
          .nth(count - 1)
          .waitFor();
        assert.equal(await many.getByTestId('invite-url').count(), count);
        const replaced = await many.getByLabel(fullName, { exact: true }).inputValue();
        await many.getByRole('button', { name: 'Done' }).click();

        // One from the investor's page: a new link, which replaces the one just made.
        await console_.goto(`${e.url}/console/#/investors/${investorUserId}`);
        await console_.getByRole('heading', { name: fullName }).waitFor();
        await console_.getByRole('button', { name: 'Invite to the portal…' }).click();
        const dialog = console_.getByRole('dialog', { name: `Invite ${fullName} to the investor portal` });
        await dialog.waitFor();
        await checkScreen(console_, 'console-invite', size.width);
        await dialog.getByRole('button', { name: 'Create the link' }).click();
        const url = console_.getByTestId('invite-url');
        await url.waitFor();
        invitationUrl = await url.inputValue();
        assert.match(invitationUrl, new RegExp(`^${portalUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}#/welcome/[A-Za-z0-9_-]{20,}$`));
        await console_.getByText('Not e-mailed: copy the link and send it.').waitFor();
        await checkScreen(console_, 'console-invite-link', size.width, size.width === 1440);
        await console_.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
        assert.notEqual(invitationUrl, replaced);
        const token = (url: string) => url.split('#/welcome/')[1];
        const revoked = await fetch(`${portalUrl}api/passkeys/registration-options`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ invitation: token(replaced) }),
        });
        assert.equal(revoked.status, 404, 'the earlier link no longer opens');
      });

      test('the investor opens the link and creates a passkey; signs out and in again with it', async () => {
        await page.goto(invitationUrl);
        await page.getByText(m.welcomeHello(fullName)).waitFor();
        // The invitation token leaves the address bar as soon as the page has read it.
        assert.doesNotMatch(page.url(), /welcome\/[A-Za-z0-9_-]{20,}/);
        await checkBoth(page, 'welcome', size.width, [390]);
        await page.getByRole('button', { name: m.welcomeCreate }).click();
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();
        await page.getByRole('link', { name: m.openDeal('Harbour Logistics Series B') }).waitFor();
        await checkBoth(page, 'deals', size.width, [390]);
        const cookie = (await investor.cookies()).find((c) => c.name === 'dealflow_portal');
        assert.ok(cookie, 'the session cookie is kept');
        assert.deepEqual([cookie.httpOnly, cookie.secure, cookie.sameSite], [true, true, 'Strict']);

        // A used invitation does not open again.
        await page.goto(invitationUrl);
        await page.getByText(m.welcomeInvalid).waitFor();
        await page.goto(portalUrl);
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();

        await page.locator('.account summary').click();
        await page.getByRole('button', { name: m.signOutHere }).click();
        await page.getByText(m.signedOutHere).waitFor();
        await checkBoth(page, 'sign-in', size.width, [390]);
        await page.getByRole('button', { name: m.signInButton }).click();
        await page.getByRole('heading', { name: m.dealsTitle }).waitFor();
      });

      test('the investor commits through the step open to them and sees how to pay, with the QR code', async () => {
        await page.getByRole('link', { name: m.openDeal('Harbour Logistics Series B') }).click();
        await page.getByTestId('current-step').getByText('Invited').waitFor();
        const form = page.locator('form', { has: page.getByRole('heading', { name: m.formTitle('Commitment') }) });
        await checkBoth(page, 'deal-form', size.width, [390]);
        // Refused in the page first: a required field empty, an amount in words.
        await form.getByLabel(/Committed amount/).fill('twenty thousand');
        await form.getByRole('button', { name: m.formSubmit('Commitment') }).click();
        await form.getByText(m.invalidAmount).waitFor();
        await form.getByRole('alert').getByText(m.fixFields).waitFor();
        await checkBoth(page, 'deal-form-refused', size.width);
        await form.getByLabel(/Committed amount/).fill('25000');
        await form.getByLabel(/Currency/).selectOption('EUR');
        await form.getByLabel(/Signed on/).fill('2026-11-20');
        await form.getByRole('button', { name: m.formSubmit('Commitment') }).click();
        await page.getByTestId('current-step').getByText('Commitment').waitFor();
        await page.getByRole('heading', { name: m.payTitle }).waitFor();
        const summary = await must('GET', `/console/deals/${dealId}/investors/${investorUserId}`);
        reference = summary.paymentReference;
        assert.ok(reference, 'the investor has a payment reference');
        const pay = page.locator('section.pay');
        await pay.getByText(reference, { exact: true }).waitFor();
        await pay.getByText(/DE89 3704 0044 0532 0130 00/).waitFor();
        await pay.getByText(BIC, { exact: true }).waitFor();
        await pay.getByText(BENEFICIARY, { exact: true }).waitFor();
        await pay.getByRole('button', { name: m.copyLabel(m.reference) }).waitFor();
        const qr = page.getByTestId('epc-qr');
        await qr.waitFor();
        await qr.scrollIntoViewIfNeeded();
        // The QR code decoded from the screen's pixels: the EPC069-12 payload with the amount due and the reference.
        const png = PNG.sync.read(await qr.screenshot());
        const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
        assert.ok(decoded, 'the QR code decodes');
        const lines = decoded.data.split('\n');
        assert.deepEqual(lines.slice(0, 4), ['BCD', '002', '1', 'SCT']);
        assert.equal(lines[4], BIC);
        assert.equal(lines[5], BENEFICIARY);
        assert.equal(lines[6], IBAN);
        assert.match(lines[7]!, /^EUR25000(\.00?)?$/);
        assert.ok(lines.includes(reference), `the reference ${reference} is in the QR code: ${JSON.stringify(lines)}`);
        await page.getByRole('heading', { name: m.payTitle }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
        await checkBoth(page, 'how-to-pay', size.width, [390, 1440]);
      });

      test('the investor asks for a higher amount, staff approve it in the console, the investor sees it', async () => {
        const change = page.locator('section.change');
        await change.getByLabel(m.editAmount).check();
        await change.getByLabel(/New amount/).fill('30000');
        await change.getByLabel(m.reason).fill('My bonus came early');
        await change.getByRole('button', { name: m.editSubmit }).click();
        await change.getByText(m.editSent).waitFor();
        await change.locator('.request').getByText(m.statusPending).waitFor();
        await change.locator('.request').scrollIntoViewIfNeeded();
        await checkBoth(page, 'change-requested', size.width, [390]);

        const pending = await must('GET', `/console/edit-requests?dealId=${dealId}`);
        const request = pending.output.find((r: { investorUserId: string }) => r.investorUserId === investorUserId);
        assert.ok(request, 'the request waits in the inbox');
        await console_.goto(`${e.url}/console/#/inbox`);
        const item = console_.locator(`[data-request-id="${request.id}"]`);
        await item.getByText('My bonus came early').waitFor();
        await item.getByRole('button', { name: 'Approve…' }).click();
        const dialog = console_.getByRole('dialog', { name: /Approve .*request\?/ });
        await dialog.getByLabel(/Reason/).fill('Confirmed by phone');
        await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
        await console_.getByRole('status').filter({ hasText: 'approved' }).waitFor();

        await page.reload();
        await page.getByTestId('committed').waitFor();
        assert.match(await page.getByTestId('committed').innerText(), /30,000\.00/);
        const decided = page.locator('section.change .request').first();
        await decided.getByText(m.statusApproved).waitFor();
        await decided.getByText(m.decisionNote('Confirmed by phone')).waitFor();
        const history = page.locator('section.change .history li');
        assert.equal(await history.count(), 2);
        assert.match(await history.first().innerText(), /30,000\.00/);
        assert.match(await history.last().innerText(), /25,000\.00/);
        await page.locator('section.change h3').first().scrollIntoViewIfNeeded();
        await checkBoth(page, 'change-approved', size.width, [390]);
        assert.deepEqual(cspViolations, [], 'no page breaks the Content-Security-Policy');
      });

      test('the investor pays with the shown reference: the bank statement matches them, and the portal shows it received', async () => {
        // The bank's file of the day, with the investor's transfer quoting the reference the portal showed.
        const statement = `date,amount,currency,reference,bank_reference\n2026-11-24,30000.00,EUR,${reference},portal-${size.width}\n`;
        const imported = await checkedFetch(e.url, '/payments/statements', {
          method: 'POST',
          headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'text/csv' },
          body: statement,
        });
        assert.equal(imported.status, 201, imported.text);
        await page.reload();
        await page.getByTestId('current-step').getByText('Funds received').waitFor();
        const pay = page.locator('section.pay');
        await pay.getByText(m.paidInFull).waitFor();
        assert.match(await pay.getByTestId('remaining').innerText(), /^€?0\.00/);
        const journey = await must('GET', `/deals/deal/${dealId}/investor-data/${investorUserId}`);
        assert.equal(journey.journey.at(-1).toStepId, step('payment'), 'the matched payment moved the investor to the payment step');
      });

      test('the investor chooses the language of their e-mails in the account menu', async () => {
        await page.locator('.account summary').click();
        const language = page.getByLabel(m.mailLanguage);
        await page.locator('.account select:enabled').waitFor();
        assert.equal(await language.inputValue(), 'en', 'English until chosen');
        await language.selectOption('de');
        await page.getByText(m.mailLanguageSaved).waitFor();
        await checkBoth(page, 'account-language', size.width);
        assert.deepEqual(await must('GET', `/investors/${investorUserId}/language`), { investorUserId, language: 'de', chosen: true });
        await page.locator('.account summary').click(); // closed again
      });

      test('sign out everywhere ends the session; the API then answers 401', async () => {
        await page.locator('.account summary').click();
        await page.getByRole('button', { name: m.signOutEverywhere }).click();
        await page.getByText(m.signedOutEverywhere).waitFor();
        const status = await page.evaluate(async () => (await fetch('api/session', { credentials: 'same-origin' })).status);
        assert.equal(status, 401);
      });
    });
  }
});

const checkScreen = (page: Page, name: string, width: number, readme = false) => harnessCheckScreen(page, { prefix: 'portal', name, width, readme });
