// Subscription agreements over HTTP: an operator uploads a template, the investor reviews it filled
// with their data, signs it in the portal with a passkey whose challenge binds the PDF's hash, an
// approver countersigns it in the console, and pdfsig finds both PAdES signatures valid; one byte
// changed and it does not. Another investor's agreement is a 404; roles and turns are enforced.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { verify } from '../support/audit.ts';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { invitationToken, portal, staffDoor } from '../support/portal.ts';
import { agreementPath, agreementPdf, pdfsig, sign, templatePdf } from '../support/signing.ts';
import { agreementWorkflow } from '../support/workflows.ts';

describe('agreements routes', () => {
  const t = startApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const origin = 'http://localhost:3000';
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  /** The PDF's text, as poppler reads it; a PDF poppler has to repair fails. */
  function textOf(bytes: Uint8Array): string {
    const run = spawnSync('/usr/bin/pdftotext', ['-', '-'], { input: bytes, encoding: 'utf8' });
    assert.equal(run.stderr, '', 'poppler reads the PDF without repairing it');
    return run.stdout;
  }

  async function uploadTemplate(token: string, dealId: string, body: Buffer) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${dealId}/agreement-template`,
      payload: body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
    });
    return { status: response.statusCode, headers: response.headers, body: response.json(), text: response.body };
  }

  /** A deal with the signing workflow, and an investor signed in to the portal who committed 25000.00 EUR. */
  async function committedInvestor(dealId?: string) {
    const id = dealId ?? uniqueId('deal');
    if (!dealId) {
      assert.equal((await t.admin.put(`/deals/deal/${id}`, { name: 'Fund IV', currency: 'EUR' })).status, 201);
      assert.equal((await t.admin.put(`/deals/deal/${id}/workflow`, agreementWorkflow(id, { requirement: false }))).status, 201);
    }
    const investor = await createInvestor(t.admin);
    const door = portal(t.app, t.config.basePath, origin);
    const [invitation] = await door.invite(t.admin, [investor.id]);
    const { session, authenticator } = await door.register(invitationToken(invitation!.url));
    await jump(t.admin, id, investor.id, `${id}.interest`);
    await jump(t.admin, id, investor.id, `${id}.commitment`, { committed_amount: '25000.00', currency: 'EUR', address_line1: '1 Rue de la Paix, Paris' });
    return {
      dealId: id,
      investorUserId: investor.id,
      name: investor.body.contact.fullName,
      session,
      authenticator,
      url: agreementPath('portal', id, investor.id),
    };
  }

  async function approver(role = 'approver') {
    return staffDoor(t.app, t.config.basePath, origin).signedUp(t.admin, { email: `${uniqueId('p')}@example.com`, name: `Bea ${role}`, role });
  }

  describe('subscription agreements', () => {
    test('filled from the template, signed in the portal, countersigned in the console: pdfsig finds both signatures valid', async () => {
      const ada = await committedInvestor();
      const template = await templatePdf();
      const uploaded = await uploadTemplate(t.adminToken, ada.dealId, template);
      assert.equal(uploaded.status, 201, uploaded.text);
      assert.equal(uploaded.body.contentHash, sha256(template));
      assert.deepEqual(uploaded.body.fields, ['investor_name', 'address_line1', 'amount', 'currency', 'date', 'left_blank']);

      const before = (await ada.session.api.get(ada.url)).body;
      assert.equal(before.state, 'to-sign');
      assert.equal(before.templateHash, sha256(template));
      const filled = await agreementPdf(ada.session.api, ada.url);
      assert.equal(filled.status, 200);
      assert.equal(sha256(filled.bytes), before.contentHash, 'the hash answered is the PDF reviewed');
      assert.equal(filled.etag, `"${before.contentHash}"`);
      const text = textOf(filled.bytes);
      for (const expected of [ada.name, '1 Rue de la Paix, Paris', '25000.00', 'EUR', new Date().toISOString().slice(0, 10)])
        assert.ok(text.includes(expected), `${expected} in ${text}`);
      assert.deepEqual(pdfsig(filled.bytes).signatures, [], 'not signed yet');

      const signed = await sign(ada.session, ada.authenticator, ada.url, before.contentHash);
      assert.equal(signed.status, 201, signed.text);
      assert.equal(signed.body.state, 'signed');
      const [signature] = signed.body.signatures;
      assert.equal(signature.role, 'investor');
      assert.equal(signature.signer, ada.investorUserId);
      assert.equal(signature.signedHash, before.contentHash);
      assert.equal(signature.ip, '127.0.0.1');
      const sealed = await agreementPdf(ada.session.api, ada.url);
      assert.equal(sha256(sealed.bytes), signature.sealedHash);
      assert.ok(sealed.bytes.subarray(0, filled.bytes.length).equals(filled.bytes), 'the reviewed PDF is a prefix of the signed one');
      const once = pdfsig(sealed.bytes);
      assert.deepEqual(once.signatures, [{ field: 'Investor signature', valid: true, totalDocumentSigned: true, type: 'ETSI.CAdES.detached' }], once.output);

      const bea = await approver();
      const staffUrl = agreementPath('console', ada.dealId, ada.investorUserId);
      const listed = await bea.session.api.get(`/console/api/deals/deal/${ada.dealId}/agreements`);
      assert.deepEqual(
        listed.body.map((a: { investorUserId: string; state: string }) => [a.investorUserId, a.state]),
        [[ada.investorUserId, 'signed']],
      );
      const countersigned = await sign(bea.session, bea.authenticator, staffUrl, signature.sealedHash);
      assert.equal(countersigned.status, 201, countersigned.text);
      assert.equal(countersigned.body.state, 'countersigned');
      assert.equal(countersigned.body.signatures[1].signedHash, signature.sealedHash);

      const final = await agreementPdf(ada.session.api, ada.url);
      assert.equal(final.status, 200);
      assert.equal(sha256(final.bytes), countersigned.body.contentHash);
      const twice = pdfsig(final.bytes);
      assert.match(twice.output, /Signature Validation: Signature is Valid/);
      assert.doesNotMatch(twice.output, /Error/, 'poppler reads the signed PDF without repairing it');
      assert.equal(textOf(final.bytes), textOf(filled.bytes), 'the signatures add no text');
      assert.deepEqual(
        twice.signatures.map((s) => [s.field, s.valid, s.totalDocumentSigned, s.type]),
        [
          ['Investor signature', true, false, 'ETSI.CAdES.detached'],
          ['Countersignature', true, true, 'ETSI.CAdES.detached'],
        ],
        twice.output,
      );

      // One byte changed (the producer's name, under both signatures): neither is valid.
      const at = final.bytes.indexOf('dealflow');
      const tampered = Buffer.from(final.bytes);
      tampered[at] = 'D'.charCodeAt(0);
      assert.deepEqual(
        pdfsig(tampered).signatures.map((s) => s.valid),
        [false, false],
      );

      // The audit chain names the documents signed and the passkeys' answers, and verifies.
      const { rows } = await sql<{ type: string; change: Record<string, unknown> }>`select type, change from audit_log
      where chain = ${`documents:${ada.dealId}`} and type in ('agreement.signed', 'agreement.countersigned') order by seq`.execute(t.database.db);
      assert.deepEqual(
        rows.map((r) => [r.type, r.change.signedHash, r.change.sealedHash, r.change.userVerified]),
        [
          ['agreement.signed', before.contentHash, signature.sealedHash, true],
          ['agreement.countersigned', signature.sealedHash, countersigned.body.contentHash, true],
        ],
      );
      assert.equal((rows[0]!.change.assertion as { id: string }).id, ada.authenticator.credentials[0]!.id);
      assert.equal((await verify(t.database.db, { dealId: ada.dealId })).code, 0);
    });

    test('without a template the agreement is a page from the deal text; turns, stale reviews and reused options are refused', async () => {
      const cleo = await committedInvestor();
      const agreement = (await cleo.session.api.get(cleo.url)).body;
      assert.equal(agreement.templateHash, null);
      const text = textOf((await agreementPdf(cleo.session.api, cleo.url)).bytes);
      for (const expected of ['Subscription agreement', 'Fund IV', cleo.name, 'Address line 1: 1 Rue de la Paix, Paris', 'Amount: 25000.00'])
        assert.ok(text.includes(expected), text);

      const bea = await approver();
      const staffUrl = agreementPath('console', cleo.dealId, cleo.investorUserId);
      expectProblem(await bea.session.api.post(`${staffUrl}/signing-options`, { contentHash: agreement.contentHash }), 409);
      expectProblem(await cleo.session.api.post(`${cleo.url}/signing-options`, { contentHash: '0'.repeat(64) }), 409);

      const options = await cleo.session.api.post(`${cleo.url}/signing-options`, { contentHash: agreement.contentHash });
      const answer = cleo.authenticator.authenticate(options.body.options);
      assert.equal((await cleo.session.api.post(`${cleo.url}/signatures`, { response: answer })).status, 201);
      expectProblem(await cleo.session.api.post(`${cleo.url}/signatures`, { response: answer }), 400);
      expectProblem(await cleo.session.api.post(`${cleo.url}/signing-options`, { contentHash: agreement.contentHash }), 409);
    });

    test("another investor's agreement is a 404; signing needs a passkey session; countersigning needs an approver", async () => {
      const ada = await committedInvestor();
      const bob = await committedInvestor(ada.dealId);
      const adaAsBob = agreementPath('portal', ada.dealId, ada.investorUserId);
      expectProblem(await bob.session.api.get(adaAsBob), 404);
      assert.equal((await agreementPdf(bob.session.api, adaAsBob)).status, 404);
      const hash = (await ada.session.api.get(ada.url)).body.contentHash;
      expectProblem(await bob.session.api.post(`${adaAsBob}/signing-options`, { contentHash: hash }), 404);
      expectProblem(await bob.session.api.get(agreementPath('portal', 'deal-nobody-has', bob.investorUserId)), 404);

      const token = client(t.app, await t.investorToken(ada.investorUserId));
      expectProblem(await token.post(`${agreementPath('', ada.dealId, ada.investorUserId)}/signing-options`, { contentHash: hash }), 403);
      expectProblem(await t.admin.post(`${agreementPath('', ada.dealId, ada.investorUserId)}/signing-options`, { contentHash: hash }), 403);
      const operator = await approver('operator');
      expectProblem(await operator.session.api.post(`${agreementPath('console', ada.dealId, ada.investorUserId)}/signing-options`, { contentHash: hash }), 403);
      expectProblem(await token.get(`/deals/deal/${ada.dealId}/agreements`), 403);
      const viewer = await approver('viewer');
      assert.equal((await viewer.session.api.get(`/console/api/deals/deal/${ada.dealId}/agreements`)).status, 200);
      expectProblem(await uploadTemplate(await t.investorToken(ada.investorUserId), ada.dealId, await templatePdf()), 403);
      expectProblem(await uploadTemplate(t.adminToken, ada.dealId, Buffer.from('%PDF-1.7\nnot really\n%%EOF\n')), 400);
    });
  });
});
