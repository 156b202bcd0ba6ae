// What a closing day needs the console to say truthfully, at 1440 and 390 px: a part payment shows
// on the card, the table and the drawer as received and still due, and the table filters the partly
// paid; investors of one name are told apart by e-mail in the table and the bulk dialog; the bulk
// check says the move skips KYC; the export writes amounts in one form with the payment reference;
// an undo asks first, and what it undid is no longer "captured earlier"; an import's count is the
// whole file's; on a phone no tab is cut and the undo toast leaves Sign out free.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkScreen, skipE2e, startE2e, type E2e, waitForExpression } from './harness.ts';
import { investorBody, uniqueAssetId } from '../support/fixtures.ts';

function workflow(prefix: string) {
  const s = (name: string) => `${prefix}.${name}`;
  return {
    label: 'Harbour',
    description: 'pays by transfer',
    investorEngagementEnabled: false,
    steps: [
      { id: s('interest'), label: 'Interest', type: 'default', stepFields: [] },
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency' },
        ],
      },
      {
        id: s('kyc'),
        label: 'KYC',
        type: 'default',
        stepFields: [{ fieldKey: 'kyc_ref', required: false }],
        requirements: [{ kind: 'kyc-level', minimumLevel: 2 }],
      },
      {
        id: s('payment'),
        label: 'Funds received',
        type: 'default',
        stepFields: [
          { fieldKey: 'amount_received', required: true, kind: 'amount', label: 'Amount received' },
          { fieldKey: 'received_on', required: true, kind: 'date', label: 'Received on' },
        ],
      },
      { id: s('complete'), label: 'Complete', type: 'complete', stepFields: [] },
    ],
    links: [
      { fromStepId: s('interest'), toStepId: s('commitment') },
      { fromStepId: s('commitment'), toStepId: s('kyc') },
      { fromStepId: s('kyc'), toStepId: s('payment') },
      { fromStepId: s('payment'), toStepId: s('complete') },
    ],
  };
}

