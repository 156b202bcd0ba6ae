// A workflow change in the editor and the investors already on the deal, end to end at 1440 and
// 390 px: on a deal without investors the save asks nothing; on a deal with investors the
// confirmation says what the save does (a new version), then the editor offers to move them onto
// it with the dry run's figures, and the move opens the link to them (investorMay in the API) while
// each keeps the time they entered their step. Leaving the editor with unsaved changes asks first.
// Every screen is checked with axe-core and, at 390 px, for sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { checkScreen as harnessCheckScreen, skipE2e, startE2e, type E2e } from './harness.ts';
import { investorBody } from '../support/fixtures.ts';
import { payingWorkflow } from '../support/workflows.ts';

const sizes = [1440, 390].filter((w) => !process.env.E2E_WIDTH || String(w) === process.env.E2E_WIDTH);

describe('workflow changes and the investors already on the deal, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const width of sizes) {
    describe(`at ${width} px`, () => {
      let context: BrowserContext;
      let page: Page;
      const checkScreen = (name: string) => harnessCheckScreen(page, { prefix: 'workflow-changes', name, width });
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };
      const newDeal = async (tag: string) => {
        const dealId = `wfc-${width}-${tag}`;
        await must('PUT', `/deals/deal/${dealId}`, { name: `Changes ${width} ${tag}`, currency: 'EUR' });
        await must('PUT', `/deals/deal/${dealId}/workflow`, payingWorkflow(dealId));
        return dealId;
      };
      const openLink = async (dealId: string) => {
        await page.goto(`${e.url}/console/#/deals/${dealId}/workflow`);
        await page.getByRole('heading', { name: 'Workflow', exact: true }).waitFor();
        await page.getByRole('checkbox', { name: 'Investors may take this step themselves: Commitment to Funds received' }).check();
        await page.getByText('No problems found.').waitFor();
      };

      before(async () => {
        context = await e.browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 }, deviceScaleFactor: 1 });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
      });
      after(() => context?.close());

      test('a deal without investors saves at once, without asking about investors', async () => {
        const dealId = await newDeal('empty');
        await openLink(dealId);
        assert.equal(await page.getByText('What saving changes for investors on it').count(), 0);
        await page.getByRole('button', { name: 'Save workflow' }).click();
        await page.getByText('Saved.').waitFor();
        assert.equal(await page.getByRole('alert').filter({ hasText: 'already on this deal' }).count(), 0);
        assert.equal(await page.getByTestId('migration-panel').count(), 0);
        const saved = await must('GET', `/deals/deal/${dealId}/workflow-status`);
        assert.equal(saved.version, 2);
      });

      test('a deal with investors: the save says what it does, then the investors are moved onto the new version', async () => {
        const dealId = await newDeal('busy');
        const ids = [`wfc${width}-a`, `wfc${width}-b`];
        for (const [i, id] of ids.entries()) {
          await must('PUT', `/investors/${id}`, investorBody({ forename: ['Ada', 'Grace'][i], surname: `Changes${width}`, email: `${id}@example.com` }));
          await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
            investorUserId: id,
            targetStepId: `${dealId}.commitment`,
            data: { committed_amount: '1000.00', currency: 'EUR' },
          });
        }
        const entered = async () => Promise.all(ids.map(async (id) => (await must('GET', `/console/deals/${dealId}/investors/${id}`)).enteredStepAt));
        const may = async () => (await must('GET', `/investors/${ids[0]}/deals/${dealId}`)).nextSteps[0].investorMay;
        const before = await entered();
        await openLink(dealId);
        await page.getByText(/2 investors stand there/).waitFor();
        await page.getByRole('button', { name: 'Save workflow' }).click();
        await page.getByRole('alert').filter({ hasText: 'stay on the version they started until you move them' }).waitFor();
        await checkScreen('confirm');
        await page.getByRole('button', { name: 'Confirm and save' }).click();
        await page.getByText('Saved.').waitFor();
        assert.equal(await may(), false, 'saved: the investors already there still follow version 1');

        const panel = page.getByTestId('migration-panel');
        await panel.getByText('Dry run: 2 investors can move, each staying at the same step.').waitFor();
        await panel.scrollIntoViewIfNeeded();
        await checkScreen('migration');
        await panel.getByRole('button', { name: 'Move 2 investors onto version 2' }).click();
        await panel.getByText('2 investors moved onto version 2; each keeps the time they entered their step.').waitFor();
        assert.equal(await may(), true, 'moved: the link is open to them');
        assert.deepEqual(await entered(), before);
      });

      test('leaving the editor with unsaved changes asks first', async () => {
        const dealId = await newDeal('unsaved');
        await page.goto(`${e.url}/console/#/deals/${dealId}/workflow`);
        await page.getByLabel('Workflow name').fill('Harbour, renamed');
        await page.getByText('Unsaved changes.').waitFor();
        let asked = '';
        page.once('dialog', (dialog) => {
          asked = dialog.message();
          void dialog.dismiss();
        });
        await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Board' }).click();
        assert.equal(asked, 'The workflow has unsaved changes. Leave without saving them?');
        assert.match(page.url(), /\/workflow$/);
        assert.equal(await page.getByLabel('Workflow name').inputValue(), 'Harbour, renamed');
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Board' }).click();
        await page.waitForURL(new RegExp(`#/deals/${dealId}$`));
        // Saved work leaves without a question.
        await page.goto(`${e.url}/console/#/deals/${dealId}/workflow`);
        await page.getByLabel('Workflow name').waitFor();
        page.once('dialog', () => assert.fail('no question for a workflow without changes'));
        await page.getByRole('navigation', { name: 'Deal views' }).getByRole('link', { name: 'Board' }).click();
        await page.waitForURL(new RegExp(`#/deals/${dealId}$`));
      });
    });
  }
});
