// Exactly once across a crash: the service runs as a real child process (`dealflow serve`), sends
// its mails to an SMTP server in this test that holds its answer to DATA, and is killed (SIGKILL)
// while a mail waits for that answer, twice; then it starts again and sends freely. Every mail the
// actions enqueued arrives, each exactly once (counted by Message-ID and by cause), nothing after.
// On PGlite the new process takes over at once; on PostgreSQL once the dead one's lease ran out
// (MAIL_LEASE_MS, short here).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createToken } from '../../src/operations/tokens.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/store/database.ts';
import { testDatabaseUrl } from '../support/app.ts';
import { type MailCatcher, startMailCatcher } from '../support/smtp.ts';
import { freePort } from '../support/pg-server.ts';
import { investorBody } from '../support/fixtures.ts';
import { agreementWorkflow, payingWorkflow } from '../support/workflows.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = /Admin token \(shown once, keep it\): (dfk_[A-Za-z0-9_-]+)/;

describe('mails across a SIGKILL of the service mid-send', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-mail-crash-'));
  let smtp: MailCatcher;
  let child: ChildProcess | undefined;
  let output = '';
  let port = 0;
  let databaseUrl = '';
  const database = `mail_crash_${process.pid}_${Date.now()}`;
  before(async () => {
    smtp = await startMailCatcher();
    port = await freePort();
    if (testDatabaseUrl) {
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      await admin.query(`create database ${database}`);
      await admin.end();
      const url = new URL(testDatabaseUrl);
      url.pathname = `/${database}`;
      databaseUrl = url.href;
    }
  });
  after(async () => {
    child?.kill('SIGKILL');
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
    if (testDatabaseUrl) {
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });

  async function start() {
    output = '';
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WEBHOOKS_DISPATCHER: 'off',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Deals <deals@example.com>',
      PUBLIC_URL: 'https://deals.example.com',
      MAIL_POLL_MS: '50',
      MAIL_TIMEOUT_MS: '20000',
      MAIL_LEASE_MS: '40000',
      MAIL_DIGEST_HOUR: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '', DATA_DIR: join(dir, 'data') }),
    };
    const c = spawn(process.execPath, ['--liftoff-only', 'src/cli/main.ts', 'serve', '--no-demo'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    c.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (c.exitCode !== null || c.signalCode !== null) throw new Error(`the service exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the service was not ready:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function kill() {
    const c = child!;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  }

  test('each mail arrives exactly once', { timeout: 600_000 }, async () => {
    smtp.hold(true);
    await start();
    let token = TOKEN.exec(output)?.[1];
    if (!token) {
      const db = await openDatabase({ ...loadConfig({ DATABASE_URL: databaseUrl }) });
      token = (await createToken(db.db, { name: 'mail crash test', role: 'admin' })).token;
      await db.close();
    }
    const call = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const json = await response.json();
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json as any;
    };

    // The actions, each enqueuing its mail in its own transaction.
    const dealId = `deal-crash-${Date.now()}`;
    await call('PUT', `/deals/deal/${dealId}`, { name: 'Crash Fund', currency: 'EUR' });
    const step = (s: string) => `${dealId}.${s}`;
    await call('PUT', `/deals/deal/${dealId}/workflow`, payingWorkflow(dealId));
    await call('PUT', `/deals/deal/${dealId}/payment-settings`, {
      paymentStepId: step('payment'),
      amountFieldKey: 'amount_received',
      dateFieldKey: 'received_on',
      beneficiaryName: 'Crash Fund',
      iban: 'BE71096123456769',
    });
    const investors = ['ada', 'ben', 'cy'];
    for (const name of investors) {
      await call('PUT', `/investors/${name}-${dealId}`, investorBody({ forename: name, surname: 'Crash', email: `${name}@example.com` }));
      await call('POST', `/deals/deal/${dealId}/jump-to-step`, {
        investorUserId: `${name}-${dealId}`,
        targetStepId: step('commitment'),
        data: { committed_amount: '1000.00', currency: 'EUR' },
      });
    }
    await call('POST', '/investors/portal-invitations', { investorUserIds: investors.map((n) => `${n}-${dealId}`) });
    const refs = await call('GET', `/deals/deal/${dealId}/all-payment-refernces`);
    const ada = refs.find((r: any) => r.investorUserId === `ada-${dealId}`).paymentReference;
    await call(
      'POST',
      '/payments/statements?bankReferenceColumn=bank_reference',
      `date,amount,currency,reference,bank_reference\n2026-11-24,400.00,EUR,${ada},B-1\n`,
      'text/csv',
    );
    const events = await call('GET', `/deals/deal/${dealId}/investor-data/ben-${dealId}`);
    const request = await call('POST', '/deals/request-to-edit', {
      workflowEventId: events.journey.at(-1).id,
      type: 'Investment Amount',
      reason: 'more',
      newData: { committed_amount: '2000.00' },
    });
    await call('POST', `/deals/request-to-edit/${request.id}/approve`, { reason: 'fine' });
    await call('POST', '/staff/invitations', { email: 'staff@example.com', name: 'Sam Staff', role: 'approver' });
    // A document to sign: an investor enters the step from which a link leads to the signing's.
    const signingDeal = `${dealId}-signing`;
    await call('PUT', `/deals/deal/${signingDeal}`, { name: 'Crash Fund II', currency: 'EUR' });
    await call('PUT', `/deals/deal/${signingDeal}/workflow`, agreementWorkflow(signingDeal));
    await call('PUT', `/investors/dee-${dealId}`, investorBody({ forename: 'dee', surname: 'Crash', email: 'dee@example.com' }));
    const moves: [string, Record<string, string>][] = [
      ['interest', {}],
      ['commitment', { committed_amount: '1000.00', currency: 'EUR', address_line1: '1 Quay' }],
      ['signing', {}],
    ];
    for (const [to, data] of moves) {
      await call('POST', `/deals/deal/${signingDeal}/jump-to-step`, { investorUserId: `dee-${dealId}`, targetStepId: `${signingDeal}.${to}`, data });
    }

    // Two kills while a mail waits for the server's answer to DATA.
    for (let round = 0; round < 2; round++) {
      await smtp.waitFor(() => smtp.held, 1, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await kill();
      await smtp.release(); // the sender is gone: these answers reach nobody, nothing is delivered
      if (round === 0) await start();
    }
    smtp.hold(false);
    await start();
    // 3 invitations, 3 payment instructions, 1 payment received, 1 change decided, 1 document to sign, 1 staff digest.
    const expected = 10;
    await smtp.waitFor(() => smtp.arrived.length, expected, 120_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = smtp.arrived.map((m) => m.messageId);
    assert.equal(new Set(ids).size, ids.length, `no Message-ID twice: ${ids.join(' ')}`);
    const causes = smtp.arrived.map((m) => `${m.envelopeTo.join()} ${m.subject}`).sort();
    assert.equal(new Set(causes).size, causes.length, `no mail twice:\n${causes.join('\n')}`);
    assert.equal(smtp.arrived.length, expected, causes.join('\n'));
    const subjects = smtp.arrived.map((m) => m.subject);
    assert.equal(subjects.filter((s) => s === 'Your invitation to the investor portal').length, 3);
    assert.equal(subjects.filter((s) => s === 'Crash Fund: how to pay 1000.00 EUR').length, 3);
    assert.ok(subjects.includes('Crash Fund: we received 400.00 EUR'));
    assert.ok(subjects.includes('Crash Fund: your edit request was approved'));
    assert.ok(subjects.includes('Crash Fund II: a document to sign'));
    assert.ok(subjects.some((s) => s.startsWith('What waits for you on ')));
    await kill();
    // The kills hit sends in flight: their attempts are on record as interrupted, and sent later.
    const db = await openDatabase(loadConfig(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '', DATA_DIR: join(dir, 'data') }));
    try {
      const { rows } = await sql<{ outcome: string; n: string }>`select outcome, count(*) as n from mail_outcomes group by outcome order by outcome`.execute(
        db.db,
      );
      const counts = Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
      // At least the two held at each kill; the rest of each claimed batch was interrupted before its turn.
      assert.ok(counts.interrupted! >= 2, JSON.stringify(counts));
      assert.equal(counts.sent, expected, JSON.stringify(counts));
    } finally {
      await db.close();
    }
  });
});
