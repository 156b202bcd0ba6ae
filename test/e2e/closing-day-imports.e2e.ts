// Closing day's files in the console, end to end, at 1440×900 and 390×844, each screen checked in
// the light and the dark theme (axe-core: no violation; at 390 px nothing scrolls sideways):
// - a CRM export with a `name,email,amount` header and no ids: the columns guessed, the service's
//   dry run as the preview, every row imported (one e-mail twice: merged), and everyone placed in
//   the deal's first step with their own amount and the deal's currency;
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
      const step = (name: string) => `${dealId}.${name}`;
      const people = [
        ['Grace Brewster Hopper', `grace.${size.width}@example.com`, '25000.00'],
        ['Ada Lovelace', `ada.${size.width}@example.com`, '50000.00'],
        ['Alan Turing', `alan.${size.width}@example.com`, '10000.00'],
        ['Katherine Johnson', `katherine.${size.width}@example.com`, '15000.00'],
      ];
      let context: BrowserContext;
      let page: Page;
      let ids: Record<string, string> = {};
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };

      before(async () => {
        context = await e.browser.newContext({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        await must('PUT', `/deals/deal/${dealId}`, { name: `Closing ${size.width}`, currency: 'EUR' });
        await must('PUT', `/deals/deal/${dealId}/workflow`, {
          label: 'Subscription', description: 'commitment, funds received, complete', investorEngagementEnabled: true,
          steps: [
            { id: step('commitment'), label: 'Commitment', type: 'default', stepFields: [
              { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' }, { fieldKey: 'currency', required: true, kind: 'currency', label: 'Currency' }] },
            { id: step('payment'), label: 'Funds received', type: 'default', stepFields: [
              { fieldKey: 'amount_received', required: true, kind: 'amount' }, { fieldKey: 'received_on', required: true, kind: 'date' }] },
            { id: step('complete'), label: 'Complete', type: 'complete', stepFields: [] },
          ],
          links: [{ fromStepId: step('commitment'), toStepId: step('payment') }, { fromStepId: step('payment'), toStepId: step('complete') }],
        });
        await must('PUT', `/deals/deal/${dealId}/payment-settings`, { paymentStepId: step('payment'), amountFieldKey: 'amount_received', dateFieldKey: 'received_on', commitmentFieldKey: 'committed_amount' });
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in' }).click();
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
        await page.getByTestId('import-check').getByText(/5 rows, 4 new, 0 to update, 0 unchanged, 0 refused, 1 merged/).waitFor();
        await page.getByText('merged with an earlier line').waitFor();
        await page.getByLabel('“amount” fills').waitFor();
        assert.equal(await page.getByLabel('“amount” fills').inputValue(), 'committed_amount');
        await bothThemes(page, 'crm-preview', size.width);

        await page.getByRole('button', { name: 'Import 5 rows' }).click();
        await page.getByTestId('placement-summary').getByText('4 placed in Commitment').waitFor();
        assert.match(await page.getByTestId('import-summary').innerText(), /4 created, 1 updated, 0 unchanged, 0 refused/);
        await bothThemes(page, 'crm-summary', size.width);

        const board = await must('GET', `/console/deals/${dealId}/rows?limit=50`);
        const found = board.output as { investorUserId: string; stepId: string }[];
        assert.equal(found.length, 4, 'four investors in the deal: the fifth row was the same e-mail');
        for (const [name, email, amount] of people) {
          const directory = await must('GET', `/console/investors?query=${encodeURIComponent(email!)}&page=1&limit=5`);
          const id: string = directory.output[0].id;
          ids[name!] = id;
          const journey = (await must('GET', `/deals/deal/${dealId}/investor-data/${id}`)).journey;
          assert.deepEqual(journey.map((j: { toStepId: string; data: object }) => [j.toStepId, j.data]), [[step('commitment'), { committed_amount: name === 'Ada Lovelace' ? '50000.00' : amount, currency: 'EUR' }]]);
        }
      });

      test('a camt.053 dropped on the Payments page: its outcome, the deal lists its unmatched line, the line assigned', async () => {
        const refs = new Map<string, string>((await must('GET', `/deals/deal/${dealId}/all-payment-refernces`)).map((r: { investorUserId: string; paymentReference: string }) => [r.investorUserId, r.paymentReference]));
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
        await page.getByLabel(/camt.053, camt.054 or CSV file/).setInputFiles({ name: 'statement.xml', mimeType: 'application/xml', buffer: Buffer.from(statement) });
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
        await assign.getByLabel('Deal id').fill(dealId);
        await assign.getByLabel('Investor id').fill(alan);
        await bothThemes(page, 'statement-assign', size.width);
        await page.getByRole('button', { name: 'Assign', exact: true }).click();
        await page.getByText(/Done: the line is now matched/).waitFor();
        assert.equal((await must('GET', `/console/deals/${dealId}/investors/${alan}`)).stepId, step('payment'), 'Alan paid in full and moved');
      });
    });
  }
});
