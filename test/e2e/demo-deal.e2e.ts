// The console in a real browser against the real service (PGlite, demo deal): sign in, open the
// demo deal's board, move an investor through the dialog (first refused for a missing field, then
// accepted), see the move in the journey timeline, approve an edit request, look at the graph.
// Screenshots of the board, the drawer and the graph go to test-results/screenshots/; `npm run
// screenshots` writes them to docs/screenshots/ (shown in the README and docs/) instead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { demoDealId, screenshot, skipE2e, startE2e, type E2e } from './harness.ts';

interface Step {
  id: string;
  label: string;
  type: string;
  stepFields: { fieldKey: string; required: boolean; kind?: string; label?: string | null; options?: string[] | null }[];
  nextStepLinks: { fromStepId: string; toStepId: string }[];
  requirements?: unknown[];
}

const fieldLabel = (field: { fieldKey: string; label?: string | null }) =>
  field.label || field.fieldKey.replace(/[_-]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** A valid value for a field of this kind, as the dialog's controls take it. */
function sampleValue(field: Step['stepFields'][number]): string {
  switch (field.kind ?? 'text') {
    case 'amount':
      return '25000.00';
    case 'currency':
      return 'EUR';
    case 'date':
      return '2026-11-20';
    case 'email':
      return 'someone@example.com';
    case 'choice':
      return field.options?.[0] ?? '';
    case 'number':
      return '12.5';
    default:
      return 'Checked by e2e';
  }
}

async function fillField(page: Page, field: Step['stepFields'][number], value: string) {
  const control = page.locator(`#move-field-${field.fieldKey}`);
  if (field.kind === 'currency' || field.kind === 'choice') await control.selectOption(value);
  else await control.fill(value);
}

describe('the console on the demo deal, end to end', { skip: skipE2e }, () => {
  let e: E2e;
  let dealId: string;
  let steps: Step[];
  /** The investor moved by the tests, the step they start on and the step they move to. */
  let mover: { id: string; fullName: string };
  let from: Step;
  let to: Step;

  before(async () => {
    e = await startE2e();
    ({ dealId } = await demoDealId(e));
    steps = (await e.api('GET', `/deals/deal/${encodeURIComponent(dealId)}/workflow-status`)).body.steps;
    // A step with investors whose next step asks for a required field: the refused move.
    const board = (await e.api('GET', `/console/deals/${encodeURIComponent(dealId)}/board`)).body;
    const occupied = new Set(board.columns.filter((c: { count: number }) => c.count > 0).map((c: { stepId: string }) => c.stepId));
    for (const step of steps) {
      if (!occupied.has(step.id)) continue;
      for (const link of step.nextStepLinks) {
        const next = steps.find((s) => s.id === link.toStepId)!;
        if (next.stepFields.some((f) => f.required) && (next.requirements ?? []).length === 0) {
          from ??= step;
          to ??= next;
        }
      }
    }
    assert.ok(from && to, 'the demo workflow has a step followed by one with required fields');
    const cards = await e.api('GET', `/console/deals/${encodeURIComponent(dealId)}/board/cards?stepId=${encodeURIComponent(from.id)}&limit=100`);
    // An investor who has not captured the next step's required fields yet, and whose name is
    // unique in the deal (the tests find their card and dialogs by name; demo names can repeat).
    for (const card of cards.body.output) {
      const namesakes = await e.api(
        'GET',
        `/deals/deal/${encodeURIComponent(dealId)}/all-investor-workflows?limit=2&query=${encodeURIComponent(card.fullName)}`,
      );
      if (namesakes.body.output.length !== 1) continue;
      const journey = (await e.api('GET', `/deals/deal/${encodeURIComponent(dealId)}/investor-data/${encodeURIComponent(card.investorUserId)}`)).body.journey;
      const captured = new Set(journey.flatMap((ev: { data: object }) => Object.keys(ev.data)));
      if (to.stepFields.filter((f) => f.required).every((f) => !captured.has(f.fieldKey))) {
        mover = { id: card.investorUserId, fullName: card.fullName };
        break;
      }
    }
    assert.ok(mover, `an investor at ${from.label} without ${to.label}'s data`);
  });
  after(() => e?.close());

  test('the token screen refuses a wrong token, then the admin token opens the deals list', async () => {
    const { page } = e;
    await page.goto(`${e.url}/console/`);
    const token = page.getByRole('textbox', { name: 'Admin token' });
    await token.fill('dfk_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await token.fill(e.adminToken);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await page.getByRole('heading', { name: 'Deals' }).waitFor();
    await page.getByRole('row').filter({ hasText: dealId }).waitFor();
  });

  test('the board shows a column per step with counts and cards', async () => {
    const { page } = e;
    await page.getByRole('row').filter({ hasText: dealId }).getByRole('link').click();
    await page.locator('.column').first().waitFor();
    assert.equal(await page.locator('.column').count(), steps.length);
    const fromColumn = page.locator(`.column[data-step-id="${from.id}"]`);
    await fromColumn.locator(`.card[data-investor-id="${mover.id}"]`).or(fromColumn.locator('.card:not(.card-placeholder)').first()).first().waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'board');
  });

  test('search finds the investor by name', async () => {
    const { page } = e;
    await page.getByRole('searchbox').fill(mover.fullName);
    await page.locator(`.card[data-investor-id="${mover.id}"]`).waitFor();
    await page.getByText(/investors? match(es)? “/).waitFor();
  });

  test('a move without the required field is refused in the dialog, naming the field, and nothing moves', async () => {
    const { page } = e;
    await page.getByRole('button', { name: `Actions for ${mover.fullName}` }).click();
    await page.getByRole('menuitem', { name: `Move to ${to.label}` }).click();
    const dialog = page.getByRole('dialog', { name: `Move ${mover.fullName}` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: `Move to ${to.label}` }).click();
    const refusal = dialog.getByTestId('move-refusal');
    await refusal.waitFor();
    const required = to.stepFields.find((f) => f.required)!;
    assert.match(await refusal.innerText(), new RegExp(fieldLabel(required), 'i'));
    await screenshot(page, 'move-refused');
    const summary = await e.api('GET', `/console/deals/${encodeURIComponent(dealId)}/investors/${encodeURIComponent(mover.id)}`);
    assert.equal(summary.body.stepId, from.id, 'nothing moved');
  });

  test('with the fields filled in, the move goes through and the card changes column', async () => {
    const { page } = e;
    const dialog = page.getByRole('dialog', { name: `Move ${mover.fullName}` });
    for (const field of to.stepFields) await fillField(page, field, sampleValue(field));
    await dialog.getByRole('button', { name: `Move to ${to.label}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .filter({ hasText: `moved to ${to.label}` })
      .waitFor();
    await page.locator(`.column[data-step-id="${to.id}"] .card[data-investor-id="${mover.id}"]`).waitFor();
    const summary = await e.api('GET', `/console/deals/${encodeURIComponent(dealId)}/investors/${encodeURIComponent(mover.id)}`);
    assert.equal(summary.body.stepId, to.id);
  });

  test('dragging a card onto another column opens the dialog for that step; cancelling moves nothing', async () => {
    const { page } = e;
    const card = page.locator(`.column[data-step-id="${to.id}"] .card[data-investor-id="${mover.id}"]`);
    await card.dragTo(page.locator(`.column[data-step-id="${from.id}"] .column-body`));
    const dialog = page.getByRole('dialog', { name: `Move ${mover.fullName}` });
    await dialog.waitFor();
    assert.equal(await dialog.locator('select[name="targetStepId"]').inputValue(), from.id);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await card.waitFor();
  });

  test('the drawer shows the move in the journey timeline and the payment reference', async () => {
    const { page } = e;
    await page.locator(`.card[data-investor-id="${mover.id}"] .card-main`).click();
    const drawer = page.getByRole('dialog', { name: mover.fullName });
    await drawer.waitFor();
    await drawer
      .locator('.timeline-item.latest')
      .filter({ hasText: `${from.label} → ${to.label}` })
      .waitFor();
    await drawer.getByRole('button', { name: 'Copy payment reference' }).waitFor();
    assert.match(await drawer.locator('#payment-reference').innerText(), /^RF/);
    await screenshot(page, 'drawer');
  });

  test('an edit request is approved from the drawer and the event shows the new amount', async (t) => {
    const { page } = e;
    const journey = (await e.api('GET', `/deals/deal/${encodeURIComponent(dealId)}/investor-data/${encodeURIComponent(mover.id)}`)).body.journey;
    const latest = journey.at(-1);
    const amountField = to.stepFields.find((f) => f.kind === 'amount');
    const created = await e.api('POST', '/deals/request-to-edit', {
      workflowEventId: latest.id,
      type: 'Investment Amount',
      reason: 'Increase after the partners call',
      ...(amountField ? { newData: { [amountField.fieldKey]: '30000.00' } } : {}),
    });
    if (created.status === 404 && String(created.body?.detail ?? '').startsWith('No route')) {
      t.skip('edit requests are not in this build yet');
      return;
    }
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Reopen the drawer so it reads the new request.
    await page.getByRole('button', { name: 'Close' }).click();
    await page.locator(`.card[data-investor-id="${mover.id}"] .card-main`).click();
    const drawer = page.getByRole('dialog', { name: mover.fullName });
    const request = drawer.locator(`.request[data-request-id="${created.body.id}"]`);
    await request.getByText('pending').waitFor();
    await page.waitForTimeout(200);
    await screenshot(page, 'drawer');
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.getByText('approved').waitFor();
    if (amountField) await drawer.locator('.timeline-item.latest').filter({ hasText: '30,000.00' }).waitFor();
    const after = await e.api('GET', `/deals/request-to-edit/${created.body.id}`);
    assert.equal(after.body.status, 'approved');
  });

  test('the workflow graph lays out every step with its investor count', async () => {
    const { page } = e;
    await page
      .getByRole('button', { name: 'Close' })
      .click()
      .catch(() => {});
    await page.getByRole('link', { name: 'Workflow graph' }).click();
    await page.locator('.node').first().waitFor();
    assert.equal(await page.locator('.node').count(), steps.length);
    await page.waitForTimeout(200);
    await screenshot(page, 'graph');
  });

  test('a narrow window still reads: one step at a time with a switcher, nothing scrolls sideways', async () => {
    const { page } = e;
    await page.setViewportSize({ width: 420, height: 820 });
    await page.getByRole('link', { name: 'Board' }).click();
    await page.locator('.column').first().waitFor();
    await page.getByRole('group', { name: 'Step shown' }).waitFor();
    assert.equal(await page.locator('.board .column').count(), 1);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 1, `the page itself does not scroll sideways (${overflow}px)`);
    await screenshot(page, 'board-narrow');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
