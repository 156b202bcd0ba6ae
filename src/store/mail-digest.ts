// What the staff digest counts, and whose digest is on: one statement each.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

export interface DigestCounts {
  editRequests: number;
  queuedPayments: number;
  documentsToCountersign: number;
  /** Proposals (four-eyes) without a decision, by anyone but `personId`. */
  approvals: number;
}

/**
 * What waits for staff now. Documents to countersign are the rows of the `documents_to_countersign`
 * view (migration 0055: one per subscription agreement the investor signed and no approver
 * countersigned yet).
 */
export async function digestCounts(db: Kysely<DB>, personId: string): Promise<DigestCounts> {
  const { rows } = await sql<{ edit_requests: string; queued_payments: string; approvals: string; documents_to_countersign: string }>`
    select
      (select count(*) from edit_requests where status = 'pending') as edit_requests,
      (select count(*) from payment_lines where status = 'queued') as queued_payments,
      (select count(*) from proposals p where p.proposed_by <> ${personId}
         and not exists (select 1 from proposal_decisions d where d.proposal_id = p.id)) as approvals,
      (select count(*) from documents_to_countersign) as documents_to_countersign`.execute(db);
  const row = rows[0]!;
  return {
    editRequests: Number(row.edit_requests),
    queuedPayments: Number(row.queued_payments),
    documentsToCountersign: Number(row.documents_to_countersign),
    approvals: Number(row.approvals),
  };
}

/** Active people whose latest digest setting is on (no setting: on). */
export async function peopleWithDigest(db: Kysely<DB>) {
  const { rows } = await sql<{ id: string; name: string; email: string; role: string }>`
    select p.id, p.name, p.email, p.role from staff_people p
    where p.deactivated_at is null
      and coalesce((select s.daily_digest from staff_digest_settings s where s.person_id = p.id order by s.set_at desc, s.id desc limit 1), true)
    order by p.id`.execute(db);
  return rows;
}

/** A person's digest setting: on unless they turned it off. */
export async function digestEnabled(db: Kysely<DB>, personId: string): Promise<boolean> {
  const row = await db
    .selectFrom('staff_digest_settings')
    .select('daily_digest')
    .where('person_id', '=', personId)
    .orderBy('set_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.daily_digest ?? true;
}

export async function insertDigestSetting(db: Kysely<DB>, setting: { id: string; personId: string; dailyDigest: boolean; setBy: string; setAt: Date }) {
  await db
    .insertInto('staff_digest_settings')
    .values({ id: setting.id, person_id: setting.personId, daily_digest: setting.dailyDigest, set_by: setting.setBy, set_at: setting.setAt })
    .execute();
}
