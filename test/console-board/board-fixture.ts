// A deal with a workflow and investors placed on it, for the console read models. The deal and
// the investors go through the management API; the workflow, journeys and events are written
// straight into the deal, workflow and journey tables (the real database; no mock), so these tests pin the read models
// without depending on the jump rules.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generatePaymentReference } from '../../src/store/payment-references.ts';
import type { DB } from '../../src/store/schema.ts';
import type { Client } from '../support/app.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';

export interface FixtureStep {
  id: string;
  type?: 'default' | 'complete' | 'withdrawn';
  fields?: { fieldKey: string; kind?: string; required?: boolean }[];
}

export interface FixtureInvestor {
  forename: string;
  surname: string;
  email?: string;
  /** Events in order: the step moved to and its data. */
  moves: { to: string; data?: Record<string, string>; at?: string }[];
}

export async function seedBoard(
  db: Kysely<DB>,
  admin: Client,
  options: { name?: string; currency?: string | null; steps: FixtureStep[]; investors: FixtureInvestor[] },
) {
  const dealId = uniqueId('deal');
  const prefix = dealId.slice(5);
  const stepId = (id: string) => `${prefix}-${id}`;
  const put = await admin.put(`/deals/deal/${dealId}`, { name: options.name ?? 'Fixture deal', currency: options.currency ?? null });
  if (put.status !== 201) throw new Error(`deal: ${put.status} ${put.text}`);
  const now = new Date();
  await db
    .insertInto('workflows')
    .values({
      deal_id: dealId,
      id: randomUUID(),
      label: 'Fixture',
      description: '',
      investor_engagement_enabled: true,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('workflow_steps')
    .values(
      options.steps.map((s, position) => ({
        id: stepId(s.id),
        deal_id: dealId,
        label: s.id,
        type: s.type ?? 'default',
        position,
        fields: JSON.stringify(
          (s.fields ?? []).map((f) => ({ fieldKey: f.fieldKey, required: f.required ?? false, kind: f.kind ?? 'text', label: null, options: null })),
        ),
        requirements: '[]',
        form_id: null,
        retired_at: null,
      })),
    )
    .execute();
  for (let i = 1; i < options.steps.length; i++) {
    await db
      .insertInto('workflow_links')
      .values({ deal_id: dealId, from_step_id: stepId(options.steps[i - 1]!.id), to_step_id: stepId(options.steps[i]!.id) })
      .execute();
  }
  const investorIds: string[] = [];
  for (const investor of options.investors) {
    const id = uniqueId('inv');
    investorIds.push(id);
    const body = investorBody({ forename: investor.forename, surname: investor.surname, ...(investor.email ? { email: investor.email } : {}) });
    const created = await admin.put(`/investors/${id}`, body);
    if (created.status !== 201) throw new Error(`investor: ${created.status} ${created.text}`);
    const times = investor.moves.map((m, n) => (m.at ? new Date(m.at) : new Date(now.getTime() - (investor.moves.length - n) * 86_400_000)));
    const last = investor.moves.at(-1)!;
    await db
      .insertInto('journeys')
      .values({
        deal_id: dealId,
        investor_user_id: id,
        current_step_id: stepId(last.to),
        event_count: investor.moves.length,
        payment_reference: generatePaymentReference(),
        started_at: times[0]!,
        moved_at: times.at(-1)!,
        // What a move's write keeps on the row (migration 0021): its events' data, later ones winning.
        captured: JSON.stringify(Object.assign({}, ...investor.moves.map((m) => m.data ?? {}))),
        visited: [...new Set(investor.moves.map((m) => stepId(m.to)))],
      })
      .execute();
    let from: string | null = null;
    for (const [seq, move] of investor.moves.entries()) {
      await db
        .insertInto('workflow_events')
        .values({
          id: randomUUID(),
          deal_id: dealId,
          investor_user_id: id,
          seq: seq + 1,
          from_step_id: from,
          to_step_id: stepId(move.to),
          data: JSON.stringify(move.data ?? {}),
          created_by_user_id: 'fixture',
          created_at: times[seq]!,
        })
        .execute();
      from = stepId(move.to);
    }
  }
  return { dealId, stepId, investorIds };
}

/** The demo-like workflow of these tests: interest → commitment → complete, and withdrawn. */
export const pipeline: FixtureStep[] = [
  { id: 'interest' },
  {
    id: 'commitment',
    fields: [
      { fieldKey: 'committed_amount', kind: 'amount', required: true },
      { fieldKey: 'currency', kind: 'currency', required: true },
    ],
  },
  { id: 'complete', type: 'complete' },
  { id: 'withdrawn', type: 'withdrawn' },
];
