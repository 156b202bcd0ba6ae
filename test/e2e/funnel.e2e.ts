// The funnel page and the time in step on the board's column headers, end to end on the demo deal,
// at 1440×900 and 390×844: the table of steps, the daily chart (uPlot), the classification filter;
// axe-core finds nothing on either screen, and at 390 px the page does not scroll sideways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkScreen as harnessCheckScreen, demoDealId, skipE2e, startE2e, type E2e } from './harness.ts';

const checkScreen = (page: Page, name: string, width: number) => harnessCheckScreen(page, { prefix: 'funnel', name, width });

describe('funnel page, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  let dealId: string;
  before(async () => {
    e = await startE2e();
    dealId = (await demoDealId(e)).dealId;
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    test(`at ${width} px: the funnel's steps, chart and filter, and the time in step on the board`, async () => {
      const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      try {
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();

        const funnel = (await e.api('GET', `/deals/deal/${dealId}/funnel?fresh=true`)).body;
        await page.goto(`${e.url}/console/#/deals/${dealId}/funnel?fresh=true`);
        await page.getByRole('table').waitFor();
        await page.getByRole('img', { name: /Investors standing at each step/ }).waitFor();
        assert.equal(await page.locator('.funnel-chart canvas').count(), 1, 'uPlot drew its canvas');
        const rows = page.getByRole('table').getByRole('row');
        assert.equal(await rows.count(), funnel.steps.length + 1);
        const first = funnel.steps[0];
        await page.getByRole('rowheader', { name: new RegExp(first.label) }).waitFor();
        await page.getByText(new RegExp(`Funnel · ${funnel.investors.toLocaleString('en-GB')} investors`)).waitFor();
        await checkScreen(page, 'funnel', width);

        await page.getByRole('combobox', { name: 'Classification' }).selectOption('professional');
        const professional = (await e.api('GET', `/deals/deal/${dealId}/funnel?fresh=true&classification=professional`)).body;
        await page.getByText(new RegExp(`Funnel · ${professional.investors.toLocaleString('en-GB')} investors?`)).waitFor();

        // The board's column headers carry the median time in step where stays have ended.
        const timed = funnel.steps.find((s: any) => s.timeInStep.medianMs !== null);
        await page.goto(`${e.url}/console/#/deals/${dealId}`);
        // A phone shows one step at a time: the switcher brings the timed step's column.
        if (timed && width < 500) await page.getByRole('group', { name: 'Step shown' }).getByRole('combobox').selectOption(timed.stepId);
        if (timed)
          await page
            .locator(`[data-step-id="${timed.stepId}"] .column-time`)
            .getByText(/^median /)
            .waitFor();
        await checkScreen(page, 'board', width);
      } finally {
        await context.close();
      }
    });
  }
});
