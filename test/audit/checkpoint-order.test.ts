// Checkpoints order entries by (transaction id, position) as numbers. Transaction ids are read out
// as text, and an ORDER BY on that text alias sorted 10093 before 9908: a checkpoint sealed across
// a power of ten (where a new cluster's ids sit, and every cluster's ids pass in time) kept a bound
// below most of its own entries, and `verify` then found the checkpoint broken. Entries written
// with ids on both sides of such boundaries (9, 10, 99, 100, all older than any real transaction)
// must seal in numeric order and verify. PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { chainEntry } from '../../src/domain/audit.ts';
import { newUuid } from '../../src/operations/deps.ts';
import { startApp } from '../support/app.ts';
import { sealEverything, verify } from '../support/audit.ts';

describe('checkpoint order', () => {
  const t = startApp();

  test('entries seal in numeric transaction-id order across powers of ten, and verify passes', async () => {
    const db = t.database.db;
    const labels = ['100', '9', '99', '10'];
    for (const xid of labels) {
      // One-entry chains (as a booking's), so no head has to agree with them.
      const e = chainEntry(
        { seq: 0, hash: null },
        {
          chain: `subscription:${newUuid()}`,
          type: 'subscription.booked',
          principal: 'order-check',
          tokenId: null,
          at: '2026-11-26T08:00:00.000Z',
          change: { xid },
        },
      );
      await sql`insert into audit_log (chain, seq, xid, type, principal, token_id, at, change, prev_hash, hash)
        values (${e.chain}, ${e.seq}, ${xid}::xid8, ${e.type}, ${e.principal}, ${e.tokenId}, ${e.at}, ${JSON.stringify(e.change)}::jsonb, ${e.prevHash}, ${e.hash})`.execute(
        db,
      );
    }
    await sealEverything(db);
    const { rows } = await sql<{ xid: string }>`select l.xid::text as xid from audit_tree_leaves l where l.checkpoint = 1 order by l.index limit 4`.execute(db);
    assert.deepEqual(
      rows.map((r) => r.xid),
      ['9', '10', '99', '100'],
      'the first checkpoint starts with the oldest ids, in numeric order',
    );
    const { rows: bounds } = await sql<{ ok: boolean }>`select bool_and((a.xid, a.position) <= (c.up_to_xid, c.up_to_position)) as ok
      from audit_log a cross join (select up_to_xid, up_to_position from audit_checkpoints where number = 1) c
      where a.position in (select position from audit_tree_leaves where checkpoint = 1)`.execute(db);
    assert.equal(bounds[0]!.ok, true, 'every entry the first checkpoint holds is within its bound');
    const report = await verify(db);
    assert.equal(report.code, 0, report.output);
  });
});
