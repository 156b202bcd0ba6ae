// The dispatcher's claims, on both databases: several dispatchers at once send each mail once; a
// dispatcher that dies after claiming (its attempt left without an outcome) holds the mail until
// its lease runs out, then another sends it, with the same Message-ID, and the dead attempt is on
// record as interrupted; mails are given up after MAIL_MAX_AGE_HOURS; a fund's templates replace
// the built-in ones, per language, with English as the fallback.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createMailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { enqueueMail } from '../../src/operations/mail-outbox.ts';
import { createRenderer, loadTemplateFolder } from '../../src/operations/mail-templates.ts';
import { claimDueMails } from '../../src/store/mails.ts';

import { uniqueId } from '../support/fixtures.ts';
import { startAppWithMail } from '../support/smtp.ts';

let now = Date.parse('2026-06-01T08:00:00.000Z');
const clock = () => new Date(now);

describe('claims and leases', () => {
  const { t, smtp } = startAppWithMail({
    clock,
    env: {
      MAIL_LEASE_MS: '60000',
      MAIL_TIMEOUT_MS: '5000',
    } as Record<string, string>,
  });
  const deps = () => ({ db: t.database.db, clock, newId: () => crypto.randomUUID() });
  const dispatcher = () =>
    createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl, clock, batchSize: 3 });
  const enqueue = async (address: string, kind: 'invitation' = 'invitation') =>
    t.database.db.transaction().execute((db) =>
      enqueueMail(
        { ...deps(), db },
        {
          kind,
          dedupeKey: `test:${address}`,
          dealId: null,
          to: { address, name: 'Tess', language: null },
          senderName: 'Test Fund',
          variables: { invitationUrl: 'https://x.example/', expiresAt: 'never' },
        },
      ),
    );
  const to = (address: string) => smtp().arrived.filter((m) => m.envelopeTo.includes(address));

  test('four dispatchers at once: every mail once', async () => {
    const addresses = Array.from({ length: 20 }, () => `${uniqueId('c')}@example.com`);
    for (const a of addresses) assert.equal(await enqueue(a), true);
    assert.equal(await enqueue(addresses[0]!), false, 'the same cause again adds nothing');
    const four = [dispatcher(), dispatcher(), dispatcher(), dispatcher()];
    for (let round = 0; round < 10; round++) await Promise.all(four.map((d) => d.runOnce()));
    for (const a of addresses) assert.equal(to(a).length, 1, a);
  });

  test('a dispatcher that died after claiming: the mail waits for its lease, then goes once with the same Message-ID', async () => {
    const address = `${uniqueId('dead')}@example.com`;
    await enqueue(address);
    const [claimed] = await claimDueMails(t.database.db, { now: clock(), leaseMs: 60_000, limit: 100, claimId: crypto.randomUUID() });
    assert.ok(claimed, 'claimed by a dispatcher that then dies');
    now += 30_000;
    await dispatcher().runOnce();
    assert.equal(to(address).length, 0, 'the lease holds');
    now += 31_000;
    await dispatcher().runOnce();
    const [mail, ...more] = to(address);
    assert.equal(more.length, 0);
    assert.equal(mail!.messageId, `<${claimed.id}@example.com>`);
    assert.equal(mail!.fromName, 'Test Fund');
    const { rows } = await sql<{
      attempt: number;
      outcome: string;
    }>`select attempt, outcome from mail_outcomes where mail_id = ${claimed.id} order by attempt`.execute(t.database.db);
    assert.deepEqual(
      rows.map((r) => [Number(r.attempt), r.outcome]),
      [
        [1, 'interrupted'],
        [2, 'sent'],
      ],
    );
  });

  test('a mail not sent within MAIL_MAX_AGE_HOURS is given up', async () => {
    const address = `${uniqueId('old')}@example.com`;
    await enqueue(address);
    now += 73 * 3_600_000;
    await dispatcher().runOnce();
    assert.equal(to(address).length, 0);
    const { rows } = await sql<{
      outcome: string;
    }>`select o.outcome from mail_outcomes o join mails m on m.id = o.mail_id where m.recipient_address = ${address}`.execute(t.database.db);
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['dead'],
    );
  });

  test('the history is append-only', async () => {
    await assert.rejects(sql`update mails set recipient_address = 'x@example.com'`.execute(t.database.db), /append-only/);
    await assert.rejects(sql`delete from mail_outcomes`.execute(t.database.db), /append-only/);
  });
});

describe('templates a fund overrides', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dealflow-mail-templates-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const vars = { recipientName: 'Jo <Doe>', dealName: 'Fund', portalUrl: 'https://p/', invitationUrl: 'https://i/', expiresAt: 'Friday' };

  test('per language, part by part, falling back to English; HTML escaped; an unknown variable stops the load', () => {
    mkdirSync(join(folder, 'en'));
    mkdirSync(join(folder, 'de'));
    writeFileSync(join(folder, 'en', 'invitation.subject'), 'Welcome to {{dealName}}\n');
    writeFileSync(join(folder, 'de', 'invitation.txt'), 'Hallo {{recipientName}}, hier: {{invitationUrl}}');
    writeFileSync(join(folder, 'de', 'invitation.html'), '<p>Hallo {{recipientName}}</p>');
    const render = createRenderer(loadTemplateFolder(folder));
    const de = render('invitation', 'de', vars);
    assert.equal(de.subject, 'Welcome to Fund', "no German subject: the fund's English one");
    assert.equal(de.text, 'Hallo Jo <Doe>, hier: https://i/');
    assert.match(de.html, /<html lang="de">/);
    assert.match(de.html, /<p>Hallo Jo &lt;Doe&gt;<\/p>/);
    const fr = render('invitation', 'fr', vars);
    assert.match(fr.text, /You are invited to the investor portal/, 'no French at all: built-in English');
    const en = render('invitation', 'en', vars);
    assert.equal(en.subject, 'Welcome to Fund');
    assert.match(en.text, /^Hello Jo <Doe>,/);
    writeFileSync(join(folder, 'en', 'payment-received.txt'), 'Got {{amountReceived}} {{iban}}');
    assert.throws(() => loadTemplateFolder(folder), /payment-received\.txt uses \{\{iban\}\}, which payment-received mails do not have/);
  });
});
