// `dealflow verify` tells a copy by what the database records of itself, not by the server's
// transaction counter: a dump loaded into another cluster (its system identifier is not the one the
// data recorded) fails until `--adopt-copy` makes this cluster the database's own; every checkpoint
// records where it was sealed, and the identity is printed. (A physical copy on another server is
// named by test/failover/restore.failover.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { runVerify } from '../../src/cli/verify.ts';
import { openTestDatabase, type TestDatabase } from '../support/app.ts';

describe('copy identity', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  const verify = async (options: { seal?: boolean; adoptCopy?: boolean } = {}) => {
    const lines: string[] = [];
    const code = await runVerify(database.db, options, (line) => lines.push(line));
    return { code, output: lines.join('\n') };
  };

  test('the identity is printed, checkpoints record where they were sealed, and a logical copy fails until adopted', async () => {
    const fresh = await verify({ seal: true });
    assert.equal(fresh.code, 0, fresh.output);
    const { rows } = await sql<{ instance_id: string; system_identifier: string }>`select instance_id::text, system_identifier from database_identity`.execute(
      database.db,
    );
    assert.equal(rows.length, 1);
    assert.match(fresh.output, new RegExp(`^Identity: instance ${rows[0]!.instance_id} on .+, system ${rows[0]!.system_identifier}, timeline \\d+$`, 'm'));
    assert.doesNotMatch(fresh.output, /NOTE: a copy/);

    // A copy loaded into another cluster: the system identifier the data recorded is not this server's.
    await sql`update database_identity set system_identifier = '6000000000000000001'`.execute(database.db);
    const copied = await verify();
    assert.equal(copied.code, 1, copied.output);
    assert.match(copied.output, /FAILED: this database is a copy: its data was recorded on the cluster with system identifier 6000000000000000001/);

    const adopted = await verify({ adoptCopy: true });
    assert.equal(adopted.code, 0, adopted.output);
    assert.match(adopted.output, /^Adopted: /m);
    const again = await sql<{ system_identifier: string }>`select system_identifier from database_identity`.execute(database.db);
    assert.equal(again.rows[0]!.system_identifier, rows[0]!.system_identifier);
  });
});
