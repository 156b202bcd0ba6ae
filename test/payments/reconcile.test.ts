// Statements through POST /payments/statements: every outcome, partial then complete, re-import,
// reversal, CSV, and the moves and queue entries they make.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { expectProblem, startApp } from '../support/app.ts';
import { sql } from 'kysely';
import { fill, fixture, payingDeal, type PayingDeal, postStatement } from '../support/payments.ts';

describe('reconciling bank statements', () => {
  const t = startApp();
  const api = t.admin;
  let deal: PayingDeal;
  before(async () => {
    deal = await payingDeal(api);
  });

  const linesOf = async (statementId: string) => (await api.get(`/payments/lines?statementId=${statementId}&limit=100`)).body.output as any[];
  const journey = async (letter: string) => (await api.get(`/deals/deal/${deal.dealId}/investor-data/${deal.investors[letter]}`)).body.journey as any[];

  it('camt.053.001.02: matches, queues and keeps each line with its outcome', async () => {
    const response = await postStatement(t, fill(fixture('camt.053.001.02.xml'), deal));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.statement.format, 'camt.053');
    assert.equal(response.body.statement.lineCount, 8);
    const lines = await linesOf(response.body.statement.id);
    const by = (amount: string) => lines.find((l) => l.amount === amount)!;
    assert.deepEqual([by('25000.00').outcome, by('25000.00').status], ['matched', 'matched']);
    assert.deepEqual([by('10000.00').outcome, by('10000.00').status], ['matched', 'matched']);
    assert.deepEqual([by('5000.00').outcome, by('5000.00').status, by('5000.00').currency], ['partial', 'queued', 'EUR']);
    assert.deepEqual([by('1000.00').outcome, by('1000.00').status], ['no-reference', 'queued']);
    assert.match(by('1000.00').detail, /check digits fail/);
    const usd = lines.find((l) => l.currency === 'USD')!;
    assert.deepEqual([usd.outcome, usd.status], ['wrong-currency', 'queued']);
    assert.deepEqual([by('12.50').outcome, by('12.50').status, by('12.50').direction], ['debit', 'ignored', 'debit']);
    assert.deepEqual([by('700.00').outcome, by('700.00').status], ['unknown-reference', 'queued']);
    assert.deepEqual([by('300.00').outcome, by('300.00').status], ['no-reference', 'queued']);
    // The structured reference (grouped) and the batched transaction's own data were read.
    assert.equal(by('25000.00').reference, deal.refs['A']);
    assert.equal(by('25000.00').debtorName, 'Ada Lovelace');
    assert.equal(by('25000.00').debtorAccount, 'GB33BUKB20201555555555');
    assert.equal(by('25000.00').endToEndId, 'E2E-ADA-1');
    assert.equal(by('10000.00').reference, deal.refs['B'], 'lower case and hyphens in free text');
    // Ada moved to the payment step by `reconciliation`, amount and value date in the fields.
    const ada = await journey('A');
    const move = ada.at(-1);
    assert.equal(move.toStepId, deal.step('payment'));
    assert.equal(move.createdByUserId, 'reconciliation');
    assert.deepEqual(move.data, { amount_received: '25000.00', received_on: '2026-11-19' });
    assert.equal(by('25000.00').eventId, move.id);
    // Cleo paid part: she has not moved.
    assert.equal((await journey('C')).at(-1).toStepId, deal.step('commitment'));
    // The queue.
    const queue = (await api.get(`/payments/lines?status=queued&dealId=${deal.dealId}`)).body;
    assert.ok(queue.output.every((l: any) => l.status === 'queued' && l.dealId === deal.dealId));
    assert.ok(queue.output.some((l: any) => l.outcome === 'partial'));
  });

  it('importing the same statement again changes nothing', async () => {
    const text = fill(fixture('camt.053.001.02.xml'), deal);
    const before = (await api.get('/payments/lines?limit=100')).body.output;
    const again = await postStatement(t, text);
    assert.equal(again.status, 200);
    assert.equal(again.body.duplicate, true);
    assert.deepEqual((await api.get('/payments/lines?limit=100')).body.output, before);
    // The same lines inside another file (different bytes) are not stored twice either.
    const reformatted = await postStatement(t, text.replace('<MsgId>STMT-2026-11-20-001</MsgId>', '<MsgId>STMT-RESENT</MsgId>'));
    assert.equal(reformatted.status, 201);
    assert.equal(reformatted.body.statement.newLineCount, 0);
    assert.equal((await api.get('/payments/lines?limit=100')).body.output.length, before.length);
    assert.equal((await journey('A')).length, 2, 'no second move');
  });

  it('camt.054.001.04: a second instalment completes a partial payment; an overpayment is queued', async () => {
    const response = await postStatement(t, fill(fixture('camt.054.001.04.xml'), deal));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.statement.format, 'camt.054');
    const lines = await linesOf(response.body.statement.id);
    const cleo = lines.find((l) => l.investorUserId === deal.investors['C'])!;
    assert.deepEqual([cleo.outcome, cleo.status], ['matched', 'matched']);
    assert.equal(cleo.bookingDate, '2026-11-21', 'DtTm read as its date');
    const move = (await journey('C')).at(-1);
    assert.equal(move.toStepId, deal.step('payment'));
    assert.equal(move.data.amount_received, '20000.00');
    // Her first, partial line left the queue, settled by the second.
    const first = (await api.get(`/payments/lines?dealId=${deal.dealId}&outcome=partial`)).body.output[0];
    assert.equal(first.status, 'matched');
    const eve = lines.find((l) => l.investorUserId === deal.investors['E'])!;
    assert.deepEqual([eve.outcome, eve.status], ['overpaid', 'queued']);
  });

  it('camt.053.001.08: a reversal puts the matched credit back in the queue without moving anyone back', async () => {
    const response = await postStatement(t, fill(fixture('camt.053.001.08.xml'), deal));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const lines = await linesOf(response.body.statement.id);
    const reversal = lines.find((l) => l.reversal)!;
    assert.deepEqual([reversal.outcome, reversal.status], ['reversal', 'ignored']);
    const frank = lines.find((l) => l.investorUserId === deal.investors['F'])!;
    assert.deepEqual([frank.outcome, frank.status, frank.debtorName], ['matched', 'matched', 'Frank Fowler']);
    const ada = (await api.get(`/payments/lines?dealId=${deal.dealId}&limit=100`)).body.output.find(
      (l: any) => l.investorUserId === deal.investors['A'] && !l.reversal,
    );
    assert.equal(ada.status, 'queued');
    assert.equal(ada.reversedByLineId, reversal.id);
    const detail = (await api.get(`/payments/lines/${ada.id}`)).body;
    assert.deepEqual(
      detail.decisions.map((d: any) => d.action),
      ['imported', 'reversed'],
    );
    assert.equal((await journey('A')).at(-1).toStepId, deal.step('payment'), 'no automatic move backward');
  });

  it('CSV with a column map: semicolons, decimal commas, a debit and a line without bank reference', async () => {
    const query =
      '?dateColumn=Buchungstag&amountColumn=Betrag&currencyColumn=Waehrung&referenceColumn=Verwendungszweck' +
      '&counterpartyColumn=Auftraggeber&bankReferenceColumn=Bankreferenz&delimiter=semicolon&decimalSeparator=comma';
    const response = await postStatement(t, fill(fixture('statement.csv'), deal), 'text/csv', query);
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.deepEqual(response.body.outcomes, { matched: 1, debit: 1, 'no-reference': 1 });
    assert.equal((await journey('G')).at(-1).toStepId, deal.step('payment'));
    const unknownColumn = await postStatement(t, fixture('statement.csv'), 'text/csv', query.replace('amountColumn=Betrag', 'amountColumn=Amount'));
    const problem = expectProblem(unknownColumn, 400);
    assert.equal(problem.errors?.[0]?.field, 'amountColumn');
  });

  it('staff assign, split and dismiss queued lines; every decision is kept', async () => {
    const queue = (await api.get('/payments/lines?status=queued&outcome=no-reference&limit=100')).body.output;
    const typo = queue.find((l: any) => l.amount === '1000.00');
    const gift = queue.find((l: any) => l.amount === '300.00');
    // Eve overpaid 12000 of 10000: staff dismiss it (refunded).
    const eve = (await api.get(`/payments/lines?status=queued&outcome=overpaid&dealId=${deal.dealId}`)).body.output[0];
    const dismissed = await api.post(`/payments/lines/${eve.id}/dismiss`, { reason: 'refunded, asked to pay 10000' });
    assert.equal(dismissed.status, 200);
    assert.equal(dismissed.body.status, 'dismissed');
    assert.equal(dismissed.body.decisions.at(-1).reason, 'refunded, asked to pay 10000');
    assert.ok(dismissed.body.decisions.at(-1).decidedBy);
    expectProblem(await api.post(`/payments/lines/${eve.id}/dismiss`, { reason: 'again' }), 409);
    // Split the 1000 across Dora (D, owes 5000) and Eve.
    const bad = await api.post(`/payments/lines/${typo.id}/split`, {
      shares: [
        { dealId: deal.dealId, investorUserId: deal.investors['D'], amount: '600.00' },
        { dealId: deal.dealId, investorUserId: deal.investors['E'], amount: '300.00' },
      ],
    });
    expectProblem(bad, 422);
    const split = await api.post(`/payments/lines/${typo.id}/split`, {
      shares: [
        { dealId: deal.dealId, investorUserId: deal.investors['D'], amount: '600.00' },
        { dealId: deal.dealId, investorUserId: deal.investors['E'], amount: '400.00' },
      ],
    });
    assert.equal(split.status, 200, JSON.stringify(split.body));
    assert.equal(split.body.status, 'matched');
    // Assign the 300 gift to Eve: 400 + 300 of 10000, accepted by staff, no move yet.
    const assigned = await api.post(`/payments/lines/${gift.id}/assign`, { dealId: deal.dealId, investorUserId: deal.investors['E'] });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.deepEqual([assigned.body.outcome, assigned.body.status], ['partial', 'matched']);
    // Unknown line, unknown journey.
    expectProblem(await api.post('/payments/lines/00000000-0000-4000-8000-000000000000/dismiss', { reason: 'x' }), 404);
    const usd = (await api.get(`/payments/lines?status=queued&outcome=wrong-currency`)).body.output[0];
    expectProblem(await api.post(`/payments/lines/${usd.id}/assign`, { dealId: deal.dealId, investorUserId: 'nobody' }), 404);
    expectProblem(await api.post(`/payments/lines/${usd.id}/assign`, { dealId: deal.dealId, investorUserId: deal.investors['D'] }), 422);
  });

  it('a matched credit whose move is refused waits in the queue with the refusal', async () => {
    const other = await payingDeal(api, { letters: ['A'] });
    // The investor is moved to the payment step by hand first: the move to it is then refused (409).
    await api.post(`/deals/deal/${other.dealId}/jump-to-step`, {
      investorUserId: other.investors['A'],
      targetStepId: other.step('payment'),
      data: { amount_received: '25000.00', received_on: '2026-11-01' },
    });
    const csv = `date,amount,currency,reference,bank_reference\n2026-11-24,25000.00,EUR,${other.refs['A']},REFUSE-1\n`;
    const response = await postStatement(t, csv, 'text/csv', '?bankReferenceColumn=bank_reference');
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const [line] = await linesOf(response.body.statement.id);
    assert.deepEqual([line.outcome, line.status], ['matched', 'queued']);
    assert.equal(line.refusal.kind, 'conflict');
  });

  it('the outbox carries payment.matched with the line and the move, and payment.queued for a line left to staff', async () => {
    const other = await payingDeal(api, { letters: ['A', 'B'] });
    const csv =
      `date,amount,currency,reference,bank_reference\n2026-11-24,25000.00,EUR,${other.refs['A']},FEED-${other.dealId}-1\n` +
      `2026-11-24,4000.00,EUR,${other.refs['B']},FEED-${other.dealId}-2\n`;
    const response = await postStatement(t, csv, 'text/csv', '?bankReferenceColumn=bank_reference');
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const lines = await linesOf(response.body.statement.id);
    const full = lines.find((l) => l.amount === '25000.00')!;
    const part = lines.find((l) => l.amount === '4000.00')!;
    // The outbox itself, in the order its entries were written (the feed shows an entry only once
    // every older transaction of the server has ended, which a shared server may delay).
    const { rows: feed } = await sql<{ type: string; data: any }>`
      select type, payload as data from outbox where deal_id = ${other.dealId} order by sequence`.execute(t.database.db);
    const matched = feed.filter((e) => e.type === 'payment.matched');
    assert.equal(matched.length, 1);
    const { data } = matched[0]!;
    assert.deepEqual([data.lineId, data.eventId, data.investorUserId, data.received], [full.id, full.eventId, other.investors['A'], '25000']);
    assert.equal(data.line.status, 'matched');
    const entered = feed.findIndex((e) => e.type === 'journey.step-entered' && e.data.event.id === full.eventId);
    assert.ok(entered >= 0 && entered < feed.indexOf(matched[0]!), 'the move comes before its payment.matched');
    const queued = feed.filter((e) => e.type === 'payment.queued');
    assert.deepEqual(
      queued.map((e) => [e.data.lineId, e.data.outcome]),
      [[part.id, 'partial']],
    );
  });

  it('only booked entries are matched: pending (Sts/Cd PDNG, 001.08) and informational (Sts INFO, 001.04) entries are kept, not matched, and the booked entry later is', async () => {
    const other = await payingDeal(api, { letters: ['A', 'B'] });
    const entry = (status: string, ref: string, bankRef: string, amount: string) =>
      `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>${status}<BookgDt><Dt>2026-11-25</Dt></BookgDt><ValDt><Dt>2026-11-25</Dt></ValDt>` +
      `<AcctSvcrRef>${bankRef}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${bankRef}</EndToEndId></Refs><Amt Ccy="EUR">${amount}</Amt>` +
      `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${ref}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    const camt = (version: string, id: string, entries: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}"><BkToCstmrStmt>` +
      `<GrpHdr><MsgId>${id}</MsgId><CreDtTm>2026-11-25T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id>` +
      `<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>${entries}</Stmt></BkToCstmrStmt></Document>`;
    const bankRef = `PDNG-${other.dealId}`;
    const pending = await postStatement(t, camt('08', `P-${other.dealId}`, entry('<Sts><Cd>PDNG</Cd></Sts>', other.refs['A']!, bankRef, '25000.00')));
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    const info = await postStatement(t, camt('04', `I-${other.dealId}`, entry('<Sts>INFO</Sts>', other.refs['B']!, `INFO-${other.dealId}`, '10000.00')));
    assert.equal(info.status, 201, JSON.stringify(info.body));
    for (const response of [pending, info]) {
      const [line] = await linesOf(response.body.statement.id);
      assert.deepEqual([line.outcome, line.status, line.eventId], ['not-booked', 'ignored', null]);
      assert.match(line.detail, /entry status (PDNG|INFO)/);
    }
    const stands = async (letter: string) =>
      (await api.get(`/deals/deal/${other.dealId}/investor-data/${other.investors[letter]}`)).body.journey.at(-1).toStepId;
    assert.equal(await stands('A'), other.step('commitment'), 'a pending credit moves no one');
    assert.equal(await stands('B'), other.step('commitment'));
    const queued = (await api.get(`/payments/lines?status=queued&dealId=${other.dealId}`)).body.output;
    assert.equal(queued.length, 0, 'nor waits in the queue');
    // The next day's statement books the entry under the same bank reference: a new line, matched.
    const booked = await postStatement(t, camt('08', `B-${other.dealId}`, entry('<Sts><Cd>BOOK</Cd></Sts>', other.refs['A']!, bankRef, '25000.00')));
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.statement.newLineCount, 1);
    const [line] = await linesOf(booked.body.statement.id);
    assert.deepEqual([line.outcome, line.status], ['matched', 'matched']);
    assert.equal(await stands('A'), other.step('payment'));
  });

  it('refuses what is not a statement: 400, 413, 415, and never a 500', async () => {
    expectProblem(await postStatement(t, '<Document><unclosed></Document>'), 400);
    const bomb =
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>` +
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>&lol2;</MsgId></GrpHdr></BkToCstmrStmt></Document>';
    const problem = expectProblem(await postStatement(t, bomb), 400);
    assert.match(problem.detail, /DOCTYPE/);
    expectProblem(await postStatement(t, '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.12"/>'), 400);
    expectProblem(await postStatement(t, '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>'), 400);
    const huge = `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${' '.repeat(50 * 1024 * 1024)}</Document>`;
    const tooLarge = expectProblem(await postStatement(t, huge), 413);
    assert.match(tooLarge.detail, /STATEMENT_BODY_LIMIT/);
    expectProblem(await postStatement(t, '{}', 'application/json'), 415);
    expectProblem(await postStatement(t, 'x', 'text/plain'), 415);
    expectProblem(await postStatement(t, 'date,amount,currency,reference\n2026-13-45,abc,EUR,x\n', 'text/csv'), 400);
    expectProblem(await postStatement(t, '', 'application/xml'), 400);
    expectProblem(await postStatement(t, '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"/>'), 400);
    expectProblem(await postStatement(t, '<?xml version="1.0"?><x>&amp;</x>'), 400);
    const long = fill(fixture('camt.053.001.02.xml'), deal).replace('<Amt Ccy="EUR">25000.00</Amt>', '<Amt Ccy="EUR">1234567890123456.00</Amt>');
    expectProblem(await postStatement(t, long), 400);
    const noCcy = fill(fixture('camt.053.001.02.xml'), deal).replace('<Amt Ccy="EUR">25000.00</Amt>', '<Amt>25000.00</Amt>');
    expectProblem(await postStatement(t, noCcy), 400);
    // A statement with no lines is refused, not stored as an empty one: a header alone, a header
    // without the mapped columns, a CSV body JSON-encoded by a generated client, a camt without entries.
    const header = 'date,amount,currency,reference\n';
    assert.match(expectProblem(await postStatement(t, header, 'text/csv'), 400).detail, /no lines/);
    assert.match(expectProblem(await postStatement(t, 'Buchungstag;Betrag\n', 'text/csv'), 400).detail, /no column "date"/);
    const rows = `date,amount,currency,reference\n2026-11-24,25000.00,EUR,${deal.refs['A']}\n`;
    assert.match(expectProblem(await postStatement(t, JSON.stringify(rows), 'text/csv'), 400).detail, /JSON string/);
    const noEntries =
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M-EMPTY</MsgId></GrpHdr>' +
      '<Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct></Stmt></BkToCstmrStmt></Document>';
    assert.match(expectProblem(await postStatement(t, noEntries), 400).detail, /no lines/);
    expectProblem(await postStatement(t, '"unterminated,quote\n', 'text/csv'), 400);
    // Investors may not import or read statements.
    const investorToken = await t.investorToken(deal.investors['A']!);
    const asInvestor = await t.app.inject({ method: 'GET', url: '/payments/lines', headers: { authorization: `Bearer ${investorToken}` } });
    assert.equal(asInvestor.statusCode, 403);
  });
});
