// A bulk move that checks first, and the undo of a bulk move, end to end at 1440 and 390 px, light
// and dark: the dialog runs the service's dry run for the selection as the operator types, blocks
// the submit while required values are missing (naming them by label), takes per-investor amounts,
// then moves; the Activity page shows the bulk move as one entry with its count and undoes it once confirmed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkScreen as harnessCheckScreen, skipE2e, startE2e, type E2e } from './harness.ts';
import { investorBody } from '../support/fixtures.ts';
import { subscriptionWorkflow } from '../support/workflows.ts';

describe('bulk move that checks first, and its undo, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      test(`at ${width} px, ${colorScheme}: blocked before submit, fixed with per-investor amounts, then undone`, async () => {
        const tag = `${width}${colorScheme}`;
        const dealId = `bulk-${tag}`;
        assert.equal((await e.api('PUT', `/deals/deal/${dealId}`, { name: `Bulk ${tag}`, currency: 'EUR' })).status, 201);
        assert.equal((await e.api('PUT', `/deals/deal/${dealId}/workflow`, subscriptionWorkflow(dealId))).status, 201);
        const step = (name: string) => `${dealId}.${name}`;
        const investors: string[] = [];
        for (const [i, name] of ['Ada', 'Bo', 'Cy'].entries()) {
          const id = `inv-${tag}-${i}`;
          const put = await e.api('PUT', `/investors/${id}`, investorBody({ forename: name, surname: `Bulk${tag}`, email: `${id}@example.com` }));
          assert.ok(put.status === 201, JSON.stringify(put.body));
          assert.equal(
            (await e.api('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: id, targetStepId: step('interest'), data: {} })).status,
            201,
          );
          investors.push(id);
        }
        const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1, colorScheme });
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        const shot = (name: string) => harnessCheckScreen(page, { prefix: 'bulk-undo', name: `${name}-${colorScheme}`, width });
        try {
          await page.goto(`${e.url}/console/`);
          await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
          await page.getByRole('button', { name: 'Sign in with the key' }).click();
          await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
          await page.goto(`${e.url}/console/#/deals/${dealId}/table`);
          for (const name of ['Ada', 'Bo', 'Cy']) await page.getByRole('checkbox', { name: `Select ${name} Bulk${tag}` }).check();
          await page.getByRole('button', { name: 'Move selected…' }).click();
          const dialog = page.getByRole('dialog', { name: 'Move 3 investors' });
          await dialog.waitFor();
          assert.equal(await dialog.getByLabel('Target step').inputValue(), step('commit'), 'the next step, not the current one');

          // Nothing filled: the dry run says why none would move, by label, and the submit waits.
          const check = dialog.getByTestId('bulk-check');
          await check.getByText('0 of 3 investors will move to Commitment').waitFor();
          const text = await check.innerText();
          assert.match(text, /Committed amount/);
          assert.doesNotMatch(text, new RegExp(dealId), 'no raw step ids');
          await check.getByText(/Give the required values/).waitFor();
          assert.equal(await dialog.getByRole('button', { name: 'Move 3 investors to Commitment' }).isDisabled(), true);
          const cancel = await dialog.getByRole('button', { name: 'Cancel' }).boundingBox();
          assert.ok(cancel && cancel.x >= 0 && cancel.x + cancel.width <= width, `Cancel on screen: ${JSON.stringify(cancel)}`);
          await shot('blocked');

          // Per-investor amounts, one currency for all.
          await dialog.getByRole('radio', { name: 'Per investor' }).first().check();
          const amounts = ['1000.00', '2500.00', '40000.00'];
          for (const [i, id] of investors.entries()) await page.locator(`#bulk-field-committed_amount-${id}`).fill(amounts[i]!);
          await page.locator('#bulk-field-currency').selectOption('EUR');
          await check.getByText('3 of 3 investors will move to Commitment').waitFor();
          await shot('ready');
          await dialog.getByRole('button', { name: 'Move 3 investors to Commitment' }).click();
          const done = page.getByRole('dialog', { name: 'Moved 3 of 3 investors' });
          await done.waitFor();
          await done.getByRole('button', { name: 'Done' }).click();
          for (const [i, id] of investors.entries()) {
            const journey = (await e.api('GET', `/deals/deal/${dealId}/investor-data/${id}`)).body.journey;
            assert.deepEqual([journey.at(-1).toStepId, journey.at(-1).data.committed_amount], [step('commit'), amounts[i]]);
          }

          // The activity shows the bulk move once, with its count, and undoes it.
          await page.goto(`${e.url}/console/#/deals/${dealId}/activity`);
          const entry = page.locator('.activity-item[data-batch-size="3"]').first();
          await entry.getByText(/moved 3 investors from Interest to Commitment/).waitFor();
          await shot('activity');
          await entry.getByRole('button', { name: 'Undo all 3' }).click();
          // It asks first; Keep leaves everything as it is.
          await entry.getByRole('group', { name: 'Confirm the undo' }).getByRole('button', { name: 'Keep' }).click();
          await entry.getByRole('button', { name: 'Undo all 3' }).click();
          await entry.getByRole('group', { name: 'Confirm the undo' }).getByRole('button', { name: 'Yes, undo all 3' }).click();
          await page
            .locator('.activity-item')
            .filter({ hasText: /undid a move, moving 3 investors from Commitment to Interest/ })
            .waitFor();
          for (const id of investors) {
            const journey = (await e.api('GET', `/deals/deal/${dealId}/investor-data/${id}`)).body.journey;
            assert.deepEqual(
              journey.map((ev: { toStepId: string }) => ev.toStepId),
              [step('interest'), step('commit'), step('interest')],
              'history keeps the move and its undo',
            );
          }
          assert.equal(
            await page.getByRole('button', { name: /^Undo/ }).count(),
            1,
            'only the undo itself can be undone: the bulk move was, the first placements cannot be',
          );
          await shot('undone');
        } finally {
          await context.close();
        }
      });
    }
  }
});
