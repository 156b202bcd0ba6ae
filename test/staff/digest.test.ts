// The staff digest: once a day from MAIL_DIGEST_HOUR (UTC) on, each active person is sent what
// waits for staff; never two on one day, also when several instances check at once; a person turns
// theirs off with PUT /staff/{personId}/digest (an admin may for anyone, nobody else). Sent to a real
// SMTP server (smtp-server) and read back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { enqueueDueDigests } from '../../src/operations/mail-digest.ts';
import { createMailDispatcher } from '../../src/operations/mail-dispatcher.ts';
import { client, expectProblem } from '../support/app.ts';
import { commit, createDeal, createInvestor } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { staffDoor } from '../support/portal.ts';
import { startAppWithMail } from '../support/smtp.ts';

let now = Date.parse('2026-06-01T06:30:00.000Z');
const clock = () => new Date(now);

describe('the daily staff digest', () => {
  const { t, smtp } = startAppWithMail({
    clock,
    env: {
      MAIL_DIGEST_HOUR: '7',
      PORTAL_RATE_LIMIT_PER_MINUTE: '100000',
    } as Record<string, string>,
  });
  const deps = () => ({ db: t.database.db, clock, newId: () => crypto.randomUUID() });
  const door = () => staffDoor(t.app, t.config.basePath, 'http://localhost:3000');
  const person = (role: string) => ({ email: `${uniqueId('p')}@example.com`, name: `A ${role}`, role });
  const digestsTo = (address: string) => smtp().arrived.filter((m) => m.envelopeTo.includes(address.toLowerCase()));
  const send = () =>
    createMailDispatcher({ db: t.database.db, smtp: t.config.portal.smtp!, mail: t.config.mail, publicUrl: t.config.portal.publicUrl, clock }).runOnce();

  test('once a day per person from the hour on; turned off by the person; an admin for anyone, nobody else', async () => {
    await door().inviteStaff(t.admin, person('admin'));
    assert.equal(await enqueueDueDigests(deps(), { hourUtc: 7 }), 0, 'before the hour nothing is due');
    now = Date.parse('2026-06-01T07:00:00.000Z');
    const viewer = await door().signedUp(t.admin, person('viewer'));
    const other = await door().inviteStaff(t.admin, person('operator'));
    // The first person has it off from the start (an admin set it).
    const first = (await t.admin.get('/staff')).body.people.find((p: { role: string }) => p.role === 'admin').personId;
    assert.equal((await t.admin.put(`/staff/${first}/digest`, { dailyDigest: false })).status, 200);
    // Something waits: a pending edit request.
    const deal = await createDeal(t.admin, { workflow: 'subscription' });
    const investor = await createInvestor(t.admin);
    const event = await commit(t.admin, deal, investor.id);
    const own = client(t.app, await t.investorToken(investor.id));
    assert.equal(
      (
        await own.post('/deals/request-to-edit', {
          workflowEventId: event.id,
          type: 'Investment Amount',
          reason: 'r',
          newData: { committed_amount: '30000.00' },
        })
      ).status,
      201,
    );

    // Two instances checking at the same moment, and one checking again: one digest each.
    const added = await Promise.all([enqueueDueDigests(deps(), { hourUtc: 7 }), enqueueDueDigests(deps(), { hourUtc: 7 })]);
    assert.equal(added[0] + added[1], 2, 'the two people, once');
    assert.equal(await enqueueDueDigests(deps(), { hourUtc: 7 }), 0);
    await send();
    const [digest, ...more] = digestsTo(viewer.invitation.email);
    assert.equal(more.length, 0);
    assert.equal(digest!.subject, 'What waits for you on 2026-06-01');
    assert.match(digest!.text, /Edit requests to decide: 1\n/);
    assert.match(digest!.text, /Approvals waiting for a second person: 0\n/);
    assert.match(digest!.html, /<th align="left">Edit requests to decide<\/th><td>1<\/td>/);
    assert.equal(digestsTo(other.email).length, 1);

    // The person turns theirs off; another person's is not theirs to set; an admin may.
    const api = viewer.session.api;
    const off = await api.put(`/console/api/staff/${viewer.invitation.personId}/digest`, { dailyDigest: false });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(off.body, { personId: viewer.invitation.personId, dailyDigest: false });
    expectProblem(await api.put(`/console/api/staff/${other.personId}/digest`, { dailyDigest: false }), 403);
    expectProblem(await t.admin.put(`/staff/${crypto.randomUUID()}/digest`, { dailyDigest: false }), 404);
    expectProblem(await t.admin.put(`/staff/${other.personId}/digest`, { dailyDigest: 'no' }), 400);
    assert.equal((await t.admin.put(`/staff/${other.personId}/digest`, { dailyDigest: true })).status, 200, 'already on: nothing recorded');
    const { rows } = await sql<{ n: string }>`select count(*) as n from audit_log where type = 'staff.digest-changed'`.execute(t.database.db);
    assert.equal(Number(rows[0]!.n), 2, 'each change audited, once');

    now = Date.parse('2026-06-02T09:00:00.000Z');
    assert.equal(await enqueueDueDigests(deps(), { hourUtc: 7 }), 1);
    await send();
    assert.equal(digestsTo(viewer.invitation.email).length, 1, 'off: no second digest');
    assert.equal(digestsTo(other.email).length, 2);
  });
});
