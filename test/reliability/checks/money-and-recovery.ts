// Checks of the payment and recovery surfaces, each against a real service on a fresh database:
// - money: impossible dates (camt BookgDt/ValDt as Dt and DtTm, CSV date columns, a move's date
//   field, query days) are 400s naming the field, amounts finer than their currency's ISO 4217
//   minor units (moves, statement lines, subscriptions) are 400/422s naming the field, nothing of
//   either is stored and nothing answers 5xx; and a payment for an investor who already completed
//   is queued as `after-completion`, its money recorded, the investor not moved.
// - crash-retry: a bulk move SIGKILLed mid-way; the retry's final answer comes within 15 s of the
//   restart and the batch is applied once (support/crash-retry.ts).
import { randomUUID } from 'node:crypto';
import { referenceFromBody } from '../../../src/domain/payment-reference.ts';
import { investorBody } from '../../support/fixtures.ts';
import { killMidBulkAndRetry } from '../support/crash-retry.ts';
import { createClient, isProblem, type Received } from '../support/http.ts';
import { freshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { payingWorkflow } from '../../support/workflows.ts';

const CRASH_RETRY_TARGET_MS = 15_000;

const camt = (ref: string, amount: string, currency: string, booking: string, value = '<Dt>2026-11-23</Dt>') =>
  '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
  `<GrpHdr><MsgId>REL-${randomUUID().replaceAll('-', '').slice(0, 28)}</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>` +
  `<Ntry><Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt>${booking}</BookgDt><ValDt>${value}</ValDt><AcctSvcrRef>REL-${randomUUID().replaceAll('-', '').slice(0, 28)}</AcctSvcrRef>` +
  `<NtryDtls><TxDtls><RmtInf><Ustrd>${ref}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;

export async function moneyRules(): Promise<CheckResult> {
  const result = newResult('money and dates');
  const started = performance.now();
  const db = await freshDatabase('money');
  try {
    const service = await startInstance({ databaseUrl: db.url });
    const client = createClient(service.url);
    const admin = db.adminToken;
    const fail = (what: string, r: Received) => result.failures.push(`${what}: ${r.status} ${r.error ?? ''} ${r.text.slice(0, 300)}`);
    const must = async (what: string, sent: Promise<Received>, ...statuses: number[]) => {
      const r = await sent;
      if (!statuses.includes(r.status)) fail(what, r);
      return r;
    };
    let refused = 0;
    /** A refusal: this status, a problem document naming `field` (when given), never a 5xx. */
    const refusal = async (what: string, sent: Promise<Received>, status: number, field?: string) => {
      const r = await sent;
      if (r.status !== status || !isProblem(r)) return fail(`${what} (expected ${status})`, r);
      const fields = (r.json.errors ?? []).map((e: { field: string }) => e.field);
      if (field !== undefined && !fields.includes(field)) result.failures.push(`${what}: the problem names ${fields.join(', ') || 'no field'}, not ${field}`);
      refused++;
    };
    const statement = (body: string, type: string, query = '') =>
      client.request({ method: 'POST', path: `/payments/statements${query}`, body, headers: { authorization: `Bearer ${admin}`, 'content-type': type } });

    // A deal whose investors pay by transfer: interest → commitment → payment → complete.
    const dealId = `rel-money-${randomUUID()}`;
    const step = (s: string) => `${dealId}.${s}`;
    await must('PUT deal', client.put(`/deals/deal/${dealId}`, { name: 'Money rules', currency: 'EUR' }, admin), 201);
    await must('PUT workflow', client.put(`/deals/deal/${dealId}/workflow`, payingWorkflow(dealId), admin), 200, 201);
    await must(
      'PUT payment-settings',
      client.put(
        `/deals/deal/${dealId}/payment-settings`,
        { paymentStepId: step('payment'), amountFieldKey: 'amount_received', dateFieldKey: 'received_on' },
        admin,
      ),
      200,
      201,
    );
    const investors: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = `rel-money-inv-${randomUUID()}`;
      await must('PUT investor', client.put(`/investors/${id}`, investorBody({ forename: 'Money', surname: `Rules${i}` }), admin), 201);
      investors.push(id);
    }
    const [payer, completed, plain] = investors as [string, string, string];
    for (const id of [payer, completed]) {
      await must(
        'move to commitment',
        client.post(
          `/deals/deal/${dealId}/jump-to-step`,
          { investorUserId: id, targetStepId: step('commitment'), data: { committed_amount: '1000.00', currency: 'EUR' } },
          admin,
        ),
        201,
      );
    }
    const refs = new Map<string, string>(
      ((await client.get(`/deals/deal/${dealId}/all-payment-refernces`, admin)).json ?? []).map((e: any) => [e.investorUserId, e.paymentReference]),
    );
    const ref = refs.get(payer) ?? referenceFromBody('999999999999999');

    // Impossible dates.
    for (const [booking, value, field] of [
      ['<Dt>2026-02-30</Dt>', undefined, 'Stmt[1]/Ntry[1]/BookgDt'],
      ['<Dt>2026-13-01</Dt>', undefined, 'Stmt[1]/Ntry[1]/BookgDt'],
      ['<DtTm>2025-02-29T09:00:00</DtTm>', undefined, 'Stmt[1]/Ntry[1]/BookgDt'],
      ['<Dt>2026-11-23</Dt>', '<Dt>2026-04-31</Dt>', 'Stmt[1]/Ntry[1]/ValDt'],
    ] as const) {
      await refusal(`camt ${booking}${value ?? ''}`, statement(camt(ref, '10.00', 'EUR', booking, value), 'application/xml'), 400, field);
    }
    for (const date of ['2026-02-30', '2026-13-01', '2026-00-10', '2026-06-31']) {
      await refusal(
        `CSV date ${date}`,
        statement(`date,amount,currency,reference\n2026-11-20,1.00,EUR,${ref}\n${date},1.00,EUR,${ref}\n`, 'text/csv'),
        400,
        'row 3.date',
      );
    }
    await refusal(
      'a move with received_on 2026-02-30',
      client.post(
        `/deals/deal/${dealId}/jump-to-step`,
        { investorUserId: plain, targetStepId: step('payment'), data: { amount_received: '1.00', received_on: '2026-02-30' } },
        admin,
      ),
      400,
      'data.received_on',
    );
    await refusal('funnel enteredFrom=2026-02-30', client.get(`/deals/deal/${dealId}/funnel?enteredFrom=2026-02-30`, admin), 400, 'enteredFrom');

    // Minor units.
    for (const [amount, currency] of [
      ['0.001', 'EUR'],
      ['100.5', 'JPY'],
      ['1.2345', 'KWD'],
      ['10.005', 'GBP'],
    ] as const) {
      await refusal(
        `a move committing ${amount} ${currency}`,
        client.post(
          `/deals/deal/${dealId}/jump-to-step`,
          { investorUserId: plain, targetStepId: step('commitment'), data: { committed_amount: amount, currency } },
          admin,
        ),
        400,
        'data.committed_amount',
      );
    }
    for (const [amount, currency] of [
      ['0.001', 'EUR'],
      ['5.5', 'JPY'],
    ] as const) {
      await refusal(
        `a statement line of ${amount} ${currency}`,
        statement(camt(ref, amount, currency, '<Dt>2026-11-23</Dt>'), 'application/xml'),
        400,
        'Stmt[1]/Ntry[1]/Amt',
      );
    }
    await refusal('a CSV line of 0.001 EUR', statement(`date,amount,currency,reference\n2026-11-20,0.001,EUR,${ref}\n`, 'text/csv'), 400, 'row 2.amount');
    const assetId = 100_000 + Math.floor(Math.random() * 800_000_000);
    await must('PUT asset', client.put(`/portfolio/assets/${assetId}`, { name: 'Money rules asset', currency: 'JPY' }, admin), 200, 201);
    const booking = (over: Record<string, unknown>) => ({
      asset_id: assetId,
      investor_id: plain,
      units: 10,
      price_per_unit: 100,
      total: 1000,
      fee: 0,
      funding_source: 'cash_account',
      invoice_date: '2026-03-01',
      settlement_date: '2026-03-05',
      source: 'rel',
      source_id: randomUUID(),
      description: 'minor units',
      ...over,
    });
    await refusal('a JPY subscription with fee 0.5', client.post('/portfolio/transactions/subscriptions', booking({ fee: 0.5 }), admin), 422, 'fee');
    await refusal(
      'a JPY subscription with total 100.5',
      client.post('/portfolio/transactions/subscriptions', booking({ units: 1, price_per_unit: 100.5, total: 100.5 }), admin),
      422,
      'total',
    );
    await refusal(
      'a JPY subscription with a key',
      client.post('/portfolio/transactions/subscriptions', booking({ fee: 0.5 }), admin, { 'idempotency-key': randomUUID() }),
      422,
      'fee',
    );
    await refusal('invoice_date 2026-02-30', client.post('/portfolio/transactions/subscriptions', booking({ invoice_date: '2026-02-30' }), admin), 400);

    // Nothing of what was refused is stored.
    const lines = (await client.get(`/payments/lines?dealId=${dealId}&limit=100`, admin)).json?.output ?? [];
    if (lines.length > 0) result.failures.push(`${lines.length} payment line(s) stored from refused statements`);
    const plainJourney = (await client.get(`/deals/deal/${dealId}/investor-data/${plain}`, admin)).json?.journey ?? [];
    if (plainJourney.length > 0) result.failures.push(`refused moves left ${plainJourney.length} event(s)`);
    const booked = (await client.get(`/portfolio/transactions/subscriptions?investor_id=${plain}`, admin)).json?.output ?? [];
    if (booked.length > 0) result.failures.push(`${booked.length} subscription(s) booked from refused requests`);

    // A payment after completion: queued as after-completion, money recorded, the investor not moved.
    await must(
      'move to payment',
      client.post(
        `/deals/deal/${dealId}/jump-to-step`,
        { investorUserId: completed, targetStepId: step('payment'), data: { amount_received: '1000.00', received_on: '2026-11-01' } },
        admin,
      ),
      201,
    );
    await must(
      'move to complete',
      client.post(`/deals/deal/${dealId}/jump-to-step`, { investorUserId: completed, targetStepId: step('complete'), data: {} }, admin),
      201,
    );
    const before = (await client.get(`/deals/deal/${dealId}/investor-data/${completed}`, admin)).json?.journey ?? [];
    let afterCompletion = 0;
    for (const amount of ['1000.00', '50.00']) {
      const r = await must(
        'a statement after completion',
        statement(
          `date,amount,currency,reference,bank_reference\n2026-11-24,${amount},EUR,${refs.get(completed)},REL-${randomUUID().replaceAll('-', '').slice(0, 28)}\n`,
          'text/csv',
          '?bankReferenceColumn=bank_reference',
        ),
        201,
      );
      if (r.json?.outcomes?.['after-completion'] === 1) afterCompletion++;
      else result.failures.push(`a payment of ${amount} after completion: outcomes ${JSON.stringify(r.json?.outcomes)}`);
    }
    const after = (await client.get(`/deals/deal/${dealId}/investor-data/${completed}`, admin)).json?.journey ?? [];
    if (JSON.stringify(after) !== JSON.stringify(before)) result.failures.push('a payment after completion moved the investor');
    // The investor who had not completed is still matched and moved.
    const onTime = await must(
      'an on-time payment',
      statement(
        `date,amount,currency,reference,bank_reference\n2026-11-24,1000.00,EUR,${ref},REL-${randomUUID().replaceAll('-', '').slice(0, 28)}\n`,
        'text/csv',
        '?bankReferenceColumn=bank_reference',
      ),
      201,
    );
    if (onTime.json?.outcomes?.matched !== 1) result.failures.push(`an on-time payment: outcomes ${JSON.stringify(onTime.json?.outcomes)}`);

    result.figures['refusals'] = refused;
    result.figures['after-completion lines'] = afterCompletion;
    client.close();
    await service.stop();
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
  return result;
}

export async function crashRetry(): Promise<CheckResult> {
  const result = newResult('crash-retry');
  const started = performance.now();
  const db = await freshDatabase('crashretry');
  try {
    const service = await startInstance({ databaseUrl: db.url });
    const outcome = await killMidBulkAndRetry(
      service,
      db.adminToken,
      async (key) => (await db.pool.query('select status from idempotency_keys where key = $1', [key])).rows[0]?.status,
    );
    if (!outcome) result.skipped.push('every kill came after the batch committed: the crash was never caught mid-way');
    else {
      result.failures.push(...outcome.failures);
      if (outcome.elapsedMs > CRASH_RETRY_TARGET_MS)
        result.failures.push(`the retry's final answer came ${Math.round(outcome.elapsedMs)} ms after the restart (target ${CRASH_RETRY_TARGET_MS} ms)`);
      result.figures['killed after ms'] = outcome.killedAfterMs;
      result.figures['retry answered after restart ms'] = Math.round(outcome.elapsedMs);
      result.figures['409s before it'] = outcome.conflicts;
    }
    await service.stop();
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
  return result;
}
