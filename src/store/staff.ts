// Staff people (migration 0045): who may sign in to the console, with which role. A person is never
// deleted: deactivation sets a column, and the audit chain `staff:<id>` holds every change.
import type { Kysely } from 'kysely';
import { AppError } from '../domain/errors.ts';
import { isUniqueViolation } from './errors.ts';
import type { DB } from './schema.ts';

export interface StaffPersonRow {
  personId: string;
  name: string;
  email: string;
  role: string;
  createdAt: string;
  deactivatedAt: string | null;
  lastSignInAt: string | null;
  liveSessions: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function insertPerson(
  db: Kysely<DB>,
  person: { id: string; name: string; email: string; role: string; createdBy: string; createdAt: Date },
): Promise<void> {
  try {
    await db
      .insertInto('staff_people')
      .values({ id: person.id, name: person.name, email: person.email, role: person.role, created_by: person.createdBy, created_at: person.createdAt })
      .execute();
  } catch (err) {
    // Two invitations of one address at once: the second meets the unique index.
    if (isUniqueViolation(err)) throw new AppError('conflict', `${person.email} was invited at the same moment; invite again to get a link`);
    throw err;
  }
}

/** A person by e-mail (any case), locked when `lock`; deactivated people included. */
export async function findPersonByEmail(db: Kysely<DB>, email: string, lock = false) {
  let query = db
    .selectFrom('staff_people')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()));
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A person by id, locked when `lock`; undefined for an id that is no person's. */
export async function findPerson(db: Kysely<DB>, id: string, lock = false) {
  if (!UUID.test(id)) return undefined;
  let query = db.selectFrom('staff_people').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Every person, active first, then by name; with their last sign-in and live sessions. */
export async function listPeople(db: Kysely<DB>, now: Date): Promise<StaffPersonRow[]> {
  const rows = await db
    .selectFrom('staff_people as p')
    .leftJoin('sign_in_sessions as s', (join) => join.on('s.audience', '=', 'staff').on((eb) => eb(eb.cast('p.id', 'text'), '=', eb.ref('s.subject_id'))))
    .select((eb) => [
      'p.id',
      'p.name',
      'p.email',
      'p.role',
      'p.created_at',
      'p.deactivated_at',
      eb.fn.max('s.created_at').as('last_sign_in_at'),
      eb.fn
        .count<string>('s.id')
        .filterWhere((w) => w.and([w('s.revoked_at', 'is', null), w('s.expires_at', '>', now)]))
        .as('live_sessions'),
    ])
    .groupBy('p.id')
    .orderBy((eb) => eb('p.deactivated_at', 'is', null), 'desc')
    .orderBy('p.name')
    .orderBy('p.id')
    .execute();
  return rows.map((r) => ({
    personId: r.id,
    name: r.name,
    email: r.email,
    role: r.role,
    createdAt: r.created_at.toISOString(),
    deactivatedAt: r.deactivated_at?.toISOString() ?? null,
    lastSignInAt: r.last_sign_in_at ? new Date(r.last_sign_in_at as Date).toISOString() : null,
    liveSessions: Number(r.live_sessions),
  }));
}

export async function setRole(db: Kysely<DB>, id: string, role: string): Promise<void> {
  await db.updateTable('staff_people').set({ role }).where('id', '=', id).execute();
}

export async function deactivate(db: Kysely<DB>, id: string, by: string, now: Date): Promise<void> {
  await db.updateTable('staff_people').set({ deactivated_at: now, deactivated_by: by }).where('id', '=', id).where('deactivated_at', 'is', null).execute();
}

/** Whether any active person holds the admin role. */
export async function hasActiveAdmin(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('staff_people').select('id').where('role', '=', 'admin').where('deactivated_at', 'is', null).limit(1).executeTakeFirst();
  return row !== undefined;
}
