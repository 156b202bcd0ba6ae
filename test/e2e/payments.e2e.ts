// The reconciliation screens end to end, at 1440×900 and at 390×844, against the real service: a
// deal's payment settings set on its settings page (a field the workflow lacks is flagged and the
// save asks first); a CSV statement imported through the API (one credit matched, five queued); in
// the console's payment queue, names and amounts instead of ids, one line assigned in one click to
// the investor it proposes, one matched line that still waits saying why and what to do, one line
// assigned to an investor found by typing their name, one split across two found by name, one
// dismissed with a reason. Each decision is checked through the API, and every screen with
// axe-core (no violation of any impact) and, at 390 px, for sideways scrolling. Screenshots go to
// test-results/screenshots/ (ignored by git).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { checkScreen as harnessCheckScreen, skipE2e, startE2e, type E2e } from './harness.ts';

const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

const checkScreen = (page: Page, name: string, width: number) => harnessCheckScreen(page, { prefix: 'payments', name, width });

describe('reconciliation in the console, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e();
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const dealId = `pay-${size.width}`;
      const step = (name: string) => `${dealId}.${name}`;
      const investor = (letter: string) => `pay${size.width}-${letter}`;
      const payer = (letter: string) => `Payer ${size.width} ${letter}`;
      let context: BrowserContext;
      let page: Page;
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };
      const lineOf = async (name: string) => {
        const lines = (await must('GET', '/payments/lines?limit=100')).output as { debtorName: string; status: string; investorUserId: string | null }[];
        return lines.find((l) => l.debtorName === name)!;
      };

      before(async () => {
        context = await e.browser.newContext({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        // A deal whose investors committed, made through the API; its payment settings are left to the console.
        await must('PUT', `/deals/deal/${dealId}`, { name: `Payments ${size.width}`, currency: 'EUR' });
        await must('PUT', `/deals/deal/${dealId}/workflow`, {
          label: 'Pays by transfer',
          description: 'commitment, funds received, complete',
          investorEngagementEnabled: true,
          steps: [
            {
              id: step('commitment'),
              label: 'Commitment',
              type: 'default',
              stepFields: [
                { fieldKey: 'committed_amount', required: true, kind: 'amount' },
                { fieldKey: 'currency', required: true, kind: 'currency' },
              ],
            },
            {
              id: step('payment'),
              label: 'Funds received',
              type: 'default',
              requirements: [{ kind: 'kyc-level', minimumLevel: 2 }],
              stepFields: [
                { fieldKey: 'amount_received', required: true, kind: 'amount' },
                { fieldKey: 'received_on', required: true, kind: 'date' },
              ],
            },
            { id: step('complete'), label: 'Complete', type: 'complete', stepFields: [] },
          ],
          links: [
            { fromStepId: step('commitment'), toStepId: step('payment') },
            { fromStepId: step('payment'), toStepId: step('complete') },
          ],
        });
        for (const [letter, amount] of [
          ['a', '25000.00'],
          ['b', '10000.00'],
          ['c', '5000.00'],
          ['d', '5000.00'],
          ['e', '7500.00'],
          ['f', '5000.00'],
        ] as const) {
          const contact = {
            title: null,
            forename: letter.toUpperCase(),
            middleNames: null,
            surname: `Payer${size.width}`,
            nickname: null,
            dateOfBirth: null,
            email: `${investor(letter)}@example.com`,
          };
          await must('PUT', `/investors/${investor(letter)}`, {
            remoteId: investor(letter),
            dataSource: 'e2e',
            teamUserId: null,
            kycCheckLevel: letter === 'f' ? 1 : 2,
            contact: {
              guid: investor(letter),
              externalId: null,
              userType: 1,
              status: 'active',
              username: investor(letter),
              profilePhotoFileKey: null,
              name: investor(letter),
              fullName: `${letter.toUpperCase()} Payer`,
              contact,
              classifications: [],
              tfaEnabled: false,
              compliance: 'approved',
            },
          });
          await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
            investorUserId: investor(letter),
            targetStepId: step('commitment'),
            data: { committed_amount: amount, currency: 'EUR' },
          });
        }
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
      });
      after(() => context?.close());

      test("the deal's settings page sets its payment settings", async () => {
        await page.goto(`${e.url}/console/#/deals/${dealId}/settings`);
        await page.getByRole('heading', { name: 'Payments', exact: true }).waitFor();
        await page.getByLabel(/^Payment step/).selectOption(step('payment'));
        await page.getByLabel('Field that receives the amount').selectOption('amount_received');
        await page.getByLabel('Field that receives the value date').selectOption('received_on');
        await checkScreen(page, 'settings', size.width);
        await page.getByRole('button', { name: 'Save payment settings' }).click();
        await page.getByText('Payment settings saved.').waitFor();
        const settings = await must('GET', `/deals/deal/${dealId}/payment-settings`);
        assert.deepEqual(
          [settings.paymentStepId, settings.amountFieldKey, settings.dateFieldKey, settings.commitmentFieldKey],
          [step('payment'), 'amount_received', 'received_on', 'committed_amount'],
        );
      });

      test('payment settings never pre-fill a field the workflow lacks, flag one saved earlier, and ask before saving it', async () => {
        const odd = `${dealId}-odd`;
        await must('PUT', `/deals/deal/${odd}`, { name: `Pledges ${size.width}`, currency: 'EUR' });
        await must('PUT', `/deals/deal/${odd}/workflow`, {
          label: 'Pledges',
          description: 'pledge, funds received',
          investorEngagementEnabled: false,
          steps: [
            { id: `${odd}.pledge`, label: 'Pledge', type: 'default', stepFields: [{ fieldKey: 'pledge', required: true, kind: 'amount', label: 'Pledge' }] },
            { id: `${odd}.paid`, label: 'Funds received', type: 'default', stepFields: [] },
          ],
          links: [{ fromStepId: `${odd}.pledge`, toStepId: `${odd}.paid` }],
        });
        await page.goto(`${e.url}/console/#/deals/${odd}/settings`);
        await page.getByRole('heading', { name: 'Payments', exact: true }).waitFor();
        assert.equal(await page.getByLabel('Field that holds the commitment').inputValue(), '', 'committed_amount is not offered: the workflow lacks it');
        assert.equal(await page.getByLabel('Field that holds its currency').inputValue(), '');
        // Saved earlier through the API: flagged beside its picker, and the save asks first.
        await must('PUT', `/deals/deal/${odd}/payment-settings`, { paymentStepId: `${odd}.paid`, commitmentFieldKey: 'committed_amount' });
        await page.reload();
        await page.getByText('committed_amount is not a field of this workflow: nothing is read from or written to it.').waitFor();
        await page.getByRole('button', { name: 'Save payment settings' }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: /committed_amount \(the commitment\).* not in this deal's workflow/ })
          .waitFor();
        await page.getByRole('button', { name: 'Save anyway' }).waitFor();
        await checkScreen(page, 'settings-unknown-field', size.width);
        await page.getByLabel('Field that holds the commitment').selectOption('pledge');
        await page.getByLabel('Field that holds its currency').selectOption('');
        await page.getByRole('button', { name: 'Save payment settings' }).click();
        await page.getByText('Payment settings saved.').waitFor();
        assert.equal((await must('GET', `/deals/deal/${odd}/payment-settings`)).commitmentFieldKey, 'pledge');
      });

      test('the queue: a line assigned, a line split, a line dismissed with a reason', async () => {
        const refs = new Map<string, string>(
          (await must('GET', `/deals/deal/${dealId}/all-payment-refernces`)).map((r: { investorUserId: string; paymentReference: string }) => [
            r.investorUserId,
            r.paymentReference,
          ]),
        );
        const csv = [
          'date,amount,currency,reference,counterparty,bank_reference',
          `2026-11-23,25000.00,EUR,${refs.get(investor('a'))},${payer('a')},E2E-${size.width}-1`,
          `2026-11-23,10000.00,EUR,invoice 12 thank you,${payer('b')},E2E-${size.width}-2`,
          `2026-11-23,10000.00,EUR,for C and D,${payer('cd')},E2E-${size.width}-3`,
          `2026-11-23,12.00,EUR,card refund,${payer('x')},E2E-${size.width}-4`,
          `2026-11-23,7500.00,EUR,thanks,E PAYER,E2E-${size.width}-5`,
          `2026-11-23,5000.00,EUR,${refs.get(investor('f'))},${payer('f')},E2E-${size.width}-6`,
        ].join('\n');
        const imported = await fetch(`${e.url}/payments/statements?bankReferenceColumn=bank_reference&counterpartyColumn=counterparty`, {
          method: 'POST',
          headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'text/csv' },
          body: csv,
        });
        assert.equal(imported.status, 201, await imported.text());
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${investor('a')}`)).stepId, step('payment'), 'the matched credit moved A');

        await page.goto(`${e.url}/console/#/payments`);
        await page.getByRole('heading', { name: 'Bank payments' }).waitFor();
        const decide = (letter: string) => page.getByRole('button', { name: new RegExp(`^Decide on .* from ${payer(letter)}$`) });
        await decide('b').waitFor();
        await checkScreen(page, 'queue', size.width);

        // Names and amounts, not ids: the matched line names A, the partial detail is money.
        const table = page.getByRole('region', { name: 'Statement lines' });
        assert.equal(await table.getByText(new RegExp(`pay${size.width}-`)).count(), 0, 'no investor id on the queue');
        const rowOf = (name: string) => table.getByRole('row').filter({ hasText: name });
        assert.equal(await rowOf(payer('f')).getByRole('link', { name: 'F Payer' }).getAttribute('href'), `#/deals/${dealId}/investors/${investor('f')}`);

        // One click: E paid the amount E owes, under E's name; the line proposes E.
        await page.getByRole('button', { name: /^Assign to E Payer 7,500\.00 EUR from E PAYER$/ }).click();
        await page.getByText(/from E PAYER assigned to E Payer: matched\./).waitFor();
        assert.equal((await lineOf('E PAYER')).status, 'matched');
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${investor('e')}`)).stepId, step('payment'), 'E paid in full and moved');

        // F's money matched, but F cannot enter the payment step: the reason and the way forward.
        await rowOf(payer('f')).getByText("Raise the investor's KYC level in the investor directory, then decide again.").waitFor();
        await decide('f').click();
        const advice = page.getByTestId('line-advice');
        await advice.getByText("The investor was not moved: the investor's KYC check level is 1; at least 2 is required.").waitFor();
        assert.equal(await advice.getByRole('link', { name: 'Open F Payer' }).getAttribute('href'), `#/deals/${dealId}/investors/${investor('f')}`);
        await checkScreen(page, 'advice', size.width);
        await page.getByRole('button', { name: 'Close' }).click();

        // Assign: B paid without a reference; B is found by typing the name.
        await decide('b').click();
        const assign = page.getByRole('form', { name: new RegExp(`from ${payer('b')}$`) });
        await assign.getByRole('searchbox', { name: 'Find an investor by name, e-mail or company' }).fill('B Payer');
        await assign.getByRole('radio', { name: new RegExp(`^B Payer .*Payments ${size.width}`) }).check();
        await checkScreen(page, 'assign', size.width);
        await page.getByRole('button', { name: 'Assign to B Payer', exact: true }).click();
        await page.getByText(/Assigned to B Payer: the line is now matched/).waitFor();
        const assigned = await lineOf(payer('b'));
        assert.deepEqual([assigned.status, assigned.investorUserId], ['matched', investor('b')]);
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${investor('b')}`)).stepId, step('payment'), 'B paid in full and moved');

        // Split: one transfer for C and D, each found by name.
        await decide('cd').click();
        await page.getByRole('heading', { name: new RegExp(`from ${payer('cd')}$`) }).waitFor();
        await page.getByRole('radio', { name: 'Split across investors' }).check();
        for (const [i, letter] of [
          [0, 'c'],
          [1, 'd'],
        ] as const) {
          const share = page.getByRole('group', { name: `Share ${i + 1}`, exact: true });
          await share.getByRole('searchbox').fill(`${letter.toUpperCase()} Payer`);
          await share.getByRole('radio', { name: new RegExp(`^${letter.toUpperCase()} Payer .*Payments ${size.width}`) }).check();
          await share.getByLabel(/^Amount/).fill('5000.00');
        }
        await page.getByText(/^Shares: 10,000\.00 EUR of 10,000\.00 EUR$/).waitFor();
        await checkScreen(page, 'split', size.width);
        await page.getByRole('button', { name: 'Split', exact: true }).click();
        await page.getByText(/Done: the line is now matched/).waitFor();
        for (const letter of ['c', 'd']) {
          assert.equal(
            (await must('GET', `/console/deals/${dealId}/investors/${investor(letter)}`)).stepId,
            step('payment'),
            `${letter} paid in full by the split`,
          );
        }

        // Dismiss: not an investor's payment.
        await decide('x').click();
        await page.getByRole('heading', { name: new RegExp(`from ${payer('x')}$`) }).waitFor();
        await page.getByRole('radio', { name: 'Dismiss with a reason' }).check();
        await page.getByRole('textbox', { name: 'Reason' }).fill('A card refund, not a subscription payment');
        await checkScreen(page, 'dismiss', size.width);
        await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
        await page.getByText(/Done: the line is now dismissed/).waitFor();
        const dismissed = await lineOf(payer('x'));
        assert.equal(dismissed.status, 'dismissed');
        await decide('x').waitFor({ state: 'detached' });

        // The other statuses are one choice away.
        await page.getByLabel('Status').selectOption('dismissed');
        await page.getByText(payer('x')).first().waitFor();
        await checkScreen(page, 'dismissed', size.width);
      });
    });
  }
});
