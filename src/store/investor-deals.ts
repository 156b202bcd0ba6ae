// What one investor sees of their deals (GET /investors/{investorUserId}/deals…), read in one
// statement: per journey with events, the deal, the structure of the workflow version the journey
// moves on, the steps entered, every revision of an event that holds the commitment field (with
// whether the investor or staff set it), the edit requests, the payee and the money received.
import { type Kysely, sql } from 'kysely';
import type { InvestorDealFacts } from '../domain/investor-deal.ts';
import type { Workflow } from '../domain/workflow.ts';
import type { DB } from './schema.ts';
import { commitmentKeyOf, currencyKeyOf } from './payment-settings.ts';

type Row = {
  deal_id: string;
  deal_name: string;
  deal_currency: string | null;
  current_step_id: string;
  payment_reference: string;
  structure: unknown;
  commitment_key: string;
  currency_key: string | null;
  beneficiary_name: string | null;
  iban: string | null;
  bic: string | null;
  payee_changed_at: Date | null;
  received: string;
  events: InvestorDealFacts['events'];
  revisions: InvestorDealFacts['revisions'];
  edit_requests: InvestorDealFacts['editRequests'];
};

/**
 * The investor's journeys with events (all, or the one in `dealId`), by deal name then id. A
 * revision counts as the investor's own when its author is the investor's id or one of the API
 * keys bound to them; anyone else (staff, an approval, reconciliation) is staff. Revisions are read
 * through `all_event_revisions` (an event never edited is its own revision 1: migration 0042).
 */
export async function findInvestorDeals(db: Kysely<DB>, investorUserId: string, dealId: string | null): Promise<InvestorDealFacts[]> {
  const { rows } = await sql<Row>`
    with mine as (select id::text as id from api_tokens where investor_user_id = ${investorUserId} union all select ${investorUserId}::text),
    k as (
      select j.deal_id, j.investor_user_id, j.current_step_id, j.payment_reference, j.workflow_version,
        ${commitmentKeyOf} as commitment_key,
        ${currencyKeyOf} as currency_key,
        ps.beneficiary_name, ps.iban, ps.bic, ps.payee_changed_at
      from journeys j left join deal_payment_settings ps on ps.deal_id = j.deal_id
      where j.investor_user_id = ${investorUserId} and j.event_count > 0 and (${dealId}::text is null or j.deal_id = ${dealId}::text)
    )
    select k.deal_id, d.name as deal_name, d.currency as deal_currency, k.current_step_id, k.payment_reference, v.structure,
      k.commitment_key, k.currency_key, k.beneficiary_name, k.iban, k.bic, k.payee_changed_at,
      (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = k.deal_id and a.investor_user_id = k.investor_user_id) as received,
      (select coalesce(json_agg(json_build_object('eventId', e.id, 'stepId', e.to_step_id, 'label', s.label, 'type', s.type,
          'at', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', e.data) order by e.seq), '[]'::json)
        from workflow_events e left join workflow_steps s on s.id = e.to_step_id
        where e.deal_id = k.deal_id and e.investor_user_id = k.investor_user_id) as events,
      (select coalesce(json_agg(json_build_object('eventId', r.event_id, 'seq', e.seq, 'revision', r.revision, 'data', r.data,
          'at', to_char(r.set_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'byInvestor', r.set_by_user_id in (select id from mine)) order by r.set_at, e.seq, r.revision), '[]'::json)
        from workflow_events e join all_event_revisions r on r.event_id = e.id
        where e.deal_id = k.deal_id and e.investor_user_id = k.investor_user_id and r.data ? k.commitment_key) as revisions,
      (select coalesce(json_agg(json_build_object('requestId', q.id, 'eventId', q.workflow_event_id, 'type', q.type, 'status', q.status,
          'newData', q.new_data, 'reason', q.reason, 'createdAt', to_char(q.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'decidedAt', to_char(q.decided_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'decisionNote', q.decision_reason)
          order by q.seq), '[]'::json)
        from edit_requests q where q.deal_id = k.deal_id and q.investor_user_id = k.investor_user_id) as edit_requests
    from k
    join deals d on d.id = k.deal_id
    join workflows w on w.deal_id = k.deal_id
    left join workflow_versions v on v.deal_id = k.deal_id and v.version = coalesce(k.workflow_version, w.version)
    order by d.name, k.deal_id`.execute(db);
  return rows.map((r) => ({
    dealId: r.deal_id,
    dealName: r.deal_name,
    dealCurrency: r.deal_currency,
    currentStepId: r.current_step_id,
    paymentReference: r.payment_reference,
    workflow: r.structure === null ? null : normalized(r.structure as Workflow),
    commitmentFieldKey: r.commitment_key,
    currencyFieldKey: r.currency_key,
    beneficiaryName: r.beneficiary_name,
    iban: r.iban,
    bic: r.bic,
    payeeChangedAt: r.payee_changed_at?.toISOString() ?? null,
    received: r.received,
    events: r.events,
    revisions: r.revisions,
    editRequests: r.edit_requests,
  }));
}

/** Versions recorded before links could be open to investors (migration 0027) have closed links. */
const normalized = (workflow: Workflow): Workflow => ({ ...workflow, links: workflow.links.map((l) => ({ ...l, investorMay: l.investorMay === true })) });
