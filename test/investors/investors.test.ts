import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { investorBody, uniqueId } from '../support/fixtures.ts';

describe('investor directory', () => {
  const t = startApp();
  const admin = t.admin;

  test('PUT creates (201) then updates (200); GET returns the whole investor object', async () => {
    const id = uniqueId('inv');
    const body = investorBody({ forename: 'Grace', surname: 'Hopper' });
    const created = await admin.put(`/investors/${id}`, body);
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, { id, ...body });
    const updated = await admin.put(`/investors/${id}`, { ...body, kycCheckLevel: 3 });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.kycCheckLevel, 3);
    assert.deepEqual((await admin.get(`/investors/${id}`)).body, { id, ...body, kycCheckLevel: 3 });
  });

  test('omitted nullable members come back as null', async () => {
    const id = uniqueId('inv');
    const body = investorBody();
    const { teamUserId: _t, ...withoutTeam } = body;
    const { middleNames: _m, title: _ti, nickname: _n, ...personal } = body.contact.contact;
    const response = await admin.put(`/investors/${id}`, { ...withoutTeam, contact: { ...body.contact, contact: personal } });
    assert.equal(response.status, 201);
    assert.equal(response.body.teamUserId, null);
    assert.equal(response.body.contact.contact.middleNames, null);
    assert.equal(response.body.contact.contact.title, null);
  });

  test('bad bodies are 400s naming the field, and nothing is stored', async () => {
    const id = uniqueId('inv');
    const body = investorBody();
    const cases: [unknown, string][] = [
      [{ ...body, kycCheckLevel: '2' }, 'kycCheckLevel'],
      [{ ...body, contact: { ...body.contact, tfaEnabled: 'yes' } }, 'contact.tfaEnabled'],
      [{ ...body, contact: { ...body.contact, userType: 1.5 } }, 'contact.userType'],
      [{ ...body, contact: { ...body.contact, contact: { ...body.contact.contact, email: 'not-an-email' } } }, 'contact.contact.email'],
      [{ ...body, contact: { ...body.contact, contact: { ...body.contact.contact, dateOfBirth: '1985-13-40' } } }, 'contact.contact.dateOfBirth'],
      [{ ...body, contact: { ...body.contact, extra: 1 } }, 'contact.extra'],
    ];
    for (const [bad, field] of cases) {
      const problem = expectProblem(await admin.put(`/investors/${id}`, bad), 400);
      assert.ok(
        problem.errors?.some((e) => e.field === field),
        `${field}: ${JSON.stringify(problem.errors)}`,
      );
    }
    expectProblem(await admin.get(`/investors/${id}`), 404);
  });

  test('an investor reads their own entry, not another one, and cannot write', async () => {
    const mine = uniqueId('inv');
    const other = uniqueId('inv');
    await admin.put(`/investors/${mine}`, investorBody());
    await admin.put(`/investors/${other}`, investorBody());
    const investor = client(t.app, await t.investorToken(mine));
    assert.equal((await investor.get(`/investors/${mine}`)).status, 200);
    expectProblem(await investor.get(`/investors/${other}`), 404);
    expectProblem(await investor.put(`/investors/${mine}`, investorBody()), 403);
  });
});
