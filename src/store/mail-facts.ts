// What the mails about booked credits need, for many investors in one statement: whom to write
// to, the deal's name, the reference, the money received so far and the commitment (the latest
// event that captured the commitment field), so a statement's batch reads it once, however many
// credits it books.
import { type Kysely, sql } from 'kysely';
import { commitmentKeyOf } from './payment-settings.ts';
import type { DB } from './schema.ts';

export interface CreditMailFacts {
  dealId: string;
  investorUserId: string;
  dealName: string;
  fullName: string;
  email: string | null;
  language: string | null;
  paymentReference: string;
  received: string;
  commitment: string | null;
}

type Row = {
  deal_id: string;
  investor_user_id: string;
  deal_name: string;
  full_name: string;
  email: string | null;
  language: string | null;
  payment_reference: string;
  received: string;
  commitment: string | null;
};

export async function findCreditMailFacts(db: Kysely<DB>, pairs: readonly { dealId: string; investorUserId: string }[]): Promise<CreditMailFacts[]> {
  if (pairs.length === 0) return [];
  const { rows } = await sql<Row>`
    select j.deal_id, j.investor_user_id, d.name as deal_name, i.full_name, i.email, i.language, j.payment_reference,
      (select coalesce(sum(a.amount), 0)::text from payment_allocations a where a.deal_id = j.deal_id and a.investor_user_id = j.investor_user_id) as received,
      (select e.data ->> ${commitmentKeyOf} from workflow_events e
        where e.deal_id = j.deal_id and e.investor_user_id = j.investor_user_id and e.data ? ${commitmentKeyOf} order by e.seq desc limit 1) as commitment
    from journeys j
    join deals d on d.id = j.deal_id
    join investors i on i.id = j.investor_user_id
    left join deal_payment_settings ps on ps.deal_id = j.deal_id
    where (j.deal_id, j.investor_user_id) in (select * from unnest(${pairs.map((p) => p.dealId)}::text[], ${pairs.map((p) => p.investorUserId)}::text[]))`.execute(
    db,
  );
  return rows.map((r) => ({
    dealId: r.deal_id,
    investorUserId: r.investor_user_id,
    dealName: r.deal_name,
    fullName: r.full_name,
    email: r.email,
    language: r.language,
    paymentReference: r.payment_reference,
    received: r.received,
    commitment: r.commitment,
  }));
}
