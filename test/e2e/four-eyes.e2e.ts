// Four-eyes and single sign-on end to end, at 1440×900 and 390×844: a deal whose payment
// decisions need a second person; an approver (signed in with a passkey from their invitation)
// assigns a queued credit in one click, and the console says it waits in the Inbox; there they
// cannot approve their own; a second approver approves it in their Inbox, and the line is matched.
// Then a person signs in through the firm's identity provider (an OpenID Connect provider run by
// this test, the oidc-provider package): the console's "Sign in with …" button, the provider's
// login and consent forms, and back in the console with the role the provider's claim gives.
// An admin sets a deal's four-eyes rules in its settings (a bulk move's amount, erasure among
// them), and the API answers them so. axe-core on every console screen (the provider's own forms
// are not ours).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { investorBody } from '../support/fixtures.ts';
import { checkScreen as harnessCheckScreen, freePort, investorBrowser, skipE2e, startE2e, subscriptionDeal, type E2e } from './harness.ts';

const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const checkScreen = (page: Page, name: string, width: number) => harnessCheckScreen(page, { prefix: 'four-eyes', name, width });

describe('four-eyes payment decisions and single sign-on in the console', { skip: skipE2e }, () => {
  let e: E2e;
  let consoleUrl: string;
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;

  before(async () => {
    const port = await freePort();
    idp = await startOidcProvider(`http://localhost:${port}`);
    e = await startE2e({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://localhost:${port}`,
        ...idp.env,
      },
    });
    consoleUrl = `http://localhost:${port}/console/`;
  });
  after(async () => {
    await e?.close();
    await idp?.close();
  });

  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  /** A deal whose payment decisions need a second person, an investor committed, and their credit queued under their name. */
  async function heldDeal(width: number) {
    const dealId = `four-eyes-${width}`;
    await subscriptionDeal(e, dealId, { series: `four eyes ${width}` });
    const investor = `quinn-${width}`;
    await must('PUT', `/investors/${investor}`, investorBody({ forename: 'Quinn', surname: `Payer${width}` }));
    await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
      investorUserId: investor,
      targetStepId: `${dealId}:commitment`,
      data: { committed_amount: '5000.00', currency: 'EUR' },
    });
    await must('PUT', `/deals/deal/${dealId}/four-eyes`, { paymentDecisions: true });
    const csv = `date,amount,currency,reference,counterparty,bank_reference\n2026-11-23,5000.00,EUR,thanks,QUINN PAYER${width},FE-${width}\n`;
    const imported = await fetch(`${e.url}/payments/statements?bankReferenceColumn=bank_reference&counterpartyColumn=counterparty`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(imported.status, 201, await imported.text());
    return { dealId, investor };
  }

  const lineOf = async (width: number) =>
    ((await must('GET', '/payments/lines?limit=100')).output as { debtorName: string; status: string }[]).find((l) => l.debtorName === `QUINN PAYER${width}`)!;

  /** Invites a person and opens their link in a browser with a virtual authenticator: signed in. */
  async function joined(size: { width: number; height: number }, name: string, role: string) {
    const invitation = await must('POST', '/staff/invitations', { email: `${name.split(' ')[0]!.toLowerCase()}-${size.width}@example.com`, name, role });
    const browser = await investorBrowser(e, size);
    await browser.page.goto(invitation.url);
    await browser.page.getByRole('button', { name: 'Create your passkey' }).click();
    await browser.page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
    return browser;
  }

  const openInbox = async (page: Page) => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  };

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const { width } = size;

      test("an approver's payment decision waits for a second approver, who applies it; the first cannot approve their own", async () => {
        const { dealId } = await heldDeal(width);
        const ada = await joined(size, `Ada Approver ${width}`, 'approver');
        const ben = await joined(size, `Ben Approver ${width}`, 'approver');
        try {
          await ada.page.goto(`${consoleUrl}#/payments`);
          await ada.page.getByRole('heading', { name: 'Bank payments' }).waitFor();
          await ada.page.getByRole('button', { name: new RegExp(`^Assign to Quinn Payer${width} .* from QUINN PAYER${width}$`) }).click();
          await ada.page.getByText(/waits for a second approver \(Inbox\)/).waitFor();
          await checkScreen(ada.page, 'held', width);
          assert.equal((await lineOf(width)).status, 'queued', 'nothing applied yet');

          await openInbox(ada.page);
          const item = ada.page.locator('li[data-proposal-id]', { hasText: dealId });
          const approve = item.getByRole('button', { name: 'Approve', exact: true });
          await approve.waitFor();
          assert.ok(await approve.isDisabled(), 'the proposer cannot approve');
          assert.equal(await approve.getAttribute('title'), 'You proposed this: a second person decides it');
          await checkScreen(ada.page, 'inbox-proposer', width);

          await openInbox(ben.page);
          const theirs = ben.page.locator('li[data-proposal-id]', { hasText: dealId });
          await theirs.getByRole('button', { name: 'Approve', exact: true }).click();
          await ben.page.getByText(/approved and applied/).waitFor();
          await checkScreen(ben.page, 'inbox-approved', width);
          assert.equal((await lineOf(width)).status, 'matched', 'applied on approval');
          // The proposer's Inbox follows live: the decided write leaves it.
          await item.waitFor({ state: 'detached' });
        } finally {
          await ada.context.close();
          await ben.context.close();
        }
      });

      test("an admin sets a deal's four-eyes rules on its settings page", async () => {
        const dealId = `rules-${width}`;
        await subscriptionDeal(e, dealId, { series: `rules ${width}` });
        const ari = await joined(size, `Ari Admin ${width}`, 'admin');
        try {
          await ari.page.goto(`${consoleUrl}#/deals/${dealId}/settings`);
          const form = ari.page.getByRole('form', { name: 'Four-eyes' });
          await form.waitFor();
          await form.getByLabel(/at least this many investors/).fill('25');
          await form.getByLabel(/commitments add up to at least/).fill('0');
          await form.getByRole('button', { name: 'Save the rules' }).click();
          await form.getByText('An amount greater than 0, such as 250000.00.').waitFor();
          await form.getByLabel(/commitments add up to at least/).fill('250000.00');
          await form.getByLabel(/Erasing an investor/).check();
          await form.getByRole('button', { name: 'Save the rules' }).click();
          await form.getByText(/^Saved\./).waitFor();
          await checkScreen(ari.page, 'rules', width);
          const rules = await must('GET', `/deals/deal/${dealId}/four-eyes`);
          assert.deepEqual([rules.bulkMovesFrom, rules.bulkMovesFromAmount, rules.erasure, rules.paymentDecisions], [25, '250000', true, false]);
        } finally {
          await ari.context.close();
        }
      });

      test("a person signs in through the firm's identity provider and gets the role its claim gives", async () => {
        const login = `sasha-${width}`;
        idp.accounts.set(login, { email: `sasha-${width}@example.com`, email_verified: true, name: `Sasha SSO ${width}`, dealflow_role: 'viewer' });
        const { context, page } = await investorBrowser(e, size);
        try {
          await page.goto(consoleUrl);
          const sso = page.getByRole('link', { name: 'Sign in with Fund login' });
          await sso.waitFor();
          await checkScreen(page, 'sign-in-sso', width);
          await sso.click();
          // The provider's own pages: its login form, then its consent.
          await page.locator('input[name="login"]').fill(login);
          await page.locator('input[name="password"]').fill('any');
          await page.locator('button[type="submit"]').click();
          await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();
          await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
          await page.getByTestId('who').getByText(`Sasha SSO ${width} · viewer`).waitFor();
          await checkScreen(page, 'signed-in-sso', width);
          const people = (await must('GET', '/staff')).people as { email: string; role: string }[];
          assert.equal(people.find((p) => p.email === `sasha-${width}@example.com`)?.role, 'viewer');
        } finally {
          await context.close();
        }
      });
    });
  }
});
