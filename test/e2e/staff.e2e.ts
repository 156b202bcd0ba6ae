// Staff people end to end, at 1440×900 and 390×844 (the sign-in, join and People screens in both
// themes, the others in the light one): the first admin signs in with the key the service printed
// and, on the People page, invites an operator and a viewer; each
// opens their link in their own browser (Chromium with a virtual WebAuthn authenticator, as the
// investor portal's test does), creates a passkey and is signed in with their role. The operator
// renames the deal and sees no admin action on the People page; the viewer finds the writes
// disabled, saying the role they need, signs out and back in with the passkey; the admin
// deactivates the operator, whose next step lands on the sign-in screen. axe-core on every screen,
// no sideways scroll at 390 px. The console's origin is http://localhost (a WebAuthn relying party
// is a host name, and Chromium keeps the Secure cookie on localhost over plain http).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { checkScreen as harnessCheckScreen, demoDealId, freePort, investorBrowser, skipE2e, startE2e, waitForExpression, type E2e } from './harness.ts';

const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const checkScreen = (page: Page, name: string, width: number) => harnessCheckScreen(page, { prefix: 'staff', name, width });
/** A screen in the light theme, then the dark one. */
async function checkBoth(page: Page, name: string, width: number) {
  await checkScreen(page, name, width);
  await page.emulateMedia({ colorScheme: 'dark' });
  await checkScreen(page, `${name}-dark`, width);
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('staff people: invited, signed in with a passkey, acting with their role', { skip: skipE2e }, () => {
  let e: E2e;
  let consoleUrl: string;
  let dealId: string;

  before(async () => {
    const port = await freePort();
    e = await startE2e({ env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` } });
    consoleUrl = `http://localhost:${port}/console/`;
    ({ dealId } = await demoDealId(e));
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const { width } = size;
      const phone = width < 500;
      const operator = { name: `Olivia Operator ${width}`, email: `olivia-${width}@example.com` };
      const viewer = { name: `Victor Viewer ${width}`, email: `victor-${width}@example.com` };
      const links: Record<string, string> = {};
      let admin: BrowserContext;
      let adminPage: Page;
      let operatorBrowser: { context: BrowserContext; page: Page };
      let viewerBrowser: { context: BrowserContext; page: Page };
      const cspViolations: string[] = [];
      const watch = (page: Page) => page.on('console', (m) => /Content Security Policy/i.test(m.text()) && cspViolations.push(m.text()));

      before(async () => {
        admin = await e.browser.newContext({ viewport: size, deviceScaleFactor: 1 });
        adminPage = await admin.newPage();
        adminPage.setDefaultTimeout(15_000);
        watch(adminPage);
        operatorBrowser = await investorBrowser(e, size);
        viewerBrowser = await investorBrowser(e, size);
        watch(operatorBrowser.page);
        watch(viewerBrowser.page);
      });
      after(async () => {
        await admin?.close();
        await operatorBrowser?.context.close();
        await viewerBrowser?.context.close();
      });

      const openPeople = async (page: Page) => {
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'People' }).click();
        await page.getByRole('heading', { name: 'People', exact: true }).waitFor();
        await page.getByRole('region', { name: 'Staff people' }).waitFor();
      };
      const row = (page: Page, name: string) => page.locator('tr', { has: page.getByText(name, { exact: true }) });

      test('the first admin signs in with the printed key and invites an operator and a viewer', async () => {
        await adminPage.goto(consoleUrl);
        await adminPage.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
        await adminPage.getByRole('heading', { name: 'First start: paste the admin key printed by the service' }).waitFor();
        await checkBoth(adminPage, 'sign-in', width);
        await adminPage.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await adminPage.getByRole('button', { name: 'Sign in with the key' }).click();
        await adminPage.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await openPeople(adminPage);
        const form = adminPage.locator('form', { has: adminPage.getByRole('heading', { name: 'Invite a person' }) });
        for (const [who, role] of [
          [operator, 'operator'],
          [viewer, 'viewer'],
        ] as const) {
          await form.getByLabel('E-mail').fill(who.email);
          await form.getByLabel('Name').fill(who.name);
          await form.getByLabel('Role').selectOption(role);
          await form.getByRole('button', { name: 'Create the invitation link' }).click();
          await form.getByText(`The link for ${who.name} (${role})`).waitFor();
          links[role] = await form.getByTestId('staff-invite-url').inputValue();
          assert.match(links[role]!, /\/console\/#\/join\/[A-Za-z0-9_-]+$/);
          await row(adminPage, who.name).waitFor();
        }
        assert.equal(
          await row(adminPage, viewer.name)
            .getByRole('combobox', { name: `Role of ${viewer.name}` })
            .inputValue(),
          'viewer',
        );
        await checkBoth(adminPage, 'people-admin', width);
      });

      test('the operator joins with a passkey, renames the deal, and has no admin action among the people', async () => {
        const { page } = operatorBrowser;
        await page.goto(links.operator!);
        await page.getByText(`Welcome, ${operator.name}.`).waitFor();
        await checkBoth(page, 'join', width);
        await page.getByRole('button', { name: 'Create your passkey' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        assert.equal(await page.getByTestId('who').innerText(), `${phone ? 'Signed in as ' : ''}${operator.name} · operator`);
        assert.ok(!page.url().includes('join'), 'the invitation leaves the address bar');
        await checkScreen(page, 'deals-operator', width);

        // A write through the cookie (with its CSRF token): the deal's name.
        await page.goto(`${consoleUrl}#/deals/${dealId}/settings`);
        const renamed = `Harbour Logistics (${width})`;
        await page.getByLabel('Name', { exact: true }).fill(renamed);
        await page.getByRole('button', { name: 'Save', exact: true }).click();
        await page.getByText('Saved.').waitFor();
        assert.equal((await e.api('GET', `/deals/deal/${dealId}`)).body.name, renamed);

        await openPeople(page);
        await row(page, operator.name).getByText('(you)').waitFor();
        assert.equal(await page.getByRole('heading', { name: 'Invite a person' }).count(), 0);
        assert.equal(await page.getByRole('combobox').count(), 0);
        assert.equal(await page.getByRole('button', { name: /Deactivate/ }).count(), 0);
        await checkScreen(page, 'people-operator', width);
      });

      test('the viewer joins, finds the writes disabled with the role they need, and signs in again with the passkey', async () => {
        const { page } = viewerBrowser;
        // Opened at another address of this host, the link says where passkeys work and leads there.
        await page.goto(links.viewer!.replace('//localhost:', '//127.0.0.1:'));
        await page.getByRole('link', { name: 'Open the invitation there' }).click();
        await page.getByText(`Welcome, ${viewer.name}.`).waitFor();
        assert.equal(page.url(), links.viewer);
        await page.getByRole('button', { name: 'Create your passkey' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        assert.equal(await page.getByTestId('who').innerText(), `${phone ? 'Signed in as ' : ''}${viewer.name} · viewer`);
        assert.equal(await page.getByRole('link', { name: 'New deal' }).count(), 0);

        await page.goto(`${consoleUrl}#/deals/${dealId}/settings`);
        const save = page.getByRole('button', { name: 'Save', exact: true });
        await save.waitFor();
        assert.ok(await save.isDisabled());
        assert.equal(await save.getAttribute('title'), 'Needs the operator role or above; yours is viewer');

        await page.goto(`${consoleUrl}#/deals/${dealId}`);
        const card = page.locator('.card[data-investor-id]').first();
        await card.waitFor();
        if (phone) await card.scrollIntoViewIfNeeded();
        await card.getByRole('button', { name: /^Actions for / }).click();
        const move = page.getByRole('menuitem', { name: 'Move to…' });
        assert.ok(await move.isDisabled());
        await checkScreen(page, 'board-viewer', width);
        await page.keyboard.press('Escape');

        const before = (await e.api('GET', `/deals/deal/${dealId}`)).body;
        await openPeople(page);
        assert.equal(await page.getByRole('heading', { name: 'Invite a person' }).count(), 0);

        // Sign out, then in again with the passkey this browser keeps.
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        await page.getByRole('heading', { name: 'People', exact: true }).waitFor();
        assert.equal(await page.getByTestId('who').innerText(), `${phone ? 'Signed in as ' : ''}${viewer.name} · viewer`);
        assert.deepEqual((await e.api('GET', `/deals/deal/${dealId}`)).body, before, 'the viewer changed nothing');
      });

      test('the admin makes the viewer an approver and deactivates the operator, whose next step lands on the sign-in screen', async () => {
        await openPeople(adminPage);
        const operatorRow = row(adminPage, operator.name);
        await operatorRow.getByRole('button', { name: 'Deactivate…' }).click();
        await checkScreen(adminPage, 'people-confirm', width);
        await operatorRow
          .getByRole('group', { name: `Deactivate ${operator.name}` })
          .getByRole('button', { name: 'Deactivate', exact: true })
          .click();
        await operatorRow.getByText('deactivated', { exact: true }).waitFor();
        await checkScreen(adminPage, 'people-deactivated', width);

        // A role changed applies from the person's next request: the viewer, reloaded, is an approver.
        await row(adminPage, viewer.name)
          .getByRole('combobox', { name: `Role of ${viewer.name}` })
          .selectOption('approver');
        await waitForExpression(
          adminPage,
          `document.querySelector('select[aria-label="Role of ${viewer.name}"]').value === 'approver' && !document.querySelector('select[aria-label="Role of ${viewer.name}"]').disabled`,
        );
        const people = (await e.api('GET', '/staff')).body.people as { name: string; role: string }[];
        assert.equal(people.find((p) => p.name === viewer.name)?.role, 'approver');
        await viewerBrowser.page.reload();
        await viewerBrowser.page.getByTestId('who').getByText(`${viewer.name} · approver`).waitFor();

        const { page } = operatorBrowser;
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Investors' }).click();
        await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
        await page.getByText(/Your session has ended/).waitFor();
        await checkScreen(page, 'signed-out', width);
        // The passkey of a deactivated person no longer signs in.
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        await page
          .getByRole('alert')
          .getByText(/not accepted/)
          .waitFor();
        assert.deepEqual(cspViolations, []);
      });
    });
  }
});
