// The live console, end to end, at 1440×900 and 390×844, light and dark, with axe-core finding
// nothing and nothing scrolling sideways:
// - two browser contexts on the same deal's board: a move made in the first reaches the second
//   within a second (the card changes column, on a phone the column the switcher shows, and a polite
//   "… is now at … · moved by … just now" line says so);
// - one browser on a deal's board and another on the Inbox: an edit request filed through the API
//   in a third deal reaches both badges and the Inbox's list within a second, and its decision
//   takes it off again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { investorBody } from '../support/fixtures.ts';
import { checkScreen, skipE2e, startE2e, type E2e, waitForExpression } from './harness.ts';

async function signedIn(browser: Browser, e: E2e, width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${e.url}/console/`);
  await page.getByRole('textbox', { name: 'Admin token' }).fill(e.adminToken);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('heading', { name: 'Deals', exact: true }).waitFor();
  return page;
}

describe('the live board, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  before(async () => {
    e = await startE2e({ demo: false });
  });
  after(() => e?.close());

  for (const width of [1440, 390]) {
    test(`at ${width} px: a move made in one browser shows in another within a second`, async () => {
      const dealId = `live-${width}`;
      const step = (id: string) => `${dealId}.${id}`;
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };
      await must('PUT', `/deals/deal/${dealId}`, { name: `Live board ${width}`, currency: 'EUR' });
      await must('PUT', `/deals/deal/${dealId}/workflow`, {
        label: 'Live',
        description: 'Two steps',
        investorEngagementEnabled: false,
        steps: [
          { id: step('interest'), label: 'Interest', type: 'default', stepFields: [] },
          { id: step('documents'), label: 'Documents', type: 'default', stepFields: [] },
        ],
        links: [{ fromStepId: step('interest'), toStepId: step('documents') }],
      });
      const investor = `live-investor-${width}`;
      await must('PUT', `/investors/${investor}`, investorBody({ forename: 'Mira', surname: `Okafor ${width}`, email: `mira${width}@example.com` }));
      await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor, targetStepId: step('interest'), data: {} });

      const first = await signedIn(e.browser, e, width);
      const second = await signedIn(e.browser, e, width);
      try {
        for (const page of [first, second]) {
          await page.goto(`${e.url}/console/#/deals/${dealId}`);
          await page.locator(`[data-investor-id="${investor}"]`).first().waitFor();
        }
        // A phone shows one step at a time: the second browser looks at the step Mira will reach.
        if (width < 500) {
          await second.getByRole('group', { name: 'Step shown' }).getByRole('combobox').selectOption(step('documents'));
          await second.locator(`.board .column[data-step-id="${step('documents')}"]`).waitFor();
        }
        await second.waitForTimeout(500); // the stream is open (ticket, then EventSource)
        // The second browser notes, on its own clock, when the note and the card in its new column appear.
        const cardSelector = `[data-step-id="${step('documents')}"] [data-investor-id="${investor}"]`;
        await second.evaluate(`(() => {
          window.__seen = {};
          const look = () => {
            const now = Date.now();
            if (!window.__seen.note && /is now at Documents · moved by/.test(document.querySelector('.live-note')?.textContent ?? '')) window.__seen.note = now;
            if (!window.__seen.card && document.querySelector(${JSON.stringify(cardSelector)})) window.__seen.card = now;
          };
          new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
        })()`);

        // The first browser moves Mira, as its move dialog does: the console's own API call.
        const body = JSON.stringify({ investorUserId: investor, targetStepId: step('documents'), data: {} });
        const answered = (await first.evaluate(`(async () => {
          const token = sessionStorage.getItem('dealflow.console.token') ?? localStorage.getItem('dealflow.console.token');
          const base = location.pathname.replace(/\\/console(\\/.*)?$/, '');
          const response = await fetch(base + '/deals/deal/${dealId}/jump-to-step', {
            method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: ${JSON.stringify(body)},
          });
          return { status: response.status, at: Date.now() };
        })()`)) as { status: number; at: number };
        assert.equal(answered.status, 201);

        const note = second.getByRole('status').filter({ hasText: /is now at Documents · moved by/ });
        await note.waitFor({ timeout: 2000 });
        await second.locator(cardSelector).waitFor({ timeout: 2000 });
        const seen = (await second.evaluate('window.__seen')) as { note: number; card: number };
        const noteAfter = seen.note - answered.at;
        const cardAfter = seen.card - answered.at;
        assert.ok(
          noteAfter < 1000 && cardAfter < 1000,
          `the second browser showed the note ${noteAfter} ms and the card ${cardAfter} ms after the move was answered`,
        );
        assert.match((await note.textContent()) ?? '', new RegExp(`Mira Okafor ${width} is now at Documents · moved by .+ just now`));
        if (process.env.LIVE_TIMINGS) console.log(`${width} px: note after ${noteAfter} ms, card after ${cardAfter} ms`);

        await checkScreen(second, { prefix: 'live-board', name: 'light', width });
        await second.emulateMedia({ colorScheme: 'dark' });
        await checkScreen(second, { prefix: 'live-board', name: 'dark', width });
      } finally {
        await first.context().close();
        await second.context().close();
      }
    });
  }

  for (const width of [1440, 390]) {
    test(`at ${width} px: an edit request filed in another deal reaches the Inbox and the badge of other browsers within a second`, async () => {
      const must = async (method: string, path: string, body?: unknown) => {
        const response = await e.api(method, path, body);
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };
      /** A deal whose one investor has committed; returns the commitment event's id. */
      const committedDeal = async (dealId: string, investor: string, surname: string) => {
        const step = (id: string) => `${dealId}.${id}`;
        await must('PUT', `/deals/deal/${dealId}`, { name: `Inbox ${dealId}`, currency: 'EUR' });
        await must('PUT', `/deals/deal/${dealId}/workflow`, {
          label: 'Inbox',
          description: 'Two steps',
          investorEngagementEnabled: false,
          steps: [
            { id: step('interest'), label: 'Interest', type: 'default', stepFields: [] },
            {
              id: step('commitment'),
              label: 'Commitment',
              type: 'default',
              stepFields: [
                { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
                { fieldKey: 'currency', required: true, kind: 'currency', label: 'Currency' },
              ],
            },
          ],
          links: [{ fromStepId: step('interest'), toStepId: step('commitment') }],
        });
        await must('PUT', `/investors/${investor}`, investorBody({ forename: 'Noor', surname, email: `${investor}@example.com` }));
        await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: investor, targetStepId: step('interest'), data: {} });
        return (
          await must('POST', `/deals/deal/${dealId}/jump-to-step`, {
            investorUserId: investor,
            targetStepId: step('commitment'),
            data: { committed_amount: '20000.00', currency: 'EUR' },
          })
        ).id as string;
      };
      const viewed = `inbox-viewed-${width}`;
      await committedDeal(viewed, `inbox-viewer-${width}`, `Viewed${width}`);
      const surname = `Elsewhere${width}`;
      const eventId = await committedDeal(`inbox-other-${width}`, `inbox-asker-${width}`, surname);
      const before = (await must('GET', '/console/edit-requests?limit=1')).total as number;

      const board = await signedIn(e.browser, e, width);
      const inbox = await signedIn(e.browser, e, width);
      try {
        await board.goto(`${e.url}/console/#/deals/${viewed}`);
        await board.locator('.column').first().waitFor();
        await inbox.goto(`${e.url}/console/#/inbox`);
        await inbox.getByRole('heading', { name: 'Inbox' }).waitFor();
        await inbox.waitForTimeout(500); // the streams are open (ticket, then EventSource)
        // Each browser notes, on its own clock, when the badge counts the request and the list shows it.
        const badge = String(before + 1);
        for (const page of [board, inbox]) {
          await page.evaluate(`(() => {
            window.__seen = {};
            const look = () => {
              const now = Date.now();
              if (!window.__seen.badge && document.querySelector('.count-badge [aria-hidden]')?.textContent === ${JSON.stringify(badge)}) window.__seen.badge = now;
              if (!window.__seen.item && [...document.querySelectorAll('.inbox-item')].some((item) => item.textContent.includes(${JSON.stringify(surname)}))) window.__seen.item = now;
            };
            new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
          })()`);
        }

        const request = await must('POST', '/deals/request-to-edit', {
          workflowEventId: eventId,
          type: 'Investment Amount',
          reason: 'Raised by telephone',
          newData: { committed_amount: '35000.00' },
        });
        const filed = Date.now();
        const item = inbox.locator(`[data-request-id="${request.id}"]`);
        await item.getByText('Raised by telephone').waitFor({ timeout: 2000 });
        for (const page of [board, inbox]) await page.locator('.count-badge').getByText(badge, { exact: true }).waitFor({ timeout: 2000 });
        const onBoard = (await board.evaluate('window.__seen')) as { badge: number };
        const onInbox = (await inbox.evaluate('window.__seen')) as { badge: number; item: number };
        const after = { board: onBoard.badge - filed, badge: onInbox.badge - filed, item: onInbox.item - filed };
        assert.ok(after.board < 1000 && after.badge < 1000 && after.item < 1000, `filed, then shown after: ${JSON.stringify(after)} ms`);
        if (process.env.LIVE_TIMINGS)
          console.log(`${width} px: Inbox item after ${after.item} ms, its badge ${after.badge} ms, the board's badge ${after.board} ms`);
        await item.getByText('35,000.00').waitFor();

        await checkScreen(inbox, { prefix: 'live-inbox', name: 'light', width });
        await inbox.emulateMedia({ colorScheme: 'dark' });
        await checkScreen(inbox, { prefix: 'live-inbox', name: 'dark', width });

        // Decided elsewhere (through the API): off the list and the badges.
        await must('POST', `/deals/request-to-edit/${request.id}/reject`, { reason: 'Not this round' });
        await item.waitFor({ state: 'detached', timeout: 2000 });
        const settled =
          before === 0
            ? `!document.querySelector('.count-badge')`
            : `document.querySelector('.count-badge [aria-hidden]')?.textContent === ${JSON.stringify(String(before))}`;
        for (const page of [board, inbox]) await waitForExpression(page, settled, 2000);
      } finally {
        await board.context().close();
        await inbox.context().close();
      }
    });
  }
});
