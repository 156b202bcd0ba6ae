// The operations console end to end, at 1440×900 and at 390×844, against the real service: sign in
// (kept on the device, then signed out), create a deal and a branched workflow in the editor (a
// problem shown beside its step before saving), import investors from a CSV into it (a row with a
// problem left out), move one and undo, move several with a result per investor (one refused by a
// KYC requirement), filter and export, decide an edit request from the inbox, read the activity
// feed and open an investor from it; a booking the service refuses names the refused field in an
// alert that takes the focus. Every screen is checked with axe-core (no violation of any
// impact) and, at 390 px, for horizontal scrolling (only the board's columns may scroll sideways).
// Screenshots go to test-results/screenshots/ (ignored by git); `npm run screenshots` writes the few
// the README and docs/ show to docs/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { checkScreen as harnessCheckScreen, demoDealId, skipE2e, startE2e, type E2e, waitForExpression } from './harness.ts';

/** The screens the docs show: `npm run screenshots` (SCREENSHOT_DIR) refreshes these in docs/. */
const readmeShots = new Set([
  'workflow-editor-1440',
  'board-filtered-1440',
  'inbox-1440',
  'import-summary-1440',
  'bulk-results-390',
  'table-390',
  'board-dark-360',
  'activity-light-360',
]);
const sizes = [
  { width: 1440, height: 900, investors: 50 },
  { width: 390, height: 844, investors: 12 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const checkScreen = (page: Page, name: string, width: number) =>
  harnessCheckScreen(page, { prefix: 'console', name, width, readme: readmeShots.has(`${name}-${width}`) });

describe('operations console, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  // A fresh `npm start -- --no-demo`: everything the tests use is made in the browser (or, for the
  // screen sweep and the investor's own edit request, through the API).
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const dealId = `console-${size.width}`;
      const step = (name: string) => `${dealId}:${name}`;
      const investorId = (n: number) => `c${size.width}-${String(n).padStart(4, '0')}`;
      let context: BrowserContext;
      let page: Page;
      const go = async (hash: string) => {
        await page.goto(`${e.url}/console/#/${hash}`);
      };
      const where = async (id: string) => (await e.api('GET', `/console/deals/${dealId}/investors/${id}`)).body.stepId as string;
      const phone = size.width < 500;
      /** On a phone the board shows one step at a time: shows `stepId`'s column with the switcher. */
      const showStep = async (stepId: string) => {
        if (!phone) return;
        await page.getByRole('group', { name: 'Step shown' }).getByRole('combobox').selectOption(stepId);
        await page.locator(`.board .column[data-step-id="${stepId}"]`).waitFor();
      };
      /** On a phone the view's actions (density, import, export) open with More. */
      const openActions = async () => {
        if (!phone) return;
        const more = page.getByRole('button', { name: 'More', exact: true });
        if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
      };

      before(async () => {
        context = await e.browser.newContext({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1, acceptDownloads: true });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
      });
      after(() => context?.close());

      test('sign in kept on this device opens a second tab signed in; sign out clears it', async () => {
        await page.goto(`${e.url}/console/`);
        await checkScreen(page, 'sign-in', size.width);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('checkbox', { name: /Keep me signed in/ }).check();
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await page.getByText('first-run admin').waitFor();
        const second = await context.newPage();
        await second.goto(`${e.url}/console/`);
        await second.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await second.close();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('button', { name: 'Sign in with the key' }).waitFor();
        assert.equal(await page.evaluate(() => localStorage.getItem('dealflow.console.token')), null);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await checkScreen(page, 'deals', size.width);
      });

      test('a deal and a branched workflow are created in the editor; a problem shows beside its step before saving', async () => {
        await page.getByRole('link', { name: 'New deal' }).click();
        await page.getByRole('heading', { name: 'New deal' }).waitFor();
        await page.getByLabel('Name', { exact: true }).fill(`Console ${size.width}`);
        assert.equal(await page.getByLabel(/^Deal id/).inputValue(), dealId);
        await page.getByLabel(/^Currency/).selectOption('EUR');
        await checkScreen(page, 'deal-new', size.width);
        await page.getByRole('button', { name: /Create deal/ }).click();
        await page.getByRole('heading', { name: 'Workflow', exact: true }).waitFor();
        for (const label of ['Interest', 'Commitment', 'KYC', 'Complete', 'Withdrawn']) {
          await page.getByLabel('New step').fill(label);
          await page.getByRole('button', { name: 'Add step' }).click();
          await page.locator(`li.step-editor[data-step-id="${step(label.toLowerCase())}"]`).waitFor();
        }
        const editor = (name: string) => page.locator(`li.step-editor[data-step-id="${step(name)}"]`);
        // The type is guessed from the name (and stays editable); no link is added by itself.
        assert.equal(await editor('complete').getByLabel('Type').inputValue(), 'complete');
        assert.equal(await editor('withdrawn').getByLabel('Type').inputValue(), 'withdrawn');
        assert.equal(await editor('kyc').getByLabel('Type').inputValue(), 'default');
        assert.equal(await page.locator('.graph-frame path.graph-edge').count(), 0);
        const commitment = editor('commitment');
        for (const [n, key, kind] of [
          [0, 'committed_amount', 'amount'],
          [1, 'currency', 'currency'],
          [2, 'committed_amount', 'text'],
        ] as const) {
          await commitment.getByRole('button', { name: 'Add field' }).click();
          await commitment.getByLabel('Key').nth(n).fill(key);
          await commitment.getByLabel('Kind').nth(n).selectOption(kind);
          if (n < 2) await commitment.getByLabel('Required').nth(n).check();
        }
        // The duplicate key is reported beside the Commitment step, before any save.
        await commitment
          .getByRole('list', { name: 'Problems with Commitment' })
          .getByText(/used twice/)
          .waitFor();
        assert.ok(await page.getByRole('button', { name: 'Save workflow' }).isDisabled());
        await commitment.getByRole('button', { name: 'Remove field committed_amount' }).nth(1).click();
        await commitment.getByRole('list', { name: 'Problems with Commitment' }).waitFor({ state: 'detached' });
        // A number field: offered as "Number", saved as the kind number.
        await commitment.getByRole('button', { name: 'Add field' }).click();
        await commitment.getByLabel('Key').nth(2).fill('shares');
        await commitment.getByLabel('Kind').nth(2).selectOption({ label: 'Number' });
        const kyc = editor('kyc');
        await kyc.getByRole('button', { name: 'Add requirement' }).click();
        await kyc.getByLabel('Minimum level').fill('2');
        for (const [from, name, to, toName] of [
          ['interest', 'Interest', 'commitment', 'Commitment'],
          ['commitment', 'Commitment', 'kyc', 'KYC'],
          ['kyc', 'KYC', 'complete', 'Complete'],
          ['interest', 'Interest', 'withdrawn', 'Withdrawn'],
          ['commitment', 'Commitment', 'withdrawn', 'Withdrawn'],
        ] as const) {
          await editor(from).getByLabel(`Add a link from ${name} to`).selectOption(step(to));
          await editor(from)
            .getByRole('button', { name: `Add the link from ${name} to ${toName}` })
            .click();
        }
        // The preview draws the links added through the menus, as every other link.
        const preview = page.locator('.graph-frame');
        for (const from of ['interest', 'commitment']) await preview.locator(`path.graph-edge[data-edge="${step(from)}->${step('withdrawn')}"]`).waitFor();
        assert.equal(await preview.locator('path.graph-edge').count(), 5);
        await page.getByText('No problems found.').waitFor();
        await checkScreen(page, 'workflow-editor', size.width);
        await page.getByRole('button', { name: 'Save workflow' }).click();
        await page.getByText('Saved.').waitFor();
        const saved = (await e.api('GET', `/deals/deal/${dealId}/workflow-status`)).body;
        assert.equal(saved.steps.length, 5);
        const links = saved.steps
          .flatMap((s: { nextStepLinks: { fromStepId: string; toStepId: string }[] }) => s.nextStepLinks.map((l) => `${l.fromStepId}>${l.toStepId}`))
          .sort();
        assert.deepEqual(
          links,
          [
            `${step('commitment')}>${step('kyc')}`,
            `${step('commitment')}>${step('withdrawn')}`,
            `${step('interest')}>${step('commitment')}`,
            `${step('interest')}>${step('withdrawn')}`,
            `${step('kyc')}>${step('complete')}`,
          ].sort(),
        );
        const commitmentStep = saved.steps.find((s: { id: string }) => s.id === step('commitment'));
        assert.deepEqual(
          commitmentStep.stepFields.map((f: { fieldKey: string; kind: string; required: boolean }) => [f.fieldKey, f.kind, f.required]),
          [
            ['committed_amount', 'amount', true],
            ['currency', 'currency', true],
            ['shares', 'number', false],
          ],
        );
        const kycStep = saved.steps.find((s: { id: string }) => s.id === step('kyc'));
        assert.deepEqual(kycStep.requirements, [{ kind: 'kyc-level', minimumLevel: 2 }]);
      });

      test('investors are imported from a CSV through the import API: a dry-run preview, per-row errors and the summary', async () => {
        const lines = ['id,forename,surname,email,kyc_level,classifications,status'];
        for (let n = 1; n <= size.investors; n++) {
          // Names sort as the ids do (the board's columns are virtualised, ordered by name); the third
          // looks like a spreadsheet formula, for the export.
          const forename = n === 3 ? '=SUM(A1)' : `P${String(n).padStart(2, '0')}`;
          lines.push(
            `${investorId(n)},${forename},Console${size.width},c${size.width}.${n}@example.com,${n % 2 === 0 ? 1 : 2},${n % 3 === 0 ? 'Professional' : 'Retail'},active`,
          );
        }
        // One row the page refuses itself (no surname), one only the service refuses (a status too long).
        lines.push(`${investorId(999)},NoSurname,,bad@example.com,1,Retail,active`);
        lines.push(`${investorId(998)},Long,Status,long@example.com,1,Retail,${'x'.repeat(60)}`);
        await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Board' }).click();
        await openActions();
        await page.getByRole('link', { name: 'Import investors' }).click();
        await page.getByRole('heading', { name: /Import investors/ }).waitFor();
        const imports: string[] = [];
        const record = (request: Request) => {
          const url = new URL(request.url());
          if (url.pathname.includes('/investors/') && request.method() !== 'GET') imports.push(`${request.method()} ${url.pathname}${url.search}`);
        };
        page.on('request', record);
        await page.getByLabel('Or paste the CSV').fill(lines.join('\n'));
        await page.getByText(`${size.investors + 2} rows: ${size.investors + 1} ready to import, 1 with problems (left out).`).waitFor();
        // The preview is the service's dry run: the row only it refuses shows its error.
        await page.getByTestId('import-check').getByText(`${size.investors} new, 0 to update, 0 unchanged, 1 refused.`).waitFor();
        await page
          .locator('tr.row-invalid')
          .filter({ hasText: investorId(998) })
          .getByText(/status/)
          .waitFor();
        assert.equal(await page.locator('select[name="placementDeal"]').inputValue(), dealId);
        await checkScreen(page, 'import-preview', size.width);
        await page.getByRole('button', { name: `Import ${size.investors + 1} investors` }).click();
        const summary = page.getByTestId('import-summary');
        await summary.getByText(`${size.investors} created, 0 updated, 0 unchanged, 2 refused.`).waitFor({ timeout: 60_000 });
        await summary.getByText(`${size.investors} placed in the deal.`).waitFor({ timeout: 60_000 });
        await summary.getByText(/Line \d+: surname/).waitFor();
        await summary.getByText(new RegExp(`Line \\d+ \\(${investorId(998)}\\): .*status`)).waitFor();
        await checkScreen(page, 'import-summary', size.width);
        // The import API, not a PUT per investor: dry runs for the preview, then one import.
        page.off('request', record);
        assert.deepEqual([...new Set(imports)], ['POST /investors/import?dryRun=true', 'POST /investors/import'], imports.join('\n'));
        assert.equal(await where(investorId(1)), step('interest'));
        const directory = (await e.api('GET', `/console/investors?query=Console${size.width}&limit=100`)).body;
        assert.equal(directory.total, size.investors);
      });

      test('one investor moves through the dialog, and Undo moves them back', async () => {
        await page.getByRole('link', { name: "Open the deal's board" }).click();
        const card = page.locator(`.card[data-investor-id="${investorId(1)}"]`);
        await card.waitFor();
        await checkScreen(page, 'board', size.width);
        // Escape closes the card menu and returns focus to the button that opened it.
        const trigger = page.getByRole('button', { name: `Actions for P01 Console${size.width}` });
        await trigger.click();
        await page.getByRole('menuitem', { name: 'Move to Commitment' }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('menu').waitFor({ state: 'detached' });
        assert.equal(await trigger.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus is back on the menu button');
        await trigger.click();
        await page.getByRole('menuitem', { name: 'Move to Commitment' }).click();
        const dialog = page.getByRole('dialog', { name: `Move P01 Console${size.width}` });
        await dialog.getByRole('button', { name: 'Move to Commitment' }).click();
        await dialog.getByTestId('move-refusal').waitFor();
        await page.locator('#move-field-committed_amount').fill('75000');
        await dialog.getByTestId('move-refusal').waitFor({ state: 'detached' });
        await page.locator('#move-field-currency').selectOption('GBP');
        // The number field: a decimal keypad, checked as the service checks it before anything is sent.
        const shares = page.locator('#move-field-shares');
        assert.equal(await shares.getAttribute('inputmode'), 'decimal');
        await shares.fill('1,200');
        await dialog.getByText(/^Enter a number such as 12, -3\.5 or 0\.25/).waitFor();
        await shares.fill('1200.5');
        await dialog.getByText(/^Enter a number such as 12/).waitFor({ state: 'detached' });
        await dialog.getByRole('button', { name: 'Move to Commitment' }).click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('status').filter({ hasText: 'moved to Commitment' }).waitFor();
        assert.equal(await where(investorId(1)), step('commitment'));
        const moved = (await e.api('GET', `/deals/deal/${dealId}/investor-data/${investorId(1)}`)).body.journey.at(-1);
        assert.equal(moved.data.shares, '1200.5', 'stored as typed');
        await showStep(step('commitment'));
        await page
          .locator(`.column[data-step-id="${step('commitment')}"] .card[data-investor-id="${investorId(1)}"]`)
          .getByText('75,000.00 GBP')
          .waitFor();
        await page.getByRole('button', { name: 'Undo' }).click();
        await page.getByRole('status').filter({ hasText: 'Undone' }).waitFor();
        assert.equal(await where(investorId(1)), step('interest'));
        await showStep(step('interest'));
        // The service's undo of the move's batch, not a move made by the browser: the new event is an undo naming the move.
        const [latest] = (await e.api('GET', `/console/deals/${dealId}/activity?limit=1`)).body.output;
        assert.equal(latest.batch?.kind, 'undo');
        assert.ok(latest.batch?.undoes, 'the undo names the batch it undid');
      });

      test('several investors move together, each with its own result (one refused by the KYC requirement)', async () => {
        for (const n of [1, 2, 3]) await page.locator(`.card[data-investor-id="${investorId(n)}"] input.card-check`).check();
        await page.getByText('3 investors selected').waitFor();
        await page.getByRole('button', { name: 'Move selected…' }).click();
        let dialog = page.getByRole('dialog', { name: 'Move 3 investors' });
        await dialog.getByLabel('Target step').selectOption(step('commitment'));
        await page.locator('#bulk-field-committed_amount').fill('1000.00');
        await page.locator('#bulk-field-currency').selectOption('EUR');
        await checkScreen(page, 'bulk-move', size.width);
        await dialog.getByRole('button', { name: 'Move 3 investors to Commitment' }).click();
        dialog = page.getByRole('dialog', { name: 'Moved 3 of 3 investors' });
        await dialog.waitFor();
        await dialog.getByRole('button', { name: 'Done' }).click();
        for (const n of [1, 2, 3]) assert.equal(await where(investorId(n)), step('commitment'));
        // Investor 2 has KYC level 1, investor 1 level 2: KYC needs 2.
        await showStep(step('commitment'));
        const column = page.locator(`.column[data-step-id="${step('commitment')}"]`);
        for (const n of [1, 2]) await column.locator(`.card[data-investor-id="${investorId(n)}"] input`).check();
        await page.getByRole('button', { name: 'Move selected…' }).click();
        dialog = page.getByRole('dialog', { name: 'Move 2 investors' });
        await dialog.getByLabel('Target step').selectOption(step('kyc'));
        await dialog.getByRole('button', { name: 'Move 2 investors to KYC' }).click();
        const results = page.getByTestId('bulk-results');
        await results.waitFor();
        const text = await results.innerText();
        assert.match(text, /P01 Console\d+: moved to KYC/);
        assert.match(text, /P02 Console\d+: not moved\. .*KYC check level is 1; at least 2 is required/);
        await checkScreen(page, 'bulk-results', size.width);
        await page.getByRole('button', { name: 'Done' }).click();
        assert.equal(await where(investorId(1)), step('kyc'));
        assert.equal(await where(investorId(2)), step('commitment'));
      });

      test('filters are kept in the URL, the table shows the same view, and the export neutralises formulas', async () => {
        await page.getByRole('button', { name: /^Filters/ }).click();
        await page.getByLabel('Committed from').fill('500');
        await waitForExpression(page, "location.hash.includes('minAmount=500')");
        await page.getByText('3 investors of Console').waitFor();
        await checkScreen(page, 'board-filtered', size.width);
        const query = page.url().split('?')[1]!;
        await go(`deals/${dealId}/table?${query}`);
        await page.locator('tbody tr').first().waitFor();
        assert.equal(await page.locator('tbody tr').count(), 3);
        // Column headers sort on a wide screen; the stacked phone table has the sort menu.
        if (size.width > 500) await page.getByRole('button', { name: /^Investor/ }).click();
        else await page.getByRole('combobox', { name: 'Sort investors' }).selectOption('name:desc');
        await waitForExpression(page, "location.hash.includes('order=desc')");
        await checkScreen(page, 'table', size.width);
        await openActions();
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
        const filtered = readFileSync((await download.path())!, 'utf8')
          .trim()
          .split('\n');
        assert.equal(filtered.length, 4, 'a header and the 3 filtered investors');
        assert.match(filtered[0]!, /^investor_id,full_name,email,step/);
        assert.ok(
          filtered.some((line) => line.includes("'=SUM(A1)")),
          'the formula-looking name is exported as text',
        );
      });

      test('an edit request is badged on its card and decided from the inbox with a reason', async () => {
        const journey = (await e.api('GET', `/deals/deal/${dealId}/investor-data/${investorId(3)}`)).body.journey;
        const created = await e.api('POST', '/deals/request-to-edit', {
          workflowEventId: journey.at(-1).id,
          type: 'Investment Amount',
          reason: 'Bonus came early',
          newData: { committed_amount: '2500.00' },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        await go(`deals/${dealId}`);
        await showStep(step('commitment'));
        await page
          .locator(`.card[data-investor-id="${investorId(3)}"]`)
          .getByText('edit request')
          .waitFor();
        await page.getByRole('link', { name: /^Inbox/ }).click();
        const item = page.locator(`[data-request-id="${created.body.id}"]`);
        await item.getByText('Bonus came early').waitFor();
        await item.getByText('2,500.00').waitFor();
        await checkScreen(page, 'inbox', size.width);
        await item.getByRole('button', { name: 'Approve…' }).click();
        const dialog = page.getByRole('dialog', { name: /Approve .*request\?/ });
        await dialog.getByLabel(/Reason/).fill('Checked with the investor');
        await checkScreen(page, 'inbox-confirm', size.width);
        await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'approved' }).waitFor();
        const decided = (await e.api('GET', `/deals/request-to-edit/${created.body.id}`)).body;
        assert.deepEqual([decided.status, decided.decisionReason], ['approved', 'Checked with the investor']);
        // The result exported from the board: the approved amount, and no request pending any more.
        await go(`deals/${dealId}`);
        await showStep(step('commitment'));
        await page.locator(`.card[data-investor-id="${investorId(3)}"]`).waitFor();
        await openActions();
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
        const exported = readFileSync((await download.path())!, 'utf8')
          .trim()
          .split('\n');
        assert.equal(exported.length, size.investors + 1, 'a header and every investor of the deal');
        const row = exported.find((line) => line.startsWith(`${investorId(3)},`))!;
        assert.match(row, /,Commitment,.*,2500\.00,EUR,,,RF\d+,2,Professional,0\r?$/, 'nothing received yet, then the payment reference');
      });

      test('the activity feed says who did what and when, and opens the investor in a modal drawer', async () => {
        await go(`deals/${dealId}/activity`);
        const moved = page
          .locator('.activity-item[data-type="journey.step-entered"]')
          .filter({ hasText: `P02 Console${size.width}` })
          .first();
        await moved.waitFor();
        // P02 moved with two others in one bulk move: one entry with its count, the names under Who.
        assert.match(await moved.innerText(), /first-run admin moved 3 investors from Interest to Commitment/);
        await moved.getByText('Who').click();
        await page
          .locator('.activity-item[data-type="edit-request.approved"]')
          .getByText(/approved .*Investment Amount request/)
          .waitFor();
        await checkScreen(page, 'activity', size.width);
        await moved.getByRole('link', { name: `P02 Console${size.width}` }).click();
        const drawer = page.getByRole('dialog', { name: `P02 Console${size.width}` });
        await drawer.locator('.timeline-item').first().waitFor();
        assert.equal(await drawer.evaluate((el) => el.matches(':modal')), true, 'the drawer is a modal dialog');
        await drawer
          .getByText(/by first-run admin/)
          .first()
          .waitFor();
        await checkScreen(page, 'drawer', size.width);
        await page.keyboard.press('Escape');
        await drawer.waitFor({ state: 'detached' });
      });

      test('an unknown deal or investor shows a not-found page with a way back', async () => {
        await go('deals/no-such-deal');
        await page.getByRole('heading', { name: 'Not found' }).waitFor();
        await checkScreen(page, 'not-found', size.width);
        await go('investors/no-such-investor');
        await page.getByRole('heading', { name: 'Not found' }).waitFor();
        await page.getByRole('link', { name: 'Back to the deals' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
      });

      test('the directory, webhooks, subscriptions, settings and graph screens pass axe-core', async () => {
        await go('investors');
        await page
          .locator(`[data-investor-id="${investorId(1)}"]`)
          .or(page.getByRole('searchbox'))
          .first()
          .waitFor();
        await page.getByRole('searchbox').fill(`Console${size.width}`);
        await page.getByText(`${size.investors} investors`).waitFor();
        await checkScreen(page, 'investors', size.width);
        await go(`investors/${investorId(1)}`);
        await page.getByLabel('KYC level').waitFor();
        await checkScreen(page, 'investor-form', size.width);
        await go('webhooks');
        await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
        await checkScreen(page, 'webhooks', size.width);
        await go('subscriptions');
        await page.getByRole('heading', { name: 'Subscription transactions' }).waitFor();
        await checkScreen(page, 'subscriptions', size.width);
        await go(`deals/${dealId}/settings`);
        await page.getByLabel('Name', { exact: true }).waitFor();
        await checkScreen(page, 'settings', size.width);
        await go(`deals/${dealId}/graph`);
        await page.locator('.node').first().waitFor();
        await page.getByRole('link', { name: /^KYC/ }).click();
        await waitForExpression(page, "location.hash.includes('step=')");
        await page.locator('.column').first().waitFor();
        assert.equal(await page.locator('.column').count(), 1, 'the board filtered to the step');
      });

      test('a form the service refuses says so in one alert, naming the refused field, and the alert takes the focus', async () => {
        await go('subscriptions');
        await page.getByRole('button', { name: 'Book a subscription…' }).click();
        // The list's filters have the same labels: the booking form's own fields.
        const form = page.locator('form.booking');
        await form.getByLabel('Asset id', { exact: true }).fill('1');
        await form.getByLabel('Investor id', { exact: true }).fill(investorId(1));
        // Zero units pass the page's decimal check; the service's schema refuses them (400, errors[]).
        await form.getByLabel('Units', { exact: true }).fill('0');
        await form.getByLabel('Price per unit', { exact: true }).fill('12.50');
        // From the keyboard: Book is disabled while its call runs, which drops the focus to the page.
        await form.getByRole('button', { name: 'Book', exact: true }).focus();
        await page.keyboard.press('Enter');
        const refusal = form.getByRole('alert');
        await refusal.getByRole('listitem').filter({ hasText: 'units' }).waitFor();
        assert.match(await refusal.innerText(), /Invalid body: units/);
        assert.equal(await page.evaluate("document.activeElement?.getAttribute('role')"), 'alert', 'the refusal has the focus');
        await checkScreen(page, 'booking-refused', size.width);
        const booked = await e.api('GET', `/portfolio/transactions/subscriptions?investor_id=${investorId(1)}`);
        assert.deepEqual(booked.body.output, [], 'nothing booked');
      });
    });
  }

  // Every screen at the narrowest width the console supports (360 px), in the light theme and in
  // the dark one (prefers-color-scheme: dark): no axe-core violation, nothing clipped sideways.
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`every screen at 360 px in the ${colorScheme} theme: no axe violation, no sideways scroll`, {
      skip: process.env.E2E_WIDTH && process.env.E2E_WIDTH !== '360' ? 'E2E_WIDTH' : false,
    }, async () => {
      const { dealId } = await demoDealId(e);
      const investors = (await e.api('GET', `/console/deals/${dealId}/rows?limit=100`)).body.output as {
        investorUserId: string;
        fullName: string;
        stepId: string;
      }[];
      const committed = investors.find((r) => r.stepId.endsWith('commitment'))!;
      const atInterest = investors.find((r) => r.stepId.endsWith('interest'))!;
      const journey = (await e.api('GET', `/deals/deal/${dealId}/investor-data/${committed.investorUserId}`)).body.journey;
      const pending = (await e.api('GET', `/console/edit-requests?dealId=${dealId}`)).body.total;
      if (pending === 0) {
        const request = await e.api('POST', '/deals/request-to-edit', {
          workflowEventId: journey.at(-1).id,
          type: 'Investment Amount',
          reason: 'Sweep',
          newData: { committed_amount: '60000.00' },
        });
        assert.equal(request.status, 201, JSON.stringify(request.body));
      }
      const context = await e.browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 1, colorScheme });
      try {
        await context.addInitScript((token) => sessionStorage.setItem('dealflow.console.token', token), e.adminToken);
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        const name = (screen: string) => `${screen}-${colorScheme}`;
        const visit = async (hash: string, ready: (page: Page) => Promise<unknown>, screen: string) => {
          await page.goto(`${e.url}/console/#/${hash}`);
          await ready(page);
          await checkScreen(page, name(screen), 360);
        };
        await visit('', (p) => p.getByRole('heading', { name: 'Deals', exact: true }).waitFor(), 'deals');
        await visit('deals/new', (p) => p.getByRole('heading', { name: 'New deal' }).waitFor(), 'deal-new');
        await visit(`deals/${dealId}/workflow`, (p) => p.getByText('No problems found.').waitFor(), 'workflow-editor');
        await visit(`deals/${dealId}/settings`, (p) => p.getByLabel('Name', { exact: true }).waitFor(), 'settings');
        await visit(`deals/${dealId}/graph`, (p) => p.locator('.node').first().waitFor(), 'graph');
        await visit(`deals/${dealId}`, (p) => p.locator('.card').first().waitFor(), 'board');
        await page.getByRole('button', { name: `Actions for ${atInterest.fullName}` }).click();
        await page.getByRole('menu').waitFor();
        await checkScreen(page, name('card-menu'), 360);
        await page.getByRole('menuitem').first().click();
        await page.getByRole('dialog', { name: `Move ${atInterest.fullName}` }).waitFor();
        await checkScreen(page, name('move-dialog'), 360);
        await page.keyboard.press('Escape');
        await page.locator(`.card[data-investor-id="${atInterest.investorUserId}"] input.card-check`).check();
        await page.getByRole('button', { name: 'Move selected…' }).click();
        await page.getByRole('dialog', { name: 'Move 1 investor' }).waitFor();
        await checkScreen(page, name('bulk-move'), 360);
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: /^Filters/ }).click();
        await checkScreen(page, name('board-filters'), 360);
        await visit(`deals/${dealId}/table`, (p) => p.locator('tbody tr').first().waitFor(), 'table');
        await visit(`deals/${dealId}/activity`, (p) => p.locator('.activity-item').first().waitFor(), 'activity');
        await visit(
          `deals/${dealId}/investors/${committed.investorUserId}`,
          (p) => p.getByRole('dialog', { name: committed.fullName }).locator('.timeline-item').first().waitFor(),
          'drawer',
        );
        await visit('inbox', (p) => p.locator('[data-request-id]').first().waitFor(), 'inbox');
        await page.locator('[data-request-id]').first().getByRole('button', { name: 'Approve…' }).click();
        await page.getByRole('dialog', { name: /Approve .*request\?/ }).waitFor();
        await checkScreen(page, name('inbox-confirm'), 360);
        await page.keyboard.press('Escape');
        await visit('investors', (p) => p.locator('[data-investor-id]').first().waitFor(), 'investors');
        await visit(`investors/${committed.investorUserId}`, (p) => p.getByLabel('KYC level').waitFor(), 'investor-form');
        await visit('investors/new', (p) => p.getByLabel('KYC level').waitFor(), 'investor-new');
        await visit(`investors/import?deal=${dealId}`, (p) => p.getByLabel('Or paste the CSV').waitFor(), 'import');
        await page
          .getByLabel('Or paste the CSV')
          .fill(
            `id,forename,surname,email,kyc_level,classifications\nsweep-${colorScheme}-1,Wide,${'Name'.repeat(12)},a-very-long-address-${'x'.repeat(30)}@example.com,2,Professional;Retail\nsweep-${colorScheme}-2,No,,x@example.com,1,Retail`,
          );
        await page
          .getByTestId('import-check')
          .getByText(/service's check/)
          .waitFor();
        await checkScreen(page, name('import-preview'), 360);
        await visit('webhooks', (p) => p.getByRole('heading', { name: 'Webhook deliveries' }).waitFor(), 'webhooks');
        await visit('subscriptions', (p) => p.getByRole('heading', { name: 'Subscription transactions' }).waitFor(), 'subscriptions');
        await visit('deals/no-such-deal', (p) => p.getByRole('heading', { name: 'Not found' }).waitFor(), 'not-found');
        await page.evaluate(() => sessionStorage.clear());
        await visit('', (p) => p.getByRole('button', { name: 'Sign in with the key' }).waitFor(), 'sign-in');
      } finally {
        await context.close();
      }
    });
  }
});
