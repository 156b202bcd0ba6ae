// Erasure reaches the investor's evidence: their KYC documents' file names, staff's reasons for
// rejecting one, the IP addresses of their category confirmation and of their signature are
// blanked; the contents of their KYC documents and agreement PDFs go, but for the content another
// investor's upload shares by its bytes, which that investor still downloads. Reading the erased
// contents is a 404 saying so, the audit chains verify, and the tables still refuse any other change.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { verify } from '../support/audit.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { files, kycDeal, uploadKyc } from '../support/kyc.ts';
import { invitationToken, portal } from '../support/portal.ts';
import { agreementPath, sign, templatePdf } from '../support/signing.ts';
import { agreementWorkflow } from '../support/workflows.ts';

describe('erasure evidence', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const db = () => t.database.db;

  const count = async (table: 'document_blobs' | 'document_chunks') =>
    Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db())).rows[0]!.n);
  const stored = async (hash: string) =>
    Number((await sql<{ n: number }>`select count(*)::int as n from document_blobs where content_hash = ${hash}`.execute(db())).rows[0]!.n) === 1;

  /** A statement the triggers must refuse: SQLSTATE 42501 (history) or 40001 (content a live record names). */
  async function refused(statement: ReturnType<typeof sql>, code = '42501') {
    await assert.rejects(statement.execute(db()), (err: { code?: string }) => err.code === code, `refused with ${code}`);
  }

  async function download(token: string, dealId: string, investorUserId: string, documentId: string) {
    return t.app.inject({
      method: 'GET',
      url: `/deals/deal/${dealId}/kyc/${investorUserId}/documents/${documentId}/content`,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  /** An investor at the KYC deal's KYC step, with their own API key. */
  async function atKyc(dealId: string, step: (name: string) => string, investorUserId?: string) {
    const id = investorUserId ?? (await createInvestor(t.admin, { kycCheckLevel: null })).id;
    await jump(t.admin, dealId, id, step('interest'));
    await jump(t.admin, dealId, id, step('kyc'));
    return { id, token: await t.investorToken(id) };
  }

  test('erasure blanks the evidence and deletes the contents only the investor had; shared bytes stay for the other investor', async () => {
    // Ada signs in to the portal: she uploads KYC files, confirms a category and signs an agreement.
    const ada = await createInvestor(t.admin, { kycCheckLevel: null });
    const door = portal(t.app, t.config.basePath, origin);
    const [invitation] = await door.invite(t.admin, [ada.id]);
    const { session, authenticator } = await door.register(invitationToken(invitation!.url));

    const kyc = await kycDeal(t.admin);
    const mine = await atKyc(kyc.dealId, kyc.step, ada.id);
    const target = { dealId: kyc.dealId, investorUserId: ada.id };
    const passport = files.pdf(`passport of ${ada.id}`);
    const bill = files.jpeg();
    const identity = await uploadKyc(t.app, mine.token, target, 'identity', passport, 'application/pdf', 'ada-passport.pdf');
    assert.equal(identity.status, 201, identity.text);
    const address = await uploadKyc(t.app, mine.token, target, 'proof-of-address', bill, 'image/jpeg', 'ada-bill.jpg');
    assert.equal(address.status, 201, address.text);
    const operator = client(t.app, (await createToken(db(), { name: 'operator', role: 'operator' })).token);
    const rejected = await operator.post(`/deals/deal/${kyc.dealId}/kyc/${ada.id}/documents/${identity.body.id}/reject`, {
      reason: 'The name on the passport is not Ada Lovelace',
    });
    assert.equal(rejected.status, 200, rejected.text);
    const confirmed = await client(t.app, mine.token).post(`/deals/deal/${kyc.dealId}/kyc/${ada.id}/category-confirmations`, {
      category: 'certified-high-net-worth',
      confirmed: true,
    });
    assert.equal(confirmed.status, 201, confirmed.text);

    // Bob uploads the very same bill: one content, named by both.
    const bob = await atKyc(kyc.dealId, kyc.step);
    const shared = await uploadKyc(t.app, bob.token, { dealId: kyc.dealId, investorUserId: bob.id }, 'proof-of-address', bill, 'image/jpeg', 'bob-bill.jpg');
    assert.equal(shared.status, 201, shared.text);
    assert.equal(shared.body.contentHash, address.body.contentHash);
    const category = { category: 'self-certified-sophisticated', confirmed: true };
    assert.equal((await client(t.app, bob.token).post(`/deals/deal/${kyc.dealId}/kyc/${bob.id}/category-confirmations`, category)).status, 201);

    const dealId = uniqueId('deal');
    assert.equal((await t.admin.put(`/deals/deal/${dealId}`, { name: 'Fund IV', currency: 'EUR' })).status, 201);
    assert.equal((await t.admin.put(`/deals/deal/${dealId}/workflow`, agreementWorkflow(dealId, { requirement: false }))).status, 201);
    await jump(t.admin, dealId, ada.id, `${dealId}.interest`);
    await jump(t.admin, dealId, ada.id, `${dealId}.commitment`, { committed_amount: '25000.00', currency: 'EUR', address_line1: '12 St James Square' });
    const template = await templatePdf();
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${dealId}/agreement-template`,
      payload: template,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/pdf' },
    });
    assert.equal(uploaded.statusCode, 201, uploaded.body);
    const url = agreementPath('portal', dealId, ada.id);
    const reviewed = (await session.api.get(url)).body;
    const signed = await sign(session, authenticator, url, reviewed.contentHash);
    assert.equal(signed.status, 201, signed.text);
    const sealedHash = signed.body.contentHash as string;
    assert.ok((await stored(reviewed.contentHash)) && (await stored(sealedHash)));

    const [blobs, chunks] = [await count('document_blobs'), await count('document_chunks')];
    const erased = await t.admin.post(`/investors/${ada.id}/erasure`, { overrideRetention: true, reason: 'the investor asked' });
    assert.equal(erased.status, 200, erased.text);

    // Blanked: file names, the rejection's reason, the confirmation's and the signature's addresses.
    const names = await sql<{ investor_id: string; file_name: string }>`select investor_id, file_name from kyc_documents
    where deal_id = ${kyc.dealId} order by seq`.execute(db());
    assert.deepEqual(
      names.rows.map((r) => [r.investor_id, r.file_name]),
      [
        [ada.id, ''],
        [ada.id, ''],
        [bob.id, 'bob-bill.jpg'],
      ],
    );
    const reason = await sql<{ reason: string }>`select reason from kyc_document_reviews where document_id = ${identity.body.id}`.execute(db());
    assert.equal(reason.rows[0]!.reason, '');
    const ip = await sql<{
      investor_id: string;
      ip: string;
    }>`select investor_id, ip from category_confirmations where deal_id = ${kyc.dealId} order by seq`.execute(db());
    assert.deepEqual(
      ip.rows.map((r) => [r.investor_id, r.ip !== '']),
      [
        [ada.id, false],
        [bob.id, true],
      ],
    );
    const signatureIp = await sql<{ ip: string }>`select ip from agreement_signatures where investor_user_id = ${ada.id}`.execute(db());
    assert.deepEqual(
      signatureIp.rows.map((r) => r.ip),
      [''],
    );

    // Deleted: the passport and both agreement PDFs (three contents of one chunk each); kept: the shared bill and the template.
    assert.equal(await count('document_blobs'), blobs - 3);
    assert.equal(await count('document_chunks'), chunks - 3);
    for (const hash of [identity.body.contentHash, reviewed.contentHash, sealedHash]) assert.equal(await stored(hash), false, hash);
    assert.ok(await stored(address.body.contentHash), 'the content Bob shares stays');
    assert.ok(await stored(sha256(template)), "the deal's template stays");
    const bobs = await download(bob.token, kyc.dealId, bob.id, shared.body.id);
    assert.equal(bobs.statusCode, 200);
    assert.ok(bobs.rawPayload.equals(bill), 'Bob downloads his bill byte for byte');

    // Staff reading what went: a 404 that says why; the records themselves still answer.
    for (const documentId of [identity.body.id, address.body.id]) {
      const gone = await download(t.adminToken, kyc.dealId, ada.id, documentId);
      assert.equal(gone.statusCode, 404);
      assert.match(gone.json().detail, /erased/);
    }
    const listed = await t.admin.get(`/deals/deal/${kyc.dealId}/kyc/${ada.id}`);
    assert.equal(listed.status, 200, listed.text);
    const pdf = await t.app.inject({
      method: 'GET',
      url: `${agreementPath('', dealId, ada.id)}/content`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    assert.equal(pdf.statusCode, 404, pdf.body);
    assert.match(pdf.json().detail, /erased/);
    const state = await t.admin.get(agreementPath('', dealId, ada.id));
    assert.equal(state.status, 200, state.text);
    assert.equal(state.body.state, 'signed');

    // The erasure's entry counts what went, and never names it.
    const entry = await sql<{ change: Record<string, unknown> }>`select change from audit_log where type = 'investor.erased'
    and change->>'investorUserId' = ${ada.id}`.execute(db());
    assert.deepEqual(entry.rows[0]!.change.evidence, {
      kycFileNames: 2,
      rejectionReasons: 1,
      confirmationAddresses: 1,
      signatureAddresses: 1,
      kycContents: 1,
      agreementContents: 2,
    });
    const result = await verify(db());
    assert.equal(result.code, 0, result.output);

    // The tables are history still: nothing but the erasure's blanks, and only of an erased investor.
    await refused(sql`update kyc_documents set file_name = 'again.pdf' where investor_id = ${ada.id}`);
    await refused(sql`update kyc_documents set size = 1 where investor_id = ${ada.id}`);
    await refused(sql`update kyc_documents set file_name = '' where investor_id = ${bob.id}`);
    await refused(sql`delete from kyc_documents where investor_id = ${ada.id}`);
    await refused(sql`update kyc_document_reviews set decision = 'accepted', reason = null where document_id = ${identity.body.id}`);
    await refused(sql`update category_confirmations set ip = '' where investor_id = ${bob.id}`);
    await refused(sql`update category_confirmations set ip = '10.0.0.1' where investor_id = ${ada.id}`);
    await refused(sql`update agreement_signatures set signer = 'someone' where investor_user_id = ${ada.id}`);
    await refused(sql`delete from document_blobs where content_hash = ${address.body.contentHash}`, '40001');
    assert.ok(await stored(address.body.contentHash));
  });

  test('erasing an investor with no evidence counts nothing', async () => {
    const { id } = await createInvestor(t.admin);
    const erased = await t.admin.post(`/investors/${id}/erasure`, { overrideRetention: true, reason: 'the investor asked' });
    assert.equal(erased.status, 200, erased.text);
    const entry = await sql<{ change: Record<string, unknown> }>`select change from audit_log where type = 'investor.erased'
    and change->>'investorUserId' = ${id}`.execute(db());
    assert.deepEqual(entry.rows[0]!.change.evidence, {
      kycFileNames: 0,
      rejectionReasons: 0,
      confirmationAddresses: 0,
      signatureAddresses: 0,
      kycContents: 0,
      agreementContents: 0,
    });
  });
});
