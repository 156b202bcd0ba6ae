// Keeps docs/operations/distributed.md true: the plan for running on Citus distributed by the deal.
// It captures every statement the hot paths send (a move with and without an Idempotency-Key, an
// event edit, a subscription booking, an investor's data written and read, an investor's journey
// read) and checks that each either carries the distribution column (`deal_id`), touches only
// tables the plan makes reference or local tables, or is one the page lists, under "Statements
// that cross shards today", by its signature (the statement's verb and its tables). A new statement
// without `deal_id` on a distributed table fails here until the page says how it is to run.
// PostgreSQL only: the statements are seen at the `pg` pool (PGlite has none).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDeal } from '../support/deals.ts';
import { investorBody, subscriptionBody, uniqueAssetId, uniqueId } from '../support/fixtures.ts';
import type { Client } from '../support/app.ts';
import { skipUnlessPostgres } from '../support/app.ts';
import { startCountingApp } from '../support/counting-app.ts';

const page = readFileSync(fileURLToPath(new URL('../../docs/operations/distributed.md', import.meta.url)), 'utf8');

/** The backticked entries of a section of the page (up to the next heading of its level or above). */
function listed(heading: string): Set<string> {
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/operations/distributed.md has a section "## ${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));
}

/** The tables a statement names (after from, join, into, update). */
const tablesOf = (text: string) =>
  [...new Set([...text.matchAll(/\b(?:from|join|into|update)\s+(?:only\s+)?"?([a-z_]+)"?(?:\s|$|\(|,)/gi)].map((m) => m[1]!.toLowerCase()))]
    .filter((t) => !['set', 'unnest', 'lateral', 'jsonb_to_recordset', 'jsonb_array_elements', 'generate_series', 'pg_control_system'].includes(t))
    .sort();

const verbOf = (text: string) => {
  const body = text.replace(/^\s*(\/\*.*?\*\/\s*)*/s, '');
  const first = /^([a-z]+)/i.exec(body)?.[1]?.toLowerCase() ?? '';
  if (first !== 'with') return first;
  // A statement with CTEs writes when any CTE or its main part does.
  const writes = [...body.matchAll(/\b(insert|update|delete)\b/gi)].map((m) => m[1]!.toLowerCase());
  return writes.length > 0 ? writes[0]! : 'select';
};

const controlStatement = /^\s*(begin|commit|rollback|set|savepoint|release|start transaction|select set_config)/i;

describe('statements of the hot paths and the distribution column (PostgreSQL)', { skip: skipUnlessPostgres }, () => {
  const counting = startCountingApp();
  let admin: Client;
  before(() => {
    admin = counting.admin();
  });

  test('every statement carries deal_id, stays on reference or local tables, or is listed as crossing shards', async () => {
    const reference = listed('Reference tables');
    const local = listed('Local tables');
    const crossing = listed('Statements that cross shards today');

    // Warm the caches (token, workflow) outside the capture.
    const deal = await createDeal(admin);
    const investor = await deal.addInvestor();
    const assetId = uniqueAssetId();
    assert.equal((await admin.put(`/portfolio/assets/${assetId}`, { name: 'Fund', currency: 'EUR' })).status, 201);
    await deal.move(await deal.addInvestor(), 'interest');

    counting.take();
    const expect = async (status: number, call: Promise<{ status: number; text: string }>) => {
      const response = await call;
      assert.equal(response.status, status, response.text);
      return response;
    };
    const move = (step: string, data: Record<string, string> = {}, headers?: Record<string, string>) =>
      admin.post(`/deals/deal/${deal.dealId}/jump-to-step`, { investorUserId: investor, targetStepId: deal.step(step), data }, headers);
    await expect(201, move('interest'));
    const moved = await expect(201, move('commitment', { committed_amount: '100.00', currency: 'EUR' }, { 'idempotency-key': uniqueId('key') }));
    await expect(200, admin.post(`/deals/event/${JSON.parse(moved.text).id}/edit`, { committed_amount: '150.00', currency: 'EUR' }));
    await expect(201, admin.post('/portfolio/transactions/subscriptions', subscriptionBody(assetId, investor), { 'idempotency-key': uniqueId('key') }));
    await expect(200, admin.put(`/investors/${investor}`, investorBody({ forename: 'Renamed' })));
    await expect(200, admin.get(`/investors/${investor}`));
    await expect(200, admin.get(`/deals/deal/${deal.dealId}/investor-data/${investor}`));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the token's use, recorded after the answer

    const found = new Map<string, string>();
    for (const text of counting.take()) {
      if (controlStatement.test(text)) continue;
      const tables = tablesOf(text);
      if (tables.length === 0) continue; // select 1, a function call
      if (/\bdeal_id\b/.test(text)) continue;
      if (tables.every((table) => reference.has(table) || local.has(table))) continue;
      found.set(`${verbOf(text)} ${tables.join(' ')}`, text.replace(/\s+/g, ' ').slice(0, 160));
    }
    const unlisted = [...found.keys()].filter((s) => !crossing.has(s));
    assert.deepEqual(
      unlisted.map((s) => `${s}: ${found.get(s)}`),
      [],
      'statements without deal_id on distributed tables that docs/operations/distributed.md does not list',
    );
    const gone = [...crossing].filter((s) => !found.has(s));
    assert.deepEqual(gone, [], 'statements docs/operations/distributed.md lists that the hot paths no longer send');
  });
});
