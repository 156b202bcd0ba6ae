// Closing day's files in the console, end to end, at 1440×900 and 390×844, each screen checked in
// the light and the dark theme (axe-core: no violation; at 390 px nothing scrolls sideways):
// - a CRM export with a `name,email,amount` header and no ids: the columns guessed, the service's
//   dry run as the preview, every row imported (one e-mail twice: flagged, the last row counts), and
//   everyone placed in the deal's first step with their own amount and the deal's currency, in the
//   same request;
// - a European export (`;`, 25.000,00, dd.mm.yyyy): the separator found, the forms guessed, the
//   duplicate e-mail's amounts added up, a row whose placement is refused neither created nor
//   placed and listed with its value, the preview's counts the import's;
// - a CRM export over 1 MiB (9,000 rows): checked and imported as import jobs, placed with its
//   amounts, the summary listing the rows not imported and why;
// - a camt.053 dropped on the Payments page: the outcome (one matched, one queued), the deal's
//   settings page listing its unmatched line, and the queued line assigned to its investor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { checkScreen, skipE2e, startE2e, type E2e } from './harness.ts';

const sizes = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
].filter((s) => !process.env.E2E_WIDTH || String(s.width) === process.env.E2E_WIDTH);

/** The screen in both themes. */
async function bothThemes(page: Page, name: string, width: number) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await checkScreen(page, { prefix: 'closing-day', name: `${name}-${colorScheme}`, width });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const camt = (tag: string, entries: { amount: string; payer: string; reference?: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${tag}</MsgId>` +
  `<CreDtTm>2026-11-26T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${tag}</Id><CreDtTm>2026-11-26T18:00:00</CreDtTm><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>\n` +
  entries
    .map(
      (e, i) =>
        `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-26</Dt></BookgDt><ValDt><Dt>2026-11-26</Dt></ValDt>` +
        `<AcctSvcrRef>${tag}-${i}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>${tag}-E2E-${i}</EndToEndId></Refs><RltdPties><Dbtr><Nm>${e.payer}</Nm></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd>${e.reference ?? 'subscription'}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`,
    )
    .join('') +
  '</Stmt></BkToCstmrStmt></Document>\n';

describe('closing day: a CRM export and a bank statement through the console', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const size of sizes) {
    describe(`at ${size.width}×${size.height}`, () => {
      const dealId = `close-${size.width}`;
      const bigDealId = `close-big-${size.width}`;
      const euDealId = `close-eu-${size.width}`;
      const step = (name: string, deal = dealId) => `${deal}.${name}`;
      const people = [
        ['Grace Brewster Hopper', `grace.${size.width}@example.com`, '25000.00'],
        ['Ada Lovelace', `ada.${size.width}@example.com`, '50000.00'],
        ['Alan Turing', `alan.${size.width}@example.com`, '10000.00'],
        ['Katherine Johnson', `katherine.${size.width}@example.com`, '15000.00'],
      ];
      let context: BrowserContext;
      let page: Page;
      const ids: Record<string, string> = {};
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };

      before(async () => {
        context = await e.browser.newContext({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        for (const [id, name] of [
          [dealId, `Closing ${size.width}`],
          [bigDealId, `Closing big ${size.width}`],
          [euDealId, `Closing Europe ${size.width}`],
        ] as const) {
          await must('PUT', `/deals/deal/${id}`, { name, currency: 'EUR' });
          await must('PUT', `/deals/deal/${id}/workflow`, {
            label: 'Subscription',
            description: 'commitment, funds received, complete',
            investorEngagementEnabled: true,
            steps: [
              {
                id: step('commitment', id),
                label: 'Commitment',
                type: 'default',
                stepFields: [
                  { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
                  { fieldKey: 'currency', required: true, kind: 'currency', label: 'Currency' },
                  { fieldKey: 'closed_on', required: false, kind: 'date', label: 'Closed on' },
                ],
              },
              {
                id: step('payment', id),
                label: 'Funds received',
                type: 'default',
                stepFields: [
                  { fieldKey: 'amount_received', required: true, kind: 'amount' },
                  { fieldKey: 'received_on', required: true, kind: 'date' },
                ],
              },
              { id: step('complete', id), label: 'Complete', type: 'complete', stepFields: [] },
            ],
            links: [
              { fromStepId: step('commitment', id), toStepId: step('payment', id) },
              { fromStepId: step('payment', id), toStepId: step('complete', id) },
            ],
          });
        }
        await must('PUT', `/deals/deal/${dealId}/payment-settings`, {
          paymentStepId: step('payment'),
          amountFieldKey: 'amount_received',
          dateFieldKey: 'received_on',
          commitmentFieldKey: 'committed_amount',
        });
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
      });
      after(() => context?.close());

      test('a name,email,amount export without ids is imported whole and placed with its amounts', async () => {
        const rows = [...people.map((p) => p.join(',')), `Ada King,ADA.${size.width}@example.com,50000.00`];
        const file = ['name,email,amount', ...rows].join('\n');
        await page.goto(`${e.url}/console/#/investors/import?deal=${dealId}`);
        await page.getByRole('heading', { name: /Import investors/ }).waitFor();
        await page.getByLabel('CSV file').setInputFiles({ name: 'crm-export.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
        await page.getByTestId('column-map').waitFor();
        assert.equal(await page.getByLabel('name becomes').inputValue(), 'fullName');
        assert.equal(await page.getByLabel('email becomes').inputValue(), 'contact.email');
        assert.equal(await page.getByLabel('amount becomes').inputValue(), 'place:amount');
        await page
          .getByTestId('import-check')
          .getByText(/5 rows, 4 new, 0 to update, 1 unchanged, 0 refused, 4 to place in Commitment; 2 rows share an e-mail/)
          .waitFor();
        await page.getByText('not imported: line 6 counts').waitFor();
        assert.equal(await page.getByLabel('Rows with the same e-mail').inputValue(), 'last');
        await page.getByLabel('“amount” fills').waitFor();
        assert.equal(await page.getByLabel('“amount” fills').inputValue(), 'committed_amount');
        await bothThemes(page, 'crm-preview', size.width);

        await page.getByRole('button', { name: 'Import 5 rows' }).click();
        await page.getByTestId('import-summary').getByText('4 created, 0 updated, 1 unchanged, 0 refused, 4 placed in Commitment.').waitFor();
        await bothThemes(page, 'crm-summary', size.width);

        const board = await must('GET', `/console/deals/${dealId}/rows?limit=50`);
        const found = board.output as { investorUserId: string; stepId: string }[];
        assert.equal(found.length, 4, 'four investors in the deal: the fifth row was the same e-mail');
        for (const [name, email, amount] of people) {
          const directory = await must('GET', `/console/investors?query=${encodeURIComponent(email!)}&page=1&limit=5`);
          const id: string = directory.output[0].id;
          ids[name!] = id;
          const journey = (await must('GET', `/deals/deal/${dealId}/investor-data/${id}`)).journey;
          assert.deepEqual(
            journey.map((j: { toStepId: string; data: object }) => [j.toStepId, j.data]),
            [[step('commitment'), { committed_amount: name === 'Ada Lovelace' ? '50000.00' : amount, currency: 'EUR' }]],
          );
        }
      });

      test('a European export (semicolons, 25.000,00, dd.mm.yyyy) is previewed, imported and placed with exact amounts', async () => {
        const file = [
          'Full Name;Email;Account Name;Amount;Amount Currency;Stage;Close Date',
          `Marie Curie;marie.${size.width}@example.eu;Curie SARL;25.000,00;EUR;Closed Won;01.03.2026`,
          `Emmy Noether;emmy.${size.width}@example.eu;Noether GmbH;"1.234.567,89";EUR;Closed Won;15.03.2026`,
          `Lise Meitner;lise.${size.width}@example.eu;Meitner AG;5.000,00;EURO;Closed Won;02.03.2026`,
          `Marie Curie;MARIE.${size.width}@example.eu;Curie SARL;10.000,00;EUR;Closed Won;09.03.2026`,
        ].join('\r\n');
        await page.goto(`${e.url}/console/#/investors/import?deal=${euDealId}`);
        await page.getByRole('heading', { name: /Import investors/ }).waitFor();
        await page.getByLabel('CSV file').setInputFiles({ name: 'salesforce.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
        await page.getByTestId('column-map').waitFor();
        await page.getByTestId('separator').getByText('Columns separated by semicolons').waitFor();
        assert.equal(await page.getByLabel('Amount becomes').inputValue(), 'place:amount');
        assert.equal(await page.getByLabel('Amount Currency becomes').inputValue(), 'place:currency');
        assert.equal(await page.getByLabel('Close Date becomes').inputValue(), 'place:date');
        assert.equal(await page.getByLabel('Amounts written as').inputValue(), '1.234,56');
        assert.equal(await page.getByLabel('Dates written as').inputValue(), 'dd.mm.yyyy');
        assert.equal(await page.getByLabel('“Close Date” fills').inputValue(), 'closed_on');
        const check = page.getByTestId('import-check');
        await check.getByText(/4 rows, 2 new, 0 to update, 1 unchanged, 1 refused, 2 to place in Commitment; 2 rows share an e-mail/).waitFor();
        const rows = page.getByRole('region', { name: 'Rows of the file' });
        await rows.getByText(/data\.currency: .*\(the row gives "EURO"\)/).waitFor();
        await page.getByLabel('Rows with the same e-mail').selectOption('sum');
        await rows.getByText('new, placed (e-mail also on line 5)').waitFor();
        await rows.getByText('added to line 2').waitFor();
        const previewed = (await check.innerText()).match(/2 new.*Commitment/)![0];
        await bothThemes(page, 'crm-european-preview', size.width);

        await page.getByRole('button', { name: 'Import 4 rows' }).click();
        const summary = page.getByTestId('import-summary');
        await summary.getByText('2 created, 0 updated, 1 unchanged, 1 refused, 2 placed in Commitment.').waitFor();
        assert.equal(previewed, '2 new, 0 to update, 1 unchanged, 1 refused, 2 to place in Commitment', 'the preview counted what the import did');
        assert.match(await summary.innerText(), /Line 4 \(Lise Meitner\): data\.currency: .*\(the row gives "EURO"\)/);
        await bothThemes(page, 'crm-european-summary', size.width);

        const idOf = async (address: string) =>
          (await must('GET', `/console/investors?query=${encodeURIComponent(address)}&page=1&limit=2`)).output[0]?.id as string | undefined;
        const dataOf = async (address: string) =>
          (await must('GET', `/deals/deal/${euDealId}/investor-data/${await idOf(address)}`)).journey.map((j: { data: object }) => j.data);
        assert.deepEqual(
          await dataOf(`marie.${size.width}@example.eu`),
          [{ committed_amount: '35000.00', currency: 'EUR', closed_on: '2026-03-01' }],
          'the two rows added up',
        );
        assert.deepEqual(await dataOf(`emmy.${size.width}@example.eu`), [{ committed_amount: '1234567.89', currency: 'EUR', closed_on: '2026-03-15' }]);
        assert.equal(await idOf(`lise.${size.width}@example.eu`), undefined, 'a row whose placement is refused is not created either');
      });

      test('a CRM export over 1 MiB is checked and imported as import jobs and placed with its amounts; the summary lists the rows not imported and why', async () => {
        const email = (i: number) => `investor.${i}.of.the.big.closing.day.list.${size.width}@example-capital-partners.com`;
        const amount = (i: number) => `${(i % 40) * 2500 + 5000}.00`;
        const rows = Array.from({ length: 9000 }, (_, i) => [`Investor ${i} Of The Big Closing Day List`, email(i), amount(i)]);
        rows[4] = ['Nobody Reachable', `not-an-e-mail-${size.width}`, '1000.00']; // the import refuses it
        rows[7] = ['Odd Amount', email(7), 'about 5000']; // not an amount: neither imported nor placed
        rows[8990] = ['Investor Two Again', email(2).toUpperCase(), '77000.00']; // row 2's investor, far down the file
        const file = ['name,email,amount', ...rows.map((r) => r.join(','))].join('\n');
        assert.ok(file.length > 1024 * 1024, `${file.length} bytes`);
        await page.goto(`${e.url}/console/#/investors/import?deal=${bigDealId}`);
        await page.getByRole('heading', { name: /Import investors/ }).waitFor();
        await page.getByLabel('CSV file').setInputFiles({ name: 'crm-big.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
        await page.getByTestId('column-map').waitFor();
        await page
          .getByTestId('import-check')
          .getByText(/9,000 rows, 8,997 new, 0 to update, 1 unchanged, 2 refused, 8,997 to place in Commitment; 2 rows share an e-mail/)
          .waitFor({ timeout: 300_000 });
        assert.equal(await page.getByLabel('“amount” fills').inputValue(), 'committed_amount');

        await page.getByRole('button', { name: 'Import 9,000 rows' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /Importing 9,000 rows/ })
          .waitFor();
        const summary = page.getByTestId('import-summary');
        await summary.getByText('8,997 created, 0 updated, 1 unchanged, 2 refused, 8,997 placed in Commitment.').waitFor({ timeout: 300_000 });
        const reasons = await summary.innerText();
        assert.match(reasons, /Line 6 \(Nobody Reachable\): contact\.email/);
        assert.match(reasons, /Line 9 \(Odd Amount\): amount: "about 5000" is not a number written as 1234\.56/);
        await bothThemes(page, 'crm-large-summary', size.width);

        // The board counts them, and an investor's step holds the amount of their own row.
        await page.getByRole('link', { name: "Open the deal's board" }).click();
        const column = page.locator(`.column[data-step-id="${step('commitment', bigDealId)}"]`);
        await column.locator('.column-count').getByText('8,997', { exact: true }).waitFor({ timeout: 60_000 });
        assert.equal(await column.getAttribute('aria-label'), 'Commitment: 8,997 investors');
        const idOf = async (address: string) =>
          (await must('GET', `/console/investors?query=${encodeURIComponent(address)}&page=1&limit=2`)).output[0].id as string;
        const dataOf = async (i: number) =>
          (await must('GET', `/deals/deal/${bigDealId}/investor-data/${await idOf(email(i))}`)).journey.map((j: { data: object }) => j.data);
        assert.deepEqual(await dataOf(1234), [{ committed_amount: amount(1234), currency: 'EUR' }]);
        assert.deepEqual(await dataOf(2), [{ committed_amount: '77000.00', currency: 'EUR' }], 'the later row of the e-mail');
        assert.equal((await must('GET', `/console/deals/${bigDealId}/rows?limit=1`)).total, 8997);
      });

      test('a camt.053 dropped on the Payments page: its outcome, the deal lists its unmatched line, the line assigned', async () => {
        const refs = new Map<string, string>(
          (await must('GET', `/deals/deal/${dealId}/all-payment-refernces`)).map((r: { investorUserId: string; paymentReference: string }) => [
            r.investorUserId,
            r.paymentReference,
          ]),
        );
        const grace = ids['Grace Brewster Hopper']!;
        const alan = ids['Alan Turing']!;
        const katherine = ids['Katherine Johnson']!;
        // Grace pays in full with her reference (matched); Alan pays without it (queued, no deal);
        // Katherine pays a third of her commitment (queued as partial, on the deal).
        const statement = camt(`STMT-${size.width}`, [
          { amount: '25000.00', payer: 'G B Hopper', reference: refs.get(grace) },
          { amount: '10000.00', payer: `A Turing ${size.width}`, reference: 'shares' },
          { amount: '5000.00', payer: `K Johnson ${size.width}`, reference: refs.get(katherine) },
        ]);
        await page.goto(`${e.url}/console/#/payments`);
        await page.getByRole('heading', { name: 'Bank payments' }).waitFor();
        await page
          .getByLabel(/camt.053, camt.054 or CSV file/)
          .setInputFiles({ name: 'statement.xml', mimeType: 'application/xml', buffer: Buffer.from(statement) });
        await page.getByRole('button', { name: 'Import statement.xml' }).click();
        const summary = page.getByTestId('statement-summary');
        await summary.waitFor().catch(async (err) => assert.fail(`${err}\n${await page.locator('main').innerText()}`));
        await summary.getByText(/3 lines, 3 new: 1 matched, 2 queued for a decision/).waitFor();
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${grace}`)).stepId, step('payment'), 'the matched credit moved Grace');
        const decide = page.getByRole('button', { name: new RegExp(`^Decide on .* from A Turing ${size.width}$`) });
        await decide.waitFor();
        await bothThemes(page, 'statement-outcome', size.width);

        await page.goto(`${e.url}/console/#/deals/${dealId}/settings`);
        const lines = page.getByTestId('deal-payment-lines');
        await lines.getByText('1 line waits for a decision.').waitFor();
        assert.match(await lines.innerText(), new RegExp(`5,000.00.*K Johnson ${size.width}`));
        await bothThemes(page, 'deal-lines', size.width);
        await lines.getByRole('link', { name: 'Open in Payments' }).click();
        await page.getByRole('button', { name: new RegExp(`^Decide on .* from K Johnson ${size.width}$`) }).waitFor();
        assert.equal(await decide.count(), 0, "the Payments page opened from the deal lists the deal's lines only");
        await page.goto(`${e.url}/console/#/payments`);
        await decide.click();
        const assign = page.getByRole('form', { name: new RegExp(`from A Turing ${size.width}$`) });
        // Found by e-mail (the name is the same at both widths): no id typed.
        await assign.getByRole('searchbox', { name: 'Find an investor by name, e-mail or company' }).fill(`alan.${size.width}@`);
        await assign.getByRole('radio', { name: new RegExp(`^Alan Turing \\(alan\\.${size.width}@example\\.com\\)`) }).check();
        await bothThemes(page, 'statement-assign', size.width);
        await page.getByRole('button', { name: 'Assign to Alan Turing', exact: true }).click();
        await page.getByText(/Assigned to Alan Turing: the line is now matched/).waitFor();
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${alan}`)).stepId, step('payment'), 'Alan paid in full and moved');
      });
    });
  }
});
