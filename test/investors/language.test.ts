// The language of an investor's e-mails: chosen by staff or by the investor themself, audited, and
// the language the next mail is written in (here a fund's German template; others fall back to English).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createMailDispatcher, type MailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem } from '../support/app.ts';
import { verify } from '../support/audit.ts';
import { createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { rowCounts } from '../support/row-counts.ts';
import { startAppWithMail } from '../support/smtp.ts';

const templates = mkdtempSync(path.join(tmpdir(), 'dealflow-templates-'));
mkdirSync(path.join(templates, 'de'));
writeFileSync(path.join(templates, 'de', 'invitation.subject'), 'Ihre Einladung zum Anlegerportal');
writeFileSync(path.join(templates, 'de', 'invitation.txt'), 'Guten Tag {{recipientName}},\n\n{{invitationUrl}}\n');

describe("an investor's language", () => {
  const { t, smtp } = startAppWithMail({ env: { MAIL_TEMPLATE_DIR: templates } });
  let dispatcher: MailDispatcher;
  before(() => {
    dispatcher = createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl });
  });
  const staff = async (role: 'viewer' | 'operator') => client(t.app, (await createToken(t.database.db, { name: `${role} key`, role })).token);
  const changes = async (investorUserId: string) =>
    (
      await sql<{ change: { from: string | null; to: string } }>`select change from audit_log
        where chain = 'directory' and type = 'investor.language-changed' and change->>'investorUserId' = ${investorUserId} order by seq`.execute(t.database.db)
    ).rows.map((r) => r.change);

  test('unset reads as English; the investor chooses German, audited once; the invitation then comes in German', async () => {
    const email = `${uniqueId('de')}@example.com`;
    const investor = await createInvestor(t.admin, { forename: 'Lise', surname: 'Meitner', email });
    const own = client(t.app, await t.investorToken(investor.id));
    assert.deepEqual((await own.get(`/investors/${investor.id}/language`)).body, { investorUserId: investor.id, language: 'en', chosen: false });

    const chosen = await own.put(`/investors/${investor.id}/language`, { language: 'de' });
    assert.equal(chosen.status, 200, chosen.text);
    assert.deepEqual(chosen.body, { investorUserId: investor.id, language: 'de', chosen: true });
    assert.equal((await own.put(`/investors/${investor.id}/language`, { language: 'de' })).status, 200, 'the same again changes nothing');
    assert.deepEqual(await changes(investor.id), [{ investorUserId: investor.id, from: null, to: 'de' }]);
    assert.equal((await verify(t.database.db)).code, 0);

    assert.equal((await t.admin.post('/investors/portal-invitations', { investorUserIds: [investor.id] })).status, 201);
    await dispatcher.runOnce();
    const [mail] = smtp().arrived.filter((m) => m.envelopeTo.includes(email));
    assert.equal(mail!.subject, 'Ihre Einladung zum Anlegerportal');
    assert.match(mail!.text, /^Guten Tag Lise Meitner,/);
    assert.match(mail!.html, /invitation|Einladung|portal/i, 'the HTML part, which the fund did not translate, falls back to English');
  });

  test('an operator sets it (French: no translation, so English mails); a viewer may not; the investor directory PUT leaves it alone', async () => {
    const investor = await createInvestor(t.admin);
    expectProblem(await (await staff('viewer')).put(`/investors/${investor.id}/language`, { language: 'fr' }), 403);
    const set = await (await staff('operator')).put(`/investors/${investor.id}/language`, { language: 'fr' });
    assert.equal(set.status, 200, set.text);
    assert.equal((await (await staff('viewer')).get(`/investors/${investor.id}/language`)).body.language, 'fr');
    const { id: _id, ...entry } = (await t.admin.get(`/investors/${investor.id}`)).body;
    assert.equal((await t.admin.put(`/investors/${investor.id}`, entry)).status, 200);
    assert.equal((await t.admin.get(`/investors/${investor.id}/language`)).body.language, 'fr');
  });

  test('bad input is a 400 and another investor gets 404 as for an unknown id; nothing changes', async () => {
    const investor = await createInvestor(t.admin);
    const other = await createInvestor(t.admin);
    const stranger = client(t.app, await t.investorToken(other.id));
    const before = await rowCounts(t);
    for (const body of [{ language: 'es' }, { language: 'DE' }, { language: null }, {}, { language: 'de', extra: 1 }])
      expectProblem(await t.admin.put(`/investors/${investor.id}/language`, body), 400);
    const foreign = expectProblem(await stranger.put(`/investors/${investor.id}/language`, { language: 'de' }), 404);
    const unknown = expectProblem(await stranger.put('/investors/inv-nobody/language', { language: 'de' }), 404);
    assert.equal(foreign.detail?.replace(investor.id, 'X'), unknown.detail?.replace('inv-nobody', 'X'));
    expectProblem(await stranger.get(`/investors/${investor.id}/language`), 404);
    expectProblem(await t.admin.put('/investors/inv-nobody/language', { language: 'de' }), 404);
    assert.deepEqual(await rowCounts(t), before);
    assert.deepEqual(await changes(investor.id), []);
    assert.equal((await t.admin.get(`/investors/${investor.id}/language`)).body.chosen, false);
  });
});