describe('closing-day truths in the console', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    test(`at ${width} px`, async () => {
      const dealId = `truth-${width}`;
      const step = (name: string) => `${dealId}.${name}`;
      assert.equal((await e.api('PUT', `/deals/deal/${dealId}`, { name: `Harbour ${width}`, currency: 'EUR' })).status, 201);
      assert.equal((await e.api('PUT', `/deals/deal/${dealId}/workflow`, workflow(dealId))).status, 201);
      const assetId = uniqueAssetId();
      await e.api('PUT', `/portfolio/assets/${assetId}`, { name: 'Harbour shares', currency: 'EUR' });
      const settings = await e.api('PUT', `/deals/deal/${dealId}/payment-settings`, {
        paymentStepId: step('payment'),
        amountFieldKey: 'amount_received',
        dateFieldKey: 'received_on',
        assetId,
        pricePerUnit: '1',
        unitDecimals: 2,
      });
      assert.equal(settings.status, 201, JSON.stringify(settings.body));
      const people = [
        { id: `ann1-${width}`, forename: 'Ann', surname: 'Same', amount: '80000' },
        { id: `ann2-${width}`, forename: 'Ann', surname: 'Same', amount: '60000.00' },
        { id: `bo-${width}`, forename: 'Bo', surname: 'Partial', amount: '9999.99' },
        { id: `cy-${width}`, forename: 'Cy', surname: 'Other', amount: '1000' },
      ];
      for (const p of people) {
        assert.equal(
          (await e.api('PUT', `/investors/${p.id}`, investorBody({ forename: p.forename, surname: p.surname, email: `${p.id}@example.com` }))).status,
          201,
        );
        await e.api('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: p.id, targetStepId: step('interest'), data: {} });
        const moved = await e.api('POST', `/deals/deal/${dealId}/jump-to-step`, {
          investorUserId: p.id,
          targetStepId: step('commitment'),
          data: { committed_amount: p.amount, currency: 'EUR' },
        });
        assert.equal(moved.status, 201, JSON.stringify(moved.body));
      }
      // Bo pays 5,000.00 of 9,999.99: a staff assignment of the statement's line.
      const statement = await fetch(`${e.url}/payments/statements?bankReferenceColumn=bank_reference`, {
        method: 'POST',
        headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'text/csv' },
        body: `date,amount,currency,reference,bank_reference\n2026-03-20,5000.00,EUR,no reference,PART-${width}\n`,
      });
      assert.equal(statement.status, 201);
      const statementId = ((await statement.json()) as { statement: { id: string } }).statement.id;
      const [line] = (await e.api('GET', `/payments/lines?statementId=${statementId}`)).body.output;
      assert.equal((await e.api('POST', `/payments/lines/${line.id}/assign`, { dealId, investorUserId: people[2]!.id })).status, 200);

      const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1, acceptDownloads: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const shot = (name: string) => checkScreen(page, { prefix: 'truths', name, width });
      try {
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();

        // The table: same names told apart by e-mail; the part payment beside the commitment.
        await page.goto(`${e.url}/console/#/deals/${dealId}/table`);
        await page.locator('tr[data-investor-id]').nth(3).waitFor();
        for (const p of people.slice(0, 2)) assert.ok(await page.getByText(`${p.id}@example.com`, { exact: true }).isVisible(), `${p.id}'s e-mail shows`);
        const boRow = page.locator(`tr[data-investor-id="${people[2]!.id}"]`);
        await boRow.getByText('5,000.00 EUR received · 4,999.99 EUR still due').waitFor();
        await boRow.scrollIntoViewIfNeeded();
        await shot('table');
        await page.goto(`${e.url}/console/#/deals/${dealId}/table?paid=partly`);
        await page.getByText('1 investor of Harbour', { exact: false }).or(page.locator('tr[data-investor-id]')).first().waitFor();
        await waitForExpression(page, "document.querySelectorAll('tr[data-investor-id]').length === 1");
        assert.deepEqual(await page.locator('tr[data-investor-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-investor-id'))), [
          people[2]!.id,
        ]);
        await shot('table-partly-paid');

        // The export: amounts in one form, the payment reference.
        await page.goto(`${e.url}/console/#/deals/${dealId}/table`);
        await page.locator('tr[data-investor-id]').nth(3).waitFor();
        if (width < 500) await page.getByRole('button', { name: 'More' }).click();
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
        const csv = readFileSync((await download.path())!, 'utf8');
        const [header, ...lines] = csv
          .trim()
          .split(/\r?\n/)
          .map((l) => l.split(','));
        const column = (name: string) => header!.indexOf(name);
        assert.ok(column('payment_reference') > 0, header!.join(','));
        const cell = (id: string, name: string) => lines.find((l) => l[0] === id)![column(name)];
        assert.deepEqual(
          people.map((p) => cell(p.id, 'committed_amount')),
          ['80000.00', '60000.00', '9999.99', '1000.00'],
        );
        assert.match(cell(people[2]!.id, 'payment_reference')!, /^RF\d+$/);
        assert.deepEqual([cell(people[2]!.id, 'received_amount'), cell(people[2]!.id, 'remaining_amount')], ['5000.00', '4999.99']);

        // The board's card and the drawer (the commitment step only: a phone shows one step at a time).
        await page.goto(`${e.url}/console/#/deals/${dealId}?step=${encodeURIComponent(step('commitment'))}`);
        const boCard = page.locator(`[data-investor-id="${people[2]!.id}"]`).first();
        await boCard.getByText('4,999.99 due').waitFor();
        await boCard
          .getByRole('button', { name: /Bo Partial/ })
          .first()
          .click();
        const drawer = page.getByRole('dialog');
        await drawer.getByText('Still due').waitFor();
        assert.match(await drawer.innerText(), /Received\s+5,000\.00 EUR[\s\S]*Still due\s+4,999\.99 EUR/);
        await shot('drawer-part-paid');
        await page.keyboard.press('Escape');

        // The bulk move to Funds received skips KYC, and says so; the two Anns by e-mail.
        await page.goto(`${e.url}/console/#/deals/${dealId}/table`);
        const bulkIds = [people[0]!.id, people[1]!.id, people[3]!.id];
        for (const id of bulkIds) await page.locator(`tr[data-investor-id="${id}"] input[type=checkbox]`).check();
        await page.getByRole('button', { name: 'Move selected…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Move 3 investors' });
        await dialog.getByLabel('Target step').selectOption(step('payment'));
        await dialog
          .getByTestId('bulk-skips')
          .getByText(/This move skips KYC: KYC’s requirements \(KYC level ≥ 2\) are not checked/)
          .waitFor();
        await dialog.getByRole('radio', { name: 'Per investor' }).first().check();
        assert.ok(await dialog.getByText(`Ann Same (${people[0]!.id}@example.com)`).isVisible());
        assert.ok(await dialog.getByText(`Ann Same (${people[1]!.id}@example.com)`).isVisible());
        await dialog.getByRole('radio', { name: 'Same for all' }).first().check();
        await page.locator('#bulk-field-amount_received').fill('12500.50');
        await page.locator('#bulk-field-received_on').fill('2026-03-20');
        await dialog.getByTestId('bulk-check').getByText('3 of 3 investors will move to Funds received').waitFor();
        await shot('bulk-skips-kyc');
        await dialog.getByRole('button', { name: 'Move 3 investors to Funds received' }).click();
        await page.getByRole('dialog', { name: 'Moved 3 of 3 investors' }).getByRole('button', { name: 'Done' }).click();

        // Undo asks first.
        await page.goto(`${e.url}/console/#/deals/${dealId}/activity`);
        const entry = page.locator('.activity-item[data-batch-size="3"]').first();
        await entry.getByText(/moved 3 investors from Commitment to Funds received/).waitFor();
        await entry.getByRole('button', { name: 'Undo all 3' }).click();
        const confirm = entry.getByRole('group', { name: 'Confirm the undo' });
        await confirm.getByText(/Move these 3 investors back/).waitFor();
        await shot('undo-confirm');
        assert.equal(
          (await e.api('GET', `/deals/deal/${dealId}/investor-data/${people[3]!.id}`)).body.journey.at(-1).toStepId,
          step('payment'),
          'nothing undone before the confirmation',
        );
        await confirm.getByRole('button', { name: 'Yes, undo all 3' }).click();
        await page
          .locator('.activity-item')
          .filter({ hasText: /undid a move, moving 3 investors/ })
          .waitFor();

        // What the undo took back is not "captured earlier" when Cy is moved again.
        await page.goto(`${e.url}/console/#/deals/${dealId}?step=${encodeURIComponent(step('commitment'))}`);
        await page.getByRole('button', { name: 'Actions for Cy Other' }).click();
        await page.getByRole('menuitem', { name: 'Move to…' }).click();
        const move = page
          .getByRole('dialog')
          .filter({ has: page.getByLabel('Target step').or(page.locator('select')) })
          .first();
        await move.locator('select').first().selectOption(step('payment'));
        await move.getByText('Amount received').first().waitFor();
        assert.equal(await move.getByText(/Captured earlier/).count(), 0, 'the undone 12,500.50 is not offered as captured');
        await page.keyboard.press('Escape');

        if (width < 500) await phoneChecks(page, dealId, people[3]!.id, step, shot);
      } finally {
        await context.close();
      }
    });
  }

  /** On a phone: no tab or section cut; the undo toast after a move leaves Sign out free. */
  async function phoneChecks(page: Page, dealId: string, investorUserId: string, step: (n: string) => string, shot: (name: string) => Promise<void>) {
    await page.goto(`${e.url}/console/#/deals/${dealId}/activity`);
    await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
    const cut = (await page.evaluate(`(() => {
      const found = [];
      for (const nav of document.querySelectorAll('nav.tabs, nav.sections')) {
        const box = nav.getBoundingClientRect();
        for (const link of nav.querySelectorAll('a')) {
          const r = link.getBoundingClientRect();
          if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.right > window.innerWidth) found.push(link.textContent + ' (' + Math.round(r.left) + '–' + Math.round(r.right) + ' in ' + Math.round(box.left) + '–' + Math.round(box.right) + ')');
        }
      }
      return found;
    })()`)) as string[];
    assert.deepEqual(cut, [], 'every tab and section whole on screen');
    await shot('tabs');

    // A move from the board leaves the toast; Sign out, at the end of the page, stays clear of it.
    await page.goto(`${e.url}/console/#/deals/${dealId}?step=${encodeURIComponent(step('commitment'))}`);
    await page.getByRole('button', { name: `Actions for Cy Other` }).click();
    await page.getByRole('menuitem', { name: 'Move to KYC' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Move/ }).last().click();
    await page.getByRole('status').filter({ hasText: 'Cy Other moved to KYC' }).waitFor();
    assert.equal((await e.api('GET', `/deals/deal/${dealId}/investor-data/${investorUserId}`)).body.journey.at(-1).toStepId, step('kyc'));
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.waitForTimeout(300);
    const boxes = (await page.evaluate(`(() => {
      const toast = document.querySelector('.toast').getBoundingClientRect();
      const signOut = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Sign out').getBoundingClientRect();
      return { toast: [toast.top, toast.bottom], signOut: [signOut.top, signOut.bottom] };
    })()`)) as { toast: number[]; signOut: number[] };
    assert.ok(
      boxes.signOut[1]! <= boxes.toast[0]! || boxes.signOut[0]! >= boxes.toast[1]!,
      `Sign out ${JSON.stringify(boxes.signOut)} clear of the toast ${JSON.stringify(boxes.toast)}`,
    );
    await shot('toast');
  }
});
