// KYC documents over HTTP: an investor at the KYC step uploads the documents the deal asks for (a
// PDF, JPEG or PNG, stored by its SHA-256); an operator accepts one or asks for another with a
// reason the investor reads; once every document is accepted the investor's kycCheckLevel is the
// deal's level, recorded with its day and expiry, and a move that needs it is allowed. Another
// investor's files answer 404 as unknown ones do; a viewer cannot decide; bad input changes nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { files, investorAtKyc, uploadKyc } from '../support/kyc.ts';
import { rowCounts } from '../support/row-counts.ts';

describe('kyc documents', () => {
  const t = startApp({ env: { KYC_DOCUMENT_MAX_BYTES: '4096' } });
  const staff = async (role: 'viewer' | 'operator') => (await createToken(t.database.db, { name: `${role} key`, role })).token;
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  const atKyc = () => investorAtKyc(t);

  describe('KYC documents', () => {
    test('the investor uploads, an operator accepts both: the level is set, recorded and audited, and the commitment opens', async () => {
      const { deal, id, token, target } = await atKyc();
      const investor = client(t.app, token);
      // With a category statement the only thing missing is the KYC level.
      await t.admin.post(`/investors/${id}/category-statements`, {
        category: 'certified-high-net-worth',
        statementText: 'I am a certified high net worth individual.',
        signedOn: new Date().toISOString().slice(0, 10),
      });
      const commit = () =>
        investor.post(`/deals/deal/${deal.dealId}/jump-to-step`, {
          investorUserId: id,
          targetStepId: deal.step('commitment'),
          data: { committed_amount: '25000.00', currency: 'EUR' },
        });
      assert.match(JSON.stringify(expectProblem(await commit(), 422)), /KYC check level is not set; at least 2 is required/);

      const passport = files.pdf('passport');
      const identity = await uploadKyc(t.app, token, target, 'identity', passport, 'application/pdf', 'passport.pdf');
      assert.equal(identity.status, 201, identity.text);
      assert.deepEqual(
        {
          kind: identity.body.kind,
          mediaType: identity.body.mediaType,
          contentHash: identity.body.contentHash,
          size: identity.body.size,
          decision: identity.body.decision,
        },
        { kind: 'identity', mediaType: 'application/pdf', contentHash: sha256(passport), size: passport.length, decision: null },
      );
      const bill = await uploadKyc(t.app, token, target, 'proof-of-address', files.png(), 'image/png');
      assert.equal(bill.status, 201, bill.text);
      assert.equal(bill.body.fileName, 'proof-of-address.png');

      const status = (await investor.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body;
      assert.equal(status.open, true);
      assert.deepEqual(
        status.requests.map((r: { state: string }) => r.state),
        ['submitted', 'submitted'],
      );
      const queued = await t.admin.get('/kyc/reviews?limit=100');
      assert.equal(queued.status, 200, queued.text);
      const queue = queued.body;
      assert.ok(queue.output.some((d: { id: string }) => d.id === identity.body.id));

      const operator = client(t.app, await staff('operator'));
      const decide = (doc: string, decision: string, body: unknown = {}) =>
        operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc}/${decision}`, body);
      const first = await decide(identity.body.id, 'accept');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.decision, 'accepted');
      const level = async () =>
        (await sql<{ k: number | null }>`select kyc_check_level as k from investors where id = ${id}`.execute(t.database.db)).rows[0]!.k;
      assert.equal(await level(), null, 'one of two accepted: no level yet');
      assert.equal((await decide(bill.body.id, 'accept')).status, 200);

      const after = (await investor.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body;
      assert.equal(after.satisfied, true);
      assert.equal(after.level.level, 2);
      assert.equal(after.level.standing, 'valid');
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(after.level.acceptedOn, today);
      assert.equal(await level(), 2);
      const { rows: audit } = await sql<{
        type: string;
      }>`select type from audit_log where change->>'investorUserId' = ${id} and type like 'kyc.%' order by seq`.execute(t.database.db);
      assert.deepEqual(
        audit.map((a) => a.type),
        ['kyc.document-uploaded', 'kyc.document-uploaded', 'kyc.document-accepted', 'kyc.document-accepted', 'kyc.level-accepted'],
      );
      assert.equal((await commit()).status, 201, 'the move refused before is allowed now');

      // Decided once: a second decision is a conflict and changes nothing.
      const before = await rowCounts(t);
      expectProblem(await decide(bill.body.id, 'reject', { reason: 'too late' }), 409);
      assert.deepEqual(await rowCounts(t), before);
    });

    test('asked for another: the reason reaches the investor, who uploads a new file', async () => {
      const { deal, id, token, target } = await atKyc();
      const operator = client(t.app, await staff('operator'));
      const scan = await uploadKyc(t.app, token, target, 'identity', files.jpeg(), 'image/jpeg');
      assert.equal(scan.status, 201, scan.text);
      assert.equal(scan.body.mediaType, 'image/jpeg');
      const rejected = await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${scan.body.id}/reject`, { reason: 'The photo page is cut off' });
      assert.equal(rejected.status, 200, rejected.text);
      const seen = (await client(t.app, token).get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body;
      assert.deepEqual(seen.requests[0], { kind: 'identity', state: 'rejected', reason: 'The photo page is cut off' });
      assert.equal((await uploadKyc(t.app, token, target, 'identity', files.pdf('new scan'))).status, 201);
      assert.equal((await client(t.app, token).get(`/deals/deal/${deal.dealId}/kyc/${id}`)).body.requests[0].state, 'submitted');

      const content = await t.app.inject({
        method: 'GET',
        url: `/deals/deal/${deal.dealId}/kyc/${id}/documents/${scan.body.id}/content`,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(content.statusCode, 200);
      assert.equal(content.headers['content-type'], 'image/jpeg');
      assert.deepEqual(content.rawPayload, files.jpeg());
    });

    test('bad files and bad decisions are refused, and nothing is stored', async () => {
      const { deal, id, token, target } = await atKyc();
      const doc = (await uploadKyc(t.app, token, target, 'identity', files.pdf())).body;
      const operator = client(t.app, await staff('operator'));
      const before = await rowCounts(t);
      expectProblem(
        {
          ...(await uploadKyc(t.app, token, target, 'identity', Buffer.from('GIF89a not taken'), 'image/png')),
          headers: { 'content-type': 'application/problem+json' },
        },
        400,
      );
      assert.equal((await uploadKyc(t.app, token, target, 'identity', files.png(), 'application/pdf')).status, 400, 'the content decides, not the header');
      assert.equal((await uploadKyc(t.app, token, target, 'identity', files.pdf(), 'image/gif')).status, 415);
      assert.equal((await uploadKyc(t.app, token, target, 'selfie', files.pdf())).status, 400);
      assert.equal((await uploadKyc(t.app, token, target, 'identity', Buffer.concat([files.pdf(), Buffer.alloc(5000, 0x20)]))).status, 413);
      assert.equal((await uploadKyc(t.app, token, target, 'identity', Buffer.alloc(0), 'application/pdf')).status, 400);
      expectProblem(await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/reject`, { reason: '' }), 400);
      expectProblem(await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/reject`, { reason: '   ' }), 400);
      expectProblem(await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/accept`, { surprise: 1 }), 400);
      expectProblem(await operator.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/00000000-0000-4000-8000-000000000000/accept`, {}), 404);
      assert.deepEqual(await rowCounts(t), before);
    });

    test('security: another investor gets 404 as for an unknown id; a viewer and an investor cannot decide', async () => {
      const { deal, id, token, target } = await atKyc();
      const doc = (await uploadKyc(t.app, token, target, 'identity', files.pdf())).body;
      const { id: otherId } = await createInvestor(t.admin);
      await jump(t.admin, deal.dealId, otherId, deal.step('interest'));
      const otherToken = await t.investorToken(otherId);
      const other = client(t.app, otherToken);
      const viewer = client(t.app, await staff('viewer'));
      const before = await rowCounts(t);
      const theirs = expectProblem(await other.get(`/deals/deal/${deal.dealId}/kyc/${id}`), 404);
      const unknown = expectProblem(await other.get(`/deals/deal/${deal.dealId}/kyc/inv-nobody-at-all`), 404);
      assert.equal(theirs.title, unknown.title);
      const upload = await uploadKyc(t.app, otherToken, target, 'identity', files.pdf('forged'));
      assert.equal(upload.status, 404, upload.text);
      const read = await t.app.inject({
        method: 'GET',
        url: `/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/content`,
        headers: { authorization: `Bearer ${otherToken}` },
      });
      assert.equal(read.statusCode, 404);
      const ownPath = await t.app.inject({
        method: 'GET',
        url: `/deals/deal/${deal.dealId}/kyc/${otherId}/documents/${doc.id}/content`,
        headers: { authorization: `Bearer ${otherToken}` },
      });
      assert.equal(ownPath.statusCode, 404, "another investor's file under one's own id is unknown too");
      expectProblem(await viewer.post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/accept`, {}), 403);
      expectProblem(await client(t.app, token).post(`/deals/deal/${deal.dealId}/kyc/${id}/documents/${doc.id}/accept`, {}), 403);
      assert.deepEqual(await rowCounts(t), before, 'nothing stored for any of them');
      assert.equal((await viewer.get(`/deals/deal/${deal.dealId}/kyc/${id}`)).status, 200, 'a viewer reads');
    });
  });
});
