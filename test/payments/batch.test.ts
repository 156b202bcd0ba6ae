// The batch paths of an import: credits are matched a batch of investors per transaction (their
// decisions written together, their moves one after the other), and the queued lines'
// payment.queued entries are written a chunk at a time. One statement mixing every outcome must
// come out line for line as the rules say, with one decision, one audit entry and one outbox entry
// per decision; batch boundaries and a move refused inside a batch change nothing of that, and each
// investor's entries keep the order of their lines; concurrent batches and imports decide each line
// once (PostgreSQL); and the statements an import sends grow only by the moves' own (PostgreSQL:
// counted at the driver).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { referenceFromBody } from '../../src/domain/payment-reference.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { moveToStep } from '../../src/operations/journeys.ts';
import { RECONCILIATION } from '../../src/operations/payment-decisions.ts';
import { importStatement } from '../../src/operations/statement-import.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { skipUnlessPostgres, startApp, testDatabaseUrl } from '../support/app.ts';
import { commitments, payingDeal, type PayingDeal, postStatement } from '../support/payments.ts';

let bankRef = 0;
/** A booked credit (or debit) with a structured reference, unstructured text, or neither. */
function entry(o: { amount: string; currency?: string; ref?: string; text?: string; debit?: boolean; status?: string }): string {
  bankRef += 1;
  const ccy = o.currency ?? 'EUR';
  const remittance = o.ref
    ? `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${o.ref}</Ref></CdtrRefInf></Strd></RmtInf>`
    : o.text
      ? `<RmtInf><Ustrd>${o.text}</Ustrd></RmtInf>`
      : '';
  return (
    `<Ntry><Amt Ccy="${ccy}">${o.amount}</Amt><CdtDbtInd>${o.debit ? 'DBIT' : 'CRDT'}</CdtDbtInd><Sts><Cd>${o.status ?? 'BOOK'}</Cd></Sts>` +
    `<BookgDt><Dt>2026-11-24</Dt></BookgDt><ValDt><Dt>2026-11-24</Dt></ValDt><AcctSvcrRef>BATCH-${process.pid}-${Date.now()}-${bankRef}</AcctSvcrRef>` +
    `<NtryDtls><TxDtls><Amt Ccy="${ccy}">${o.amount}</Amt>${remittance}</TxDtls></NtryDtls></Ntry>`
  );
}

