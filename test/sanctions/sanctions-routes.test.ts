// The sanctions routes through HTTP: an admin uploads a list as downloaded, the directory is screened,
// the review queue shows the hit, an approver decides it (an operator cannot), and an investor sees
// none of it. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { StaffRole } from '../../src/domain/principal.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor } from '../support/deals.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sanctions/${name}`, import.meta.url), 'utf8');
const XML = { 'content-type': 'application/xml' };

describe('sanctions routes', () => {
  const t = startApp();
  const as = async (role: StaffRole) => client(t.app, (await createToken(t.database.db, { name: `${role} key`, role })).token);

  test('an admin loads a list; an operator may not; a file that is no list is refused and nothing is stored', async () => {
    const operator = await as('operator');
    expectProblem(await operator.post('/sanctions/lists?fileName=eu.xml', fixture('eu-fsf.xml'), XML), 403);
    const refused = expectProblem(await t.admin.post('/sanctions/lists?fileName=notes.xml', '<notes><note>hello</note></notes>', XML), 422);
    assert.match(refused.detail, /not one of the known sanctions lists/);
    expectProblem(await t.admin.post('/sanctions/lists', { entries: [] }), 415);
    expectProblem(await t.admin.post('/sanctions/lists'), 415);
    assert.deepEqual((await t.admin.get('/sanctions/lists')).body, []);

    const loaded = await t.admin.post('/sanctions/lists?fileName=eu.xml', fixture('eu-fsf.xml'), XML);
    assert.equal(loaded.status, 201);
    assert.equal(loaded.body.source, 'eu');
    assert.equal(loaded.body.entryCount, 2);
    const uk = await t.admin.post('/sanctions/lists', fixture('uk-conlist.csv'), { 'content-type': 'text/csv' });
    assert.equal(uk.body.source, 'uk');

    const lists = (await operator.get('/sanctions/lists')).body as { id: string; source: string; fileName: string; current: boolean }[];
    assert.deepEqual(
      lists.map((l) => [l.source, l.fileName, l.current]),
      [
        ['uk', 'upload', true],
        ['eu', 'eu.xml', true],
      ],
    );
  });

  test('a matching investor is queued; an approver dismisses with a reason, once; the queue and the investor say so', async () => {
    const { id } = await createInvestor(t.admin, { forename: 'Dmitrij', surname: 'Sokolov', email: 'sokolov@example.com', dateOfBirth: '1968-02-03' });
    const viewer = await as('viewer');
    const open = (await viewer.get(`/sanctions/hits?investorId=${id}`)).body;
    assert.equal(open.output.length, 1);
    const [hit] = open.output;
    assert.equal(hit.investorName, 'Dmitrij Sokolov');
    assert.equal(hit.status, 'open');
    assert.equal(hit.source, 'eu');
    assert.equal(hit.listed, true);
    assert.ok(Number(hit.score) >= 0.9);

    const operator = await as('operator');
    assert.match(expectProblem(await operator.post(`/sanctions/hits/${hit.id}/dismiss`, { reason: 'x' }), 403).detail, /needs the approver role/);
    const approver = await as('approver');
    expectProblem(await approver.post(`/sanctions/hits/${hit.id}/dismiss`, {}), 400);
    expectProblem(await approver.post(`/sanctions/hits/${hit.id}/dismiss`, { reason: '' }), 400);
    expectProblem(await approver.post('/sanctions/hits/not-a-uuid/confirm', {}), 400);
    expectProblem(await approver.post('/sanctions/hits/00000000-0000-4000-8000-000000000000/confirm', {}), 404);

    const dismissed = await approver.post(`/sanctions/hits/${hit.id}/dismiss`, { reason: 'Born 1990; the listed person was born 1962' });
    assert.equal(dismissed.status, 200);
    assert.equal(dismissed.body.status, 'dismissed');
    assert.equal(dismissed.body.reason, 'Born 1990; the listed person was born 1962');
    const again = expectProblem(await approver.post(`/sanctions/hits/${hit.id}/confirm`, {}), 409);
    assert.match(again.detail, /already dismissed/);

    assert.equal((await viewer.get(`/sanctions/hits?investorId=${id}`)).body.output.length, 0);
    const history = (await viewer.get(`/sanctions/hits?status=dismissed&investorId=${id}`)).body.output;
    assert.equal(history.length, 1);
    assert.equal(history[0].decidedBy.length > 0, true);
    // Screening again finds the same entry unchanged: the dismissal holds.
    assert.deepEqual((await operator.post('/sanctions/screen', { investorIds: [id] })).body, { newHits: 0 });
  });

  test('the same name with a date of birth years from the listed one is no hit; with none, the name alone decides', async () => {
    const { id: younger } = await createInvestor(t.admin, { forename: 'Dmitrij', surname: 'Sokolov', email: 'young@example.com', dateOfBirth: '1994-07-21' });
    assert.equal((await t.admin.get(`/sanctions/hits?status=all&investorId=${younger}`)).body.output.length, 0);
    const { id: unknown } = await createInvestor(t.admin, { forename: 'Dmitrij', surname: 'Sokolov', email: 'undated@example.com', dateOfBirth: null });
    assert.equal((await t.admin.get(`/sanctions/hits?investorId=${unknown}`)).body.output.length, 1);
  });

  test('a confirmed hit keeps the investor blocked; the decision is an audit entry', async () => {
    const { id } = await createInvestor(t.admin, { forename: 'Dmitry', surname: 'Sokolov', email: 'dmitry@example.com', dateOfBirth: '1968-02-03' });
    const [hit] = (await t.admin.get(`/sanctions/hits?investorId=${id}`)).body.output;
    const approver = await as('approver');
    const confirmed = await approver.post(`/sanctions/hits/${hit.id}/confirm`, {});
    assert.equal(confirmed.body.status, 'confirmed');
    assert.equal(confirmed.body.reason, null);
    const all = (await t.admin.get(`/sanctions/hits?status=all&investorId=${id}`)).body.output;
    assert.deepEqual(
      all.map((h: { status: string }) => h.status),
      ['confirmed'],
    );
  });

  test('a broken or hostile file is a 400 or 422 naming why, and nothing is stored', async () => {
    const before = (await t.admin.get('/sanctions/lists')).body.length;
    const bad: [string, string | Buffer, number, RegExp][] = [
      ['application/xml', '<export><sanctionEntity logicalId="1"><nameAlias wholeName="x"', 400, /unclosed tag/],
      ['application/xml', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><export>&a;</export>', 400, /DOCTYPE/],
      ['application/xml', `<export><sanctionEntity logicalId="1">${'<a>'.repeat(40)}`, 400, /nests deeper than 32/],
      [
        'application/xml',
        Buffer.concat([Buffer.from('<export><sanctionEntity logicalId="1"><nameAlias wholeName="'), Buffer.from([0xc3, 0x28]), Buffer.from('"/>')]),
        400,
        /not valid UTF-8/,
      ],
      ['text/csv', 'Name 6,Group ID\n"a\n', 400, /Quote Not Closed/],
      ['text/csv', '"just some text', 422, /not one of the known sanctions lists/],
    ];
    for (const [type, payload, status, detail] of bad) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/sanctions/lists',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type },
        payload,
      });
      assert.equal(response.statusCode, status, response.body);
      assert.match(JSON.parse(response.body).detail, detail);
    }
    assert.equal((await t.admin.get('/sanctions/lists')).body.length, before);
  });

  test('an investor sees none of it', async () => {
    const investor = client(t.app, await t.investorToken('inv-sanctions'));
    expectProblem(await investor.get('/sanctions/hits'), 403);
    expectProblem(await investor.get('/sanctions/lists'), 403);
    expectProblem(await investor.post('/sanctions/screen', {}), 403);
  });
});
