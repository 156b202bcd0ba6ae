// Filters, density and the phone's board on the demo deal, end to end at 1440×900 and 390×844, light
// and dark: a step and a classification chosen in the Filters panel land in the URL and survive the
// switch Board → Table → Funnel → Board; a saved view comes back from the list; Shift+click ticks
// a range of table rows; compact density is the desktop default (cards about 56 px, rows about 36 px);
// on a phone the board opens one step at a time with a switcher, its first card at most 290 px from
// the top (the top bar's sections and the deal's views wrapping whole onto two rows each rather than
// scrolling with a name cut at the edge, one row of search, Filters and More), every
// column one button away; staff file an edit request from the investor drawer and the Inbox badge
// counts it at once, the Inbox showing the amounts with their currency. Every screen is checked with
// axe-core and, at 390 px, for sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkScreen as harnessCheckScreen, demoDealId, skipE2e, startE2e, type E2e, waitForExpression } from './harness.ts';

describe('filters, density and the phone board, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  let dealId: string;
  let steps: { id: string; label: string; type: string }[];
  before(async () => {
    e = await startE2e();
    dealId = (await demoDealId(e)).dealId;
    steps = (await e.api('GET', `/deals/deal/${dealId}/workflow-status`)).body.steps;
  });
  after(() => e?.close());

  const signIn = async (page: Page) => {
    await page.goto(`${e.url}/console/`);
    await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
  };
  const hashQuery = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

  for (const width of [1440, 390]) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`at ${width} px, ${scheme}: filters kept across views and in the URL, density, the phone's step switcher, a staff-filed request`, async () => {
        const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1, colorScheme: scheme });
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        const checkScreen = (name: string) => harnessCheckScreen(page, { prefix: 'filters', name: `${name}-${scheme}`, width });
        const phone = width < 500;
        try {
          await signIn(page);
          const commitment = steps.find((s) => s.label === 'Commitment') ?? steps[1]!;

          // Filters: the step and the classification from the panel, into the URL.
          await page.goto(`${e.url}/console/#/deals/${dealId}`);
          await page.locator('.column').first().waitFor();
          await page.getByRole('button', { name: /^Filters/ }).click();
          const panel = page.locator('#filter-fields');
          await panel.getByRole('combobox', { name: /^Step/ }).selectOption(commitment.id);
          await panel.getByRole('textbox', { name: 'Classification' }).fill('professional');
          await waitForExpression(page, `location.hash.includes('classification=professional')`);
          assert.equal(hashQuery(page).get('step'), commitment.id);
          await waitForExpression(page, `document.querySelectorAll('.board .column').length === 1`);
          assert.equal(await page.locator('.board .column').getAttribute('data-step-id'), commitment.id);
          const expected = (await e.api('GET', `/console/deals/${dealId}/rows?stepId=${encodeURIComponent(commitment.id)}&classification=professional&limit=1`))
            .body.total as number;
          await page.getByText(new RegExp(`^${expected} investors? of .* match`)).waitFor();
          await checkScreen('board-filtered');

          // Board → Table keeps them (the tab carries the query), and the rows are the same ones.
          await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Table' }).click();
          await waitForExpression(page, `location.hash.includes('/table')`);
          assert.equal(hashQuery(page).get('step'), commitment.id);
          assert.equal(hashQuery(page).get('classification'), 'professional');
          await page.getByText(new RegExp(`^${expected} investors? of .* match`)).waitFor();
          if (expected > 0) await page.locator('.rows-table tbody tr').first().waitFor();
          const badges = await page.locator('.rows-table tbody td[data-label="Step"]').allInnerTexts();
          assert.ok(
            badges.every((b) => b.trim() === commitment.label),
            `every row at ${commitment.label}: ${badges.join(', ')}`,
          );
          await checkScreen('table-filtered');

          // Table → Funnel: the classification filters the funnel; Funnel → Board brings the rest back.
          await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Funnel' }).click();
          await page.getByRole('table').waitFor();
          assert.equal(await page.getByRole('combobox', { name: 'Classification' }).inputValue(), 'professional');
          await checkScreen('funnel-filtered');
          await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Board' }).click();
          await waitForExpression(page, `document.querySelectorAll('.board .column').length === 1`);
          assert.equal(hashQuery(page).get('step'), commitment.id);

          // A saved view: name it, clear the filters, pick it again.
          await page.getByRole('button', { name: 'Save this view' }).click();
          await page.getByRole('textbox', { name: 'Name of the view' }).fill('Professional commitments');
          await page.getByRole('button', { name: 'Save', exact: true }).click();
          await page.getByRole('button', { name: 'Clear filters' }).click();
          await waitForExpression(page, `!location.hash.includes('step=')`);
          await page.getByRole('combobox', { name: 'Saved views' }).selectOption('Professional commitments');
          await waitForExpression(page, `location.hash.includes('classification=professional')`);
          assert.equal(hashQuery(page).get('step'), commitment.id);
          await page.getByRole('button', { name: /^Forget/ }).click();
          await page.getByRole('button', { name: 'Clear filters' }).click();
          await waitForExpression(page, `!location.hash.includes('step=')`);

          if (!phone) {
            // Compact is the desktop default: cards about 56 px, table rows about 36 px.
            await page.locator('.card[data-investor-id]').first().waitFor();
            assert.equal(await page.getByRole('button', { name: 'Compact' }).getAttribute('aria-pressed'), 'true');
            const cardHeight = (await page.locator('.card[data-investor-id]').first().boundingBox())!.height;
            assert.ok(cardHeight <= 60, `a compact card is ${cardHeight}px tall`);
            const visible = (await page.evaluate(
              `[...document.querySelectorAll('.card[data-investor-id]')].filter((c) => c.getBoundingClientRect().bottom <= innerHeight).length`,
            )) as number;
            console.log(`# ${scheme}: compact card ${cardHeight}px, ${visible} cards wholly visible at ${width}×900`);
            await checkScreen('board-compact');
            await page.getByRole('button', { name: 'Compact' }).click();
            const comfortable = (await page.locator('.card[data-investor-id]').first().boundingBox())!.height;
            assert.ok(comfortable > 80, `a comfortable card is ${comfortable}px tall`);
            await page.getByRole('button', { name: 'Compact' }).click();

            await page.goto(`${e.url}/console/#/deals/${dealId}/table`);
            const rows = page.locator('.rows-table tbody tr');
            await rows.nth(5).waitFor();
            const rowHeight = (await rows.nth(1).boundingBox())!.height;
            assert.ok(rowHeight <= 40, `a compact row is ${rowHeight}px tall`);
            console.log(`# ${scheme}: compact table row ${rowHeight}px`);

            // Shift+click ticks the range from the last row ticked.
            await rows.nth(1).getByRole('checkbox').click();
            await rows
              .nth(4)
              .getByRole('checkbox')
              .click({ modifiers: ['Shift'] });
            await page.getByText('4 investors selected').waitFor();
            for (const n of [1, 2, 3, 4]) assert.equal(await rows.nth(n).getByRole('checkbox').isChecked(), true, `row ${n} ticked`);
            assert.equal(await rows.nth(5).getByRole('checkbox').isChecked(), false);
            await rows.nth(2).getByRole('checkbox').click();
            await rows
              .nth(3)
              .getByRole('checkbox')
              .click({ modifiers: ['Shift'] });
            await page.getByText('2 investors selected').waitFor();
            await checkScreen('table-range');
            await page.getByRole('button', { name: 'Clear selection' }).click();
          } else {
            // A phone: the board opens one step at a time, chosen with the switcher, with the filters
            // and the actions folded into one row; no columns scrolling sideways.
            await page.reload();
            await page.locator('.step-switcher select').waitFor();
            assert.equal(await page.locator('.board .column').count(), 1);
            assert.equal(await page.locator('.board .column').getAttribute('data-step-id'), steps[0]!.id);
            assert.equal(await page.locator('#filter-fields').count(), 0, 'the filters start folded');
            const firstCard = page.locator('.card[data-investor-id]').first();
            await firstCard.waitFor();
            const furniture = (await firstCard.boundingBox())!.y;
            console.log(`# ${scheme}: ${furniture}px above the first card at 390×844`);
            assert.ok(furniture <= 290, `${furniture}px above the first card`);
            await checkScreen('board-phone');
            // Nothing is lost: the actions open with More, the sort and saved views with Filters.
            await page.getByRole('button', { name: 'More', exact: true }).click();
            const actions = page.locator('#view-actions');
            await actions.getByRole('button', { name: 'Compact' }).waitFor();
            await actions.getByRole('link', { name: 'Import investors' }).waitFor();
            await actions.getByRole('button', { name: 'Export CSV' }).waitFor();
            await page.getByRole('button', { name: /^Filters/ }).click();
            await page.locator('#filter-fields').getByRole('combobox', { name: 'Sort investors' }).waitFor();
            await checkScreen('board-phone-open');
            await page.getByRole('button', { name: /^Filters/ }).click();
            await page.getByRole('button', { name: 'More', exact: true }).click();
            await page.locator('#view-actions').waitFor({ state: 'detached' });
            await page.getByRole('button', { name: `Next step: ${steps[1]!.label}` }).click();
            await waitForExpression(page, `document.querySelector('.board .column')?.getAttribute('data-step-id') === ${JSON.stringify(steps[1]!.id)}`);
            await page.getByRole('group', { name: 'Step shown' }).getByRole('combobox').selectOption(commitment.id);
            await waitForExpression(page, `document.querySelector('.board .column')?.getAttribute('data-step-id') === ${JSON.stringify(commitment.id)}`);
            await checkScreen('board-phone-step');
            // Every column is one button away, and the choice is kept in this browser.
            await page.getByRole('button', { name: 'All steps' }).click();
            await waitForExpression(page, `document.querySelectorAll('.board .column').length === ${steps.length}`);
            await checkScreen('board-phone-all');
            await page.reload();
            await page
              .locator('.board .column')
              .nth(steps.length - 1)
              .waitFor();
            await page.getByRole('button', { name: 'One step at a time' }).click();
            await page.locator('.step-switcher select').waitFor();
          }

          // Staff file an edit request for an investor; the badge counts it, the Inbox shows currencies.
          const rows = (await e.api('GET', `/console/deals/${dealId}/rows?stepId=${encodeURIComponent(commitment.id)}&pending=false&limit=50`)).body.output as {
            investorUserId: string;
            fullName: string;
            committedAmount: string | null;
            currency: string | null;
          }[];
          const investor = rows.find((r) => r.committedAmount) ?? assert.fail('an investor with a commitment and no pending request');
          const before = (await e.api('GET', '/console/edit-requests?limit=1')).body.total as number;
          await page.goto(`${e.url}/console/#/deals/${dealId}/investors/${investor.investorUserId}`);
          const drawer = page.getByRole('dialog');
          await drawer.getByRole('button', { name: 'File a request for this investor…' }).click();
          await drawer.getByLabel(/^New committed amount/).fill('150000.00');
          await drawer
            .getByLabel(/^Reason/)
            .last()
            .fill('Asked by telephone to raise the commitment');
          await checkScreen('drawer-request');
          await drawer.getByRole('button', { name: 'File request' }).click();
          await drawer.getByText('Request filed; it waits in the Inbox for a decision.').waitFor();
          await page
            .locator('.count-badge')
            .getByText(String(before + 1), { exact: true })
            .waitFor();
          await drawer.getByRole('button', { name: 'Close' }).click();

          await page.goto(`${e.url}/console/#/inbox`);
          const item = page.locator('.inbox-item').filter({ hasText: investor.fullName }).filter({ hasText: '150,000.00' });
          await item.first().waitFor();
          const currency = investor.currency ?? 'EUR';
          assert.match(
            await item.first().locator('.changes').innerText(),
            new RegExp(`Committed amount[\\s\\S]*\\d\\.\\d\\d ${currency}[\\s\\S]*150,000\\.00 ${currency}`),
          );
          await checkScreen('inbox');
          // A decision refreshes the badge at once.
          await item.first().getByRole('button', { name: 'Reject…' }).click();
          await page.getByRole('dialog').getByRole('button', { name: 'Reject', exact: true }).click();
          await waitForExpression(page, `(document.querySelector('.count-badge [aria-hidden]')?.textContent ?? '0') === ${JSON.stringify(String(before))}`);
        } finally {
          await context.close();
        }
      });
    }
  }
});