const camt = (entries: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
  `<GrpHdr><MsgId>BATCH-${bankRef}</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>${entries.join('')}</Stmt>` +
  `</BkToCstmrStmt></Document>`;

describe('an import in batches', () => {
  const t = startApp();
  const api = t.admin;

  it('a statement mixing every outcome: each line as the rules say, one decision, audit entry and outbox entry each', async () => {
    const deal: PayingDeal = await payingDeal(api);
    const r = deal.refs;
    // Commitments: A 25000, B 10000, C 20000, D 5000, E 10000, F 8000, G 9000 (EUR).
    const lines = [
      entry({ amount: '25000.00', ref: r['A'] }), // 0 A matched
      entry({ amount: '4000.00', ref: r['B'] }), // 1 B partial, settled by 2
      entry({ amount: '6000.00', text: `thanks ${r['B']}` }), // 2 B matched
      entry({ amount: '5000.00', ref: r['C'] }), // 3 C partial
      entry({ amount: '5000.00', currency: 'USD', ref: r['D'] }), // 4 D wrong currency
      entry({ amount: '12000.00', ref: r['E'] }), // 5 E overpaid
      entry({ amount: '3000.00', ref: r['F'] }), // 6 F partial
      entry({ amount: '6000.00', ref: r['F'] }), // 7 F overpaid (9000 of 8000)
      entry({ amount: '9000.00', ref: r['G'] }), // 8 G matched
      entry({ amount: '1.00', ref: r['G'] }), // 9 G overpaid after the move
      entry({ amount: '100.00', ref: referenceFromBody('999999999999999') }), // 10 unknown reference
      entry({ amount: '100.00', text: 'no reference here' }), // 11 no reference
      entry({ amount: '12.50', debit: true }), // 12 debit
      entry({ amount: '100.00', ref: r['C'], status: 'PDNG' }), // 13 not booked
    ];
    const response = await postStatement(t, camt(lines));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const statementId = response.body.statement.id;
    const got = (await api.get(`/payments/lines?statementId=${statementId}&limit=100`)).body.output as any[];
    assert.deepEqual(
      got.map((l) => [l.outcome, l.status]),
      [
        ['matched', 'matched'],
        ['partial', 'matched'],
        ['matched', 'matched'],
        ['partial', 'queued'],
        ['wrong-currency', 'queued'],
        ['overpaid', 'queued'],
        ['partial', 'queued'],
        ['overpaid', 'queued'],
        ['matched', 'matched'],
        ['overpaid', 'queued'],
        ['unknown-reference', 'queued'],
        ['no-reference', 'queued'],
        ['debit', 'ignored'],
        ['not-booked', 'ignored'],
      ],
    );
    const stands = async (letter: string) => (await api.get(`/deals/deal/${deal.dealId}/investor-data/${deal.investors[letter]}`)).body.journey.at(-1);
    for (const letter of ['A', 'B', 'G']) assert.equal((await stands(letter)).toStepId, deal.step('payment'), letter);
    for (const letter of ['C', 'D', 'E', 'F']) assert.equal((await stands(letter)).toStepId, deal.step('commitment'), letter);
    assert.equal((await stands('B')).data.amount_received, '10000.00');
    assert.deepEqual([got[1].eventId, got[2].eventId], [(await stands('B')).id, (await stands('B')).id]);

    const ids = got.map((l) => l.id);
    const { rows: decisions } = await sql<{ line_id: string; action: string; status: string; id: string }>`
      select line_id, action, status, id from payment_line_decisions where line_id = any(${ids}::uuid[]) order by seq`.execute(t.database.db);
    const actions = ids.map((id) =>
      decisions
        .filter((d) => d.line_id === id)
        .map((d) => d.action)
        .join(','),
    );
    assert.deepEqual(actions, ['imported', 'imported,settled', ...Array(12).fill('imported')]);
    // Every decision taken after the import (not the import's own: no reference, debit…) has its audit entry.
    const { rows: audit } = await sql<{ decision: string; n: string }>`
      select change ->> 'decisionId' as decision, count(*)::text as n from audit_log where type = 'payment-line.decided'
      and change ->> 'lineId' = any(${ids}::text[]) group by 1`.execute(t.database.db);
    const audited = new Map(audit.map((a) => [a.decision, Number(a.n)]));
    const judged = decisions.filter((d) => ![10, 11, 12, 13].includes(ids.indexOf(d.line_id)));
    assert.equal(judged.length, 11);
    for (const d of judged) assert.equal(audited.get(d.id), 1, `audit entry of ${d.action} on line ${ids.indexOf(d.line_id)}`);
    assert.equal(audit.length, judged.length);
    // One outbox entry per queued or matched line, in the deal's stream or (no deal) the platform's.
    const { rows: outbox } = await sql<{ type: string; line: string; outcome: string | null }>`
      select type, payload ->> 'lineId' as line, payload ->> 'outcome' as outcome from outbox
      where type like 'payment.%' and payload ->> 'lineId' = any(${ids}::text[]) order by sequence`.execute(t.database.db);
    const byLine = (i: number) => outbox.filter((e) => e.line === ids[i]).map((e) => e.type);
    for (const i of [0, 2, 8]) assert.deepEqual(byLine(i), ['payment.matched'], `line ${i}`);
    // B's partial line was queued (and announced) before the next line completed it, as when the two come in two statements.
    for (const i of [1, 3, 4, 5, 6, 7, 9, 10, 11]) assert.deepEqual(byLine(i), ['payment.queued'], `line ${i}`);
    for (const i of [12, 13]) assert.deepEqual(byLine(i), [], `line ${i}`);

    const again = await postStatement(t, camt(lines));
    assert.equal(again.status, 200);
    assert.equal(again.body.duplicate, true);
    const { rows: after } = await sql<{ n: string }>`select count(*)::text as n from payment_line_decisions where line_id = any(${ids}::uuid[])`.execute(
      t.database.db,
    );
    assert.equal(Number(after[0]!.n), decisions.length, 'importing it again decides nothing');
  });

  it('statements sent do not grow with the queued lines (PostgreSQL)', { skip: skipUnlessPostgres }, async () => {
    const sent: string[] = [];
    let counting = false;
    const counted: Database = await openDatabase(
      { ...loadConfig({}), databaseUrl: testDatabaseUrl! },
      {
        schema: t.database.schema!,
        onStatement: (text) => counting && sent.push(text),
      },
    );
    try {
      const deps = { db: counted.db, clock: systemClock, newId: newUuid };
      const principal = { userId: 'batch-test', role: 'admin', tokenKey: 'batch-test' } as const;
      const countOf = async (entries: string[]) => {
        sent.length = 0;
        counting = true;
        const result = await importStatement(deps, principal, { kind: 'xml', text: camt(entries) }, { concurrency: 1 });
        counting = false;
        return { result, statements: sent.length };
      };
      const small = await payingDeal(api, { letters: ['A', 'B'] });
      const large = await payingDeal(api, { letters: ['A', 'B', 'C', 'D', 'E', 'F'] });
      // Partial payments (one per investor) and unknown references: all queued.
      const unknown = (n: number) =>
        Array.from({ length: n }, (_, i) => entry({ amount: '10.00', ref: referenceFromBody(`88888888${String(i).padStart(7, '0')}`) }));
      const few = await countOf([...Object.values(small.refs).map((ref) => entry({ amount: '1000.00', ref })), ...unknown(2)]);
      const many = await countOf([...Object.values(large.refs).map((ref) => entry({ amount: '1000.00', ref })), ...unknown(9)]);
      assert.deepEqual([few.result.statuses, many.result.statuses], [{ queued: 4 }, { queued: 15 }]);
      assert.equal(many.statements, few.statements, `${few.statements} statements for 4 queued lines, ${many.statements} for 15`);
    } finally {
      await counted.close();
    }
  });

  const principal = { userId: 'batch-test', role: 'admin', tokenKey: 'batch-test' } as const;
  const linesOf = async (statementId: string) => (await api.get(`/payments/lines?statementId=${statementId}&limit=100`)).body.output as any[];
  const decisionsOf = async (ids: string[]) => {
    const { rows } = await sql<{ line_id: string; action: string }>`
      select line_id, action from payment_line_decisions where line_id = any(${ids}::uuid[]) order by seq`.execute(t.database.db);
    return ids.map((id) =>
      rows
        .filter((d) => d.line_id === id)
        .map((d) => d.action)
        .join(','),
    );
  };
  /** The deal's outbox in the order it was written: each entry's type and the line or event it is about. */
  const outboxOf = async (dealId: string) => {
    const { rows } = await sql<{ type: string; line: string | null; event: string | null }>`
      select type, payload ->> 'lineId' as line, payload -> 'event' ->> 'id' as event from outbox where deal_id = ${dealId} order by sequence`.execute(
      t.database.db,
    );
    return rows;
  };

  it("batches of three investors: a move refused between two others, and each investor's entries in the order of their lines", async () => {
    const deal = await payingDeal(api, { letters: ['A', 'B', 'C', 'D', 'E'] });
    const r = deal.refs;
    // C stands at the payment step already: the move the statement asks for is refused (409).
    const hand = await api.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
      investorUserId: deal.investors['C'],
      targetStepId: deal.step('payment'),
      data: { amount_received: '20000.00', received_on: '2026-11-01' },
    });
    assert.equal(hand.status, 201);
    // Investors in statement order B, C, A, D, E: batches [B, C, A] and [D, E].
    const lines = [
      entry({ amount: '4000.00', ref: r['B'] }), // 0 B partial, settled by 3
      entry({ amount: '20000.00', ref: r['C'] }), // 1 C matched, move refused
      entry({ amount: '25000.00', ref: r['A'] }), // 2 A matched
      entry({ amount: '6000.00', ref: r['B'] }), // 3 B matched
      entry({ amount: '5000.00', currency: 'USD', ref: r['D'] }), // 4 D wrong currency
      entry({ amount: '10000.00', ref: r['E'] }), // 5 E matched
      entry({ amount: '1.00', ref: r['A'] }), // 6 A overpaid after the move
    ];
    const result = await importStatement(
      { db: t.database.db, clock: systemClock, newId: newUuid },
      principal,
      { kind: 'xml', text: camt(lines) },
      { batchSize: 3, concurrency: 2 },
    );
    const got = await linesOf(result.statement.id);
    assert.deepEqual(
      got.map((l) => [l.outcome, l.status]),
      [
        ['partial', 'matched'],
        ['matched', 'queued'],
        ['matched', 'matched'],
        ['matched', 'matched'],
        ['wrong-currency', 'queued'],
        ['matched', 'matched'],
        ['overpaid', 'queued'],
      ],
    );
    assert.equal(got[1].refusal.kind, 'conflict');
    assert.equal(got[1].eventId, null);
    const journey = async (letter: string) => (await api.get(`/deals/deal/${deal.dealId}/investor-data/${deal.investors[letter]}`)).body.journey as any[];
    for (const [letter, line] of [
      ['A', 2],
      ['B', 3],
      ['E', 5],
    ] as const) {
      const last = (await journey(letter)).at(-1);
      assert.deepEqual(
        [last.toStepId, last.createdByUserId, last.id, last.data.amount_received],
        [deal.step('payment'), RECONCILIATION.userId, got[line].eventId, commitments[letter]],
        letter,
      );
    }
    assert.equal((await journey('C')).length, 2, 'the refused move wrote no event');
    assert.equal((await journey('D')).at(-1).toStepId, deal.step('commitment'));
    assert.equal(got[0].eventId, got[3].eventId, 'the partial line is settled by the move of the line that completed it');
    assert.deepEqual(await decisionsOf(got.map((l) => l.id)), ['imported,settled', ...Array(6).fill('imported')]);

    // Per investor, the entries in the order of the lines: B's partial line announced before the
    // move that its second line made; A's move before its matched line, then its overpayment.
    const feed = await outboxOf(deal.dealId);
    const at = (type: string, about: string) => feed.findIndex((e) => e.type === type && (e.line === about || e.event === about));
    const [b0, b3] = [at('payment.queued', got[0].id), at('payment.matched', got[3].id)];
    const bMoved = at('journey.step-entered', got[3].eventId);
    assert.ok(b0 >= 0 && b0 < bMoved && bMoved < b3, `B: ${b0}, ${bMoved}, ${b3}`);
    const [aMoved, a2, a6] = [at('journey.step-entered', got[2].eventId), at('payment.matched', got[2].id), at('payment.queued', got[6].id)];
    assert.ok(aMoved >= 0 && aMoved < a2 && a2 < a6, `A: ${aMoved}, ${a2}, ${a6}`);
    assert.ok(at('payment.queued', got[1].id) >= 0, "C's refused line is announced as queued");
    assert.equal(feed.filter((e) => e.type.startsWith('payment.')).length, 7, 'one payment entry per line');
  });

  it('batches side by side, and two imports of one statement at once, one investor per batch: each line decided and each investor moved once (PostgreSQL)', {
    skip: skipUnlessPostgres,
  }, async () => {
    const deal = await payingDeal(api);
    const letters = Object.keys(deal.refs);
    const text = camt(letters.map((l) => entry({ amount: commitments[l]!, ref: deal.refs[l] })));
    const deps = { db: t.database.db, clock: systemClock, newId: newUuid };
    const [one, two] = await Promise.all([1, 2].map(() => importStatement(deps, principal, { kind: 'xml', text }, { batchSize: 1, concurrency: 3 })));
    assert.equal(one!.statement.id, two!.statement.id);
    assert.deepEqual([one!.duplicate, two!.duplicate].sort(), [false, true]);
    const got = await linesOf(one!.statement.id);
    assert.deepEqual(
      got.map((l) => l.status),
      letters.map(() => 'matched'),
    );
    assert.deepEqual(
      await decisionsOf(got.map((l) => l.id)),
      letters.map(() => 'imported'),
    );
    for (const letter of letters) {
      const moves = (await api.get(`/deals/deal/${deal.dealId}/investor-data/${deal.investors[letter]}`)).body.journey.filter(
        (e: any) => e.toStepId === deal.step('payment'),
      );
      assert.equal(moves.length, 1, letter);
    }
    assert.equal((await outboxOf(deal.dealId)).filter((e) => e.type === 'payment.matched').length, letters.length);
  });

  it("a batch's statements do not grow with its matched credits: their moves are one load and one write (PostgreSQL)", {
    skip: skipUnlessPostgres,
  }, async () => {
    const sent: string[] = [];
    let counting = false;
    const counted: Database = await openDatabase(
      { ...loadConfig({}), databaseUrl: testDatabaseUrl! },
      {
        schema: t.database.schema!,
        onStatement: (text) => counting && sent.push(text),
      },
    );
    try {
      const deps = { db: counted.db, clock: systemClock, newId: newUuid };
      const count = async (work: () => Promise<unknown>) => {
        sent.length = 0;
        counting = true;
        await work();
        counting = false;
        return sent.length;
      };
      const small = await payingDeal(api, { letters: ['A', 'B'] });
      const large = await payingDeal(api, { letters: ['A', 'B', 'C', 'D', 'E', 'F', 'G'] });
      // One move of this deal through the same deps, in a transaction of its own (begin and commit taken away).
      const move = await count(() =>
        counted.db.transaction().execute((trx) =>
          moveToStep({ ...deps, db: trx }, principal, large.dealId, {
            investorUserId: large.investors['G']!,
            targetStepId: large.step('payment'),
            data: { amount_received: '9000.00', received_on: '2026-11-24' },
          }),
        ),
      );
      const pays = (deal: PayingDeal, letters: string[]) => camt(letters.map((l) => entry({ amount: commitments[l]!, ref: deal.refs[l] })));
      const few = await count(() => importStatement(deps, principal, { kind: 'xml', text: pays(small, ['A', 'B']) }, { concurrency: 1 }));
      const many = await count(() => importStatement(deps, principal, { kind: 'xml', text: pays(large, ['A', 'B', 'C', 'D', 'E', 'F']) }, { concurrency: 1 }));
      // A move on its own is its load and its write (begin and commit aside); the batch's moves share
      // one load and one write per deal, so 6 matched credits cost what 2 do.
      assert.ok(move - 2 >= 2, `${move - 2} statements for a move`);
      assert.equal(many, few, `${few} statements for 2 matched credits, ${many} for 6`);
    } finally {
      await counted.close();
    }
  });
});
