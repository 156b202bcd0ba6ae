// The sanctions review queue in the console, end to end at 1440×900 and 390×844, light and dark: a
// list loaded, an investor the list names is queued; the approver-level admin dismisses one hit with
// a reason (a blank reason is refused before sending) and confirms another; the decided hits show
// who decided and why; an investor whose category statement expired is listed to renew. axe-core
// finds nothing, and a phone does not scroll sideways.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { checkedFetch } from '../support/contract.ts';
import { investorBody } from '../support/fixtures.ts';
import { checkScreen, type E2e, skipE2e, startE2e } from './harness.ts';

const euList = readFileSync(new URL('../fixtures/sanctions/eu-fsf.xml', import.meta.url), 'utf8');

describe('sanctions checks in the console, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
    const loaded = await checkedFetch(e.url, '/sanctions/lists?fileName=eu.xml', {
      method: 'POST',
      headers: { authorization: `Bearer ${e.adminToken}`, 'content-type': 'application/xml' },
      body: euList,
    });
    assert.equal(loaded.status, 201);
    // An investor whose category statement expired: listed to renew.
    assert.equal((await e.api('PUT', '/investors/renew-ada', investorBody({ forename: 'Ada', surname: 'Byron', dateOfBirth: null }))).status, 201);
    const signedOn = new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10);
    const statement = { category: 'certified-high-net-worth', statementText: 'I am a certified high net worth individual.', signedOn };
    assert.equal((await e.api('POST', '/investors/renew-ada/category-statements', statement)).status, 201);
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    test(`at ${width} px: a hit dismissed with a reason, another confirmed`, async () => {
      const listed = (id: string, forename: string) =>
        e.api('PUT', `/investors/${id}`, investorBody({ forename, surname: 'Sokolov', email: `${id}@example.com`, dateOfBirth: '1968-02-03' }));
      const [dismissed, confirmed] = [`sokolov-a-${width}`, `sokolov-b-${width}`];
      assert.equal((await listed(dismissed, 'Dmitrij')).status, 201);
      assert.equal((await listed(confirmed, 'Dmitry')).status, 201);

      const context = await e.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      try {
        await page.goto(`${e.url}/console/`);
        await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
        await page.getByRole('button', { name: 'Sign in with the key' }).click();
        await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
        await page.getByRole('link', { name: 'Checks' }).click();
        await page.getByRole('heading', { name: 'Sanctions checks' }).waitFor();
        await page.getByTestId('lists-screened').getByText('Screened against EU (2 entries).').waitFor();

        const row = (id: string) => page.locator('tr', { has: page.locator(`a[href="#/investors/${id}"]`) });
        await row(dismissed).getByText('Dmitrij Ivanovič Sokolov').waitFor();
        await checkScreen(page, { prefix: 'checks', name: 'queue-light', width });

        await row(dismissed)
          .getByRole('button', { name: /^Dismiss/ })
          .click();
        await row(dismissed).getByRole('button', { name: 'Dismiss as a false positive' }).click();
        await row(dismissed).getByText('Say why this is not the listed person.').waitFor();
        await row(dismissed)
          .getByRole('textbox', { name: /not the listed person/ })
          .fill('Passport seen: born in Riga in 1990');
        await page.emulateMedia({ colorScheme: 'dark' });
        await checkScreen(page, { prefix: 'checks', name: 'dismissing-dark', width });
        await row(dismissed).getByRole('button', { name: 'Dismiss as a false positive' }).click();
        await page.getByRole('status').getByText('The hit on Dmitrij Sokolov is dismissed.').waitFor();
        await row(dismissed).waitFor({ state: 'detached' });

        await row(confirmed)
          .getByRole('button', { name: /^Confirm/ })
          .click();
        await page.getByRole('status').getByText('Dmitry Sokolov stays blocked from steps that take money.').waitFor();
        await page.emulateMedia({ colorScheme: 'light' });

        await page.getByRole('combobox', { name: 'Hits' }).selectOption('all');
        await row(dismissed).getByText('“Passport seen: born in Riga in 1990”').waitFor();
        await row(confirmed).getByText('confirmed').waitFor();
        await row(confirmed)
          .getByText(/by first-run admin/)
          .waitFor();
        await checkScreen(page, { prefix: 'checks', name: 'decided', width });

        const renewals = page.getByRole('region', { name: 'Category statements to renew' });
        await renewals.getByRole('link', { name: 'Ada Byron' }).waitFor();
        assert.match(await renewals.innerText(), /Certified high net worth[\s\S]*expired \d{4}-\d{2}-\d{2}/);
        await renewals.evaluate((s) => s.scrollIntoView({ block: 'start' }));
        await checkScreen(page, { prefix: 'checks', name: 'renewals', width });

        const hits = (await e.api('GET', `/sanctions/hits?status=all&investorId=${dismissed}`)).body.output;
        assert.deepEqual(
          hits.map((h: { status: string; reason: string }) => [h.status, h.reason]),
          [['dismissed', 'Passport seen: born in Riga in 1990']],
        );
      } finally {
        await context.close();
      }
    });
  }
});
