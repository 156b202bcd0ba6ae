// Sanctions lists loaded into the database (the operation behind `dealflow sanctions load`), the
// screening of the directory at each load, and a hit's review: on PGlite, and on PostgreSQL when
// TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { AppError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { assertNotSanctionsBlocked, decideSanctionsHit, listBlockingHits, loadSanctionsList } from '../../src/operations/sanctions.ts';
import { startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';

const fixture = (name: string) => new URL(`../fixtures/sanctions/${name}`, import.meta.url);
const staff: Principal = { userId: 'staff-1', role: 'admin', tokenKey: 'test' };

describe('sanctions lists', () => {
  const started = startApp();
  const deps = () => ({ db: started.database.db, clock: systemClock, newId: newUuid });
  const load = (name: string) => loadSanctionsList(deps(), staff, name, createReadStream(fixture(name)));
  const loadText = (name: string, text: string) =>
    loadSanctionsList(
      deps(),
      staff,
      name,
      (async function* () {
        yield text;
      })(),
    );

  test('loads each of the four formats as a version, audited', async () => {
    const loads = [await load('eu-fsf.xml'), await load('uk-conlist.csv'), await load('ofac-sdn.xml'), await load('un-consolidated.xml')];
    assert.deepEqual(
      loads.map((l) => [l.source, l.entryCount]),
      [
        ['eu', 2],
        ['uk', 2],
        ['ofac', 2],
        ['un', 2],
      ],
    );
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from audit_log where type = 'sanctions.list-loaded'`.execute(started.database.db);
    assert.ok(rows[0]!.n >= 4);
  });

  test('another file is refused, and nothing is stored', async () => {
    const before = await sql<{ n: number }>`select count(*)::int as n from sanctions_list_versions`.execute(started.database.db);
    await assert.rejects(loadText('notes.txt', 'hello'), (e: AppError) => e.kind === 'unprocessable');
    const after = await sql<{ n: number }>`select count(*)::int as n from sanctions_list_versions`.execute(started.database.db);
    assert.equal(after.rows[0]!.n, before.rows[0]!.n);
  });

  test('an alias with swapped names and no diacritics blocks; a dismissal with a reason is remembered until the entry changes', async () => {
    const { id } = await createInvestor(started.admin, {
      forename: 'SOKOLOV,',
      surname: 'Dmitrij Ivanovic',
      email: 'ds@example.com',
      dateOfBirth: '1968-02-03',
    });
    const { id: other } = await createInvestor(started.admin, { forename: 'Grace', surname: 'Hopper' });
    // Screened at creation against the lists already loaded: no new hit when the list loads again.
    await assert.rejects(assertNotSanctionsBlocked(deps(), id), (e: AppError) => e.kind === 'unprocessable');
    assert.equal((await load('eu-fsf.xml')).newHits, 0);
    await assert.rejects(assertNotSanctionsBlocked(deps(), id), (e: AppError) => e.kind === 'unprocessable');
    await assertNotSanctionsBlocked(deps(), other);

    const [hit] = await listBlockingHits(deps(), id);
    await assert.rejects(decideSanctionsHit(deps(), staff, hit!.id, 'dismiss', ' '), (e: AppError) => e.kind === 'validation');
    const investorPrincipal: Principal = { userId: 'x', role: 'investor', tokenKey: 'x', investorUserId: id };
    await assert.rejects(decideSanctionsHit(deps(), investorPrincipal, hit!.id, 'dismiss', 'not them'), (e: AppError) => e.kind === 'forbidden');
    await decideSanctionsHit(deps(), staff, hit!.id, 'dismiss', 'Different date of birth on the passport');
    await assertNotSanctionsBlocked(deps(), id);
    await assert.rejects(decideSanctionsHit(deps(), staff, hit!.id, 'confirm'), (e: AppError) => e.kind === 'conflict');

    // The same list again: the dismissal holds.
    await load('eu-fsf.xml');
    await assertNotSanctionsBlocked(deps(), id);

    // A new version that changes the entry: screened again, blocked again.
    const changed = readFileSync(fixture('eu-fsf.xml'), 'utf8').replace('birthdate="1968-02-03"', 'birthdate="1968-02-04"');
    const second = await loadText('eu-fsf-2.xml', changed);
    assert.ok(second.newHits >= 1);
    await assert.rejects(assertNotSanctionsBlocked(deps(), id), (e: AppError) => e.kind === 'unprocessable');
    const [again] = await listBlockingHits(deps(), id);
    await decideSanctionsHit(deps(), staff, again!.id, 'confirm');
    await assert.rejects(assertNotSanctionsBlocked(deps(), id), (e: AppError) => e.kind === 'unprocessable');
  });
});
