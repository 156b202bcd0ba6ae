// The first start, cut at each point a SIGKILL can land, and finished by the next start: the token
// is printed by this start or was by an earlier one and still works, and the demo deal is there
// (unless --no-demo). The crash check (test/reliability/checks/crashes.ts) does the same with real
// kills of the real process.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { completeFirstRun } from '../../src/operations/first-run.ts';
import { authenticateApiKey, createToken } from '../../src/operations/tokens.ts';
import { findDeal } from '../../src/store/deals.ts';
import { runVerify } from '../../src/cli/verify.ts';
import { openTestDatabase, type TestDatabase } from '../support/app.ts';

const TOKEN = /Admin token \(shown once, keep it\): (dfk_\S+)/;

describe('first start, resumable', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.close());

  const deps = () => ({ db: database.db, clock: systemClock, newId: newUuid });
  const start = async (demo = true, cutAtPrint = false) => {
    const lines: string[] = [];
    let error: unknown;
    try {
      const outcome = await completeFirstRun(deps(), {
        demo,
        show: (line) => {
          if (cutAtPrint && TOKEN.test(line)) throw new Error('killed before the token was written');
          lines.push(line);
        },
      });
      return { lines, outcome, token: TOKEN.exec(lines.join('\n'))?.[1] };
    } catch (err) {
      error = err;
    }
    return { lines, outcome: undefined, token: undefined, error };
  };
  const works = async (token: string | undefined) => token !== undefined && (await authenticateApiKey(database.db, token)) !== undefined;
  const demoExists = async () => (await findDeal(database.db, 'demo')) !== undefined;

  test('a whole first start prints one working token and seeds the demo; the next start prints nothing', async () => {
    const first = await start();
    assert.ok(await works(first.token));
    assert.equal(first.lines.length, 1);
    assert.ok(await demoExists());
    const second = await start();
    assert.deepEqual(second.lines, []);
    assert.deepEqual(second.outcome, { token: undefined, resumed: false, demo: undefined });
    assert.ok(await works(first.token), 'the first token stays live');
  });

  test('cut before the token was shown: the next start says so, revokes it, and prints a new working one; the demo is seeded', async () => {
    const cut = await start(true, true);
    assert.ok(cut.error);
    const { rows } = await sql<{ id: string }>`select id from api_tokens where revoked_at is null`.execute(database.db);
    assert.equal(rows.length, 1, 'the unshown token was created');
    assert.equal(await demoExists(), false);
    const next = await start();
    assert.match(next.lines[0]!, /Finishing a first start that was cut short/);
    assert.match(next.lines.join('\n'), /revoked/);
    assert.ok(await works(next.token));
    const { rows: live } = await sql<{ id: string }>`select id from api_tokens where revoked_at is null`.execute(database.db);
    assert.deepEqual(live.length, 1, 'the token nobody saw is revoked');
    assert.notEqual(live[0]!.id, rows[0]!.id);
    assert.equal(next.outcome?.resumed, true);
    assert.ok(await demoExists());
    assert.deepEqual((await start()).lines, []);
  });

  test('cut after the token was shown, during the demo seed: the next start keeps the token and completes the seed', async () => {
    const first = await start(false);
    // As if killed inside the seed's transaction: the token is shown, the run not complete.
    await sql`update first_run set completed_at = null`.execute(database.db);
    const next = await start(true);
    assert.deepEqual(next.lines, ['Finishing a first start that was cut short (the process stopped before it completed).']);
    assert.equal(next.token, undefined);
    assert.ok(await works(first.token), 'the token printed by the first start is still the one');
    assert.ok(await demoExists());
    assert.equal(next.outcome?.demo?.dealId, 'demo');
  });

  test('--no-demo: a cut first start finished with --no-demo seeds nothing, and the run is complete', async () => {
    await start(false, true);
    const next = await start(false);
    assert.ok(await works(next.token));
    assert.equal(await demoExists(), false);
    assert.deepEqual((await start(true)).lines, [], 'complete: a later start without --no-demo does not seed either');
    assert.equal(await demoExists(), false);
  });

  test('commands run before the first start (verify, token create) do not make it any less the first: token, demo deal', async () => {
    // Its outcome does not matter here (a shared test database holds other tests' chains): it ran first.
    await runVerify(database.db, {}, () => {});
    const made = await createToken(database.db, { name: 'ops', role: 'admin' });
    const first = await start();
    assert.ok(await works(first.token), 'the first start prints its token, for the Try-it lines');
    assert.ok(await demoExists());
    assert.equal(first.outcome?.demo?.dealId, 'demo');
    assert.ok(await works(made.token), 'the token made before stays live');
    assert.deepEqual((await start()).lines, [], 'the next start is not a first one');
  });

  test('every admin token revoked later: the next start prints a new one', async () => {
    await start(false);
    await sql`update api_tokens set revoked_at = now()`.execute(database.db);
    const next = await start();
    assert.ok(await works(next.token));
    assert.equal(next.outcome?.resumed, false);
  });
});
