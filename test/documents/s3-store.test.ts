// DOCUMENT_STORE=s3 over HTTP, against s3rver (an S3-compatible server run in this process): a deal's
// documents, KYC documents and an agreement template are kept in the bucket, one object per
// distinct content named by its SHA-256, and come back byte for byte, a multi-megabyte file
// included; the same bytes twice are one object; a refused upload (too large, empty, not what it
// says it is) leaves nothing in the bucket and no row in the database.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { createToken } from '../../src/operations/tokens.ts';
import { client, expectProblem } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { files, investorAtKyc, kycDeal, uploadKyc } from '../support/kyc.ts';
import { rowCounts } from '../support/row-counts.ts';
import { startAppWithS3 } from '../support/s3.ts';
import { templatePdf } from '../support/signing.ts';

const KYC_MAX = 6 * 1024 * 1024;
const { t, s3 } = startAppWithS3({ env: { KYC_DOCUMENT_MAX_BYTES: String(KYC_MAX) } });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const keyOf = (bytes: Buffer) => `sha256/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`;
/** A PDF-shaped file of about `size` bytes; `text` makes it differ from another. */
const pdf = (text: string, size = 0) => Buffer.concat([Buffer.from(`%PDF-1.7\n% ${text}\n`), Buffer.alloc(size, text.charCodeAt(0)), Buffer.from('\n%%EOF\n')]);

async function send(method: 'GET' | 'POST', url: string, token: string, body?: Buffer, contentType = 'application/pdf') {
  const response = await t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': contentType } : {}) },
    ...(body ? { payload: body } : {}),
  });
  const json = response.headers['content-type']?.toString().includes('json') ? response.json() : undefined;
  return { status: response.statusCode, headers: response.headers, bytes: response.rawPayload, body: json, text: response.body };
}

const uploadDocument = (token: string, dealId: string, body: Buffer, title = 'Memorandum') =>
  send('POST', `/deals/deal/${dealId}/documents?title=${encodeURIComponent(title)}`, token, body);

describe('document contents in an S3 bucket', () => {
  test('a deal document: uploaded in parts, one object by its hash, released, downloaded byte for byte; the same bytes again add nothing', async () => {
    const operator = (await createToken(t.database.db, { name: 'operator key', role: 'operator' })).token;
    const deal = await createDeal(t.admin);
    const { id } = await createInvestor(t.admin);
    await jump(t.admin, deal.dealId, id, deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });
    const bytes = pdf('memorandum', 12 * 1024 * 1024 + 12_345); // three parts of a multipart upload
    const uploaded = await uploadDocument(operator, deal.dealId, bytes);
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.deepEqual([uploaded.body.contentHash, uploaded.body.size], [sha256(bytes), bytes.length]);
    const keys = await s3().keys();
    assert.ok(keys.includes(keyOf(bytes)), 'the content is the object named by its hash');
    assert.deepEqual(
      keys.filter((k) => !k.startsWith('sha256/')),
      [],
      'the temporary object is gone',
    );

    const again = await uploadDocument(operator, deal.dealId, bytes, 'Memorandum again');
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.contentHash, uploaded.body.contentHash);
    assert.deepEqual(await s3().keys(), keys, 'the same bytes twice are one object');

    const released = await client(t.app, operator).post(`/deals/deal/${deal.dealId}/documents/${uploaded.body.id}/releases`, { investorUserId: id });
    assert.equal(released.status, 201, released.text);
    const read = await send('GET', `/deals/deal/${deal.dealId}/documents/${uploaded.body.id}/content`, await t.investorToken(id));
    assert.equal(read.status, 200);
    assert.equal(read.headers['content-length'], String(bytes.length));
    assert.equal(read.headers.etag, `"${sha256(bytes)}"`);
    assert.ok(read.bytes.equals(bytes), 'the investor gets the bytes as they went in');

    // A small file is put whole at its key; twice, still one object.
    const small = pdf('side letter');
    assert.equal((await uploadDocument(operator, deal.dealId, small, 'Side letter')).status, 201);
    assert.equal((await uploadDocument(operator, deal.dealId, small, 'Side letter again')).status, 201);
    assert.deepEqual(await s3().keys(), [...keys, keyOf(small)].sort());
  });

  test('a KYC document: uploaded by the investor, kept in the bucket, opened by staff byte for byte; the same file twice is one object', async () => {
    const { deal, id, token, target } = await investorAtKyc(t);

    const passport = pdf('passport', KYC_MAX - 1024); // just under the limit: two parts
    const identity = await uploadKyc(t.app, token, target, 'identity', passport, 'application/pdf', 'passport.pdf');
    assert.equal(identity.status, 201, identity.text);
    assert.equal(identity.body.contentHash, sha256(passport));
    const bill = await uploadKyc(t.app, token, target, 'proof-of-address', files.png(), 'image/png');
    assert.equal(bill.status, 201, bill.text);
    const keys = await s3().keys();
    assert.ok(keys.includes(keyOf(passport)) && keys.includes(keyOf(files.png())));

    const again = await uploadKyc(t.app, token, target, 'identity', passport, 'application/pdf', 'passport-again.pdf');
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(await s3().keys(), keys, 'the same bytes twice are one object');

    for (const [document, bytes, type] of [
      [identity.body.id, passport, 'application/pdf'],
      [bill.body.id, files.png(), 'image/png'],
    ] as const) {
      const read = await send('GET', `/deals/deal/${deal.dealId}/kyc/${id}/documents/${document}/content`, t.adminToken);
      assert.equal(read.status, 200);
      assert.equal(read.headers['content-type'], type);
      assert.ok(read.bytes.equals(bytes), 'staff get the bytes as they went in');
    }
  });

  test("an erased investor's KYC files leave the bucket once the erasure committed; the same bytes another investor uploaded stay", async () => {
    const ada = await investorAtKyc(t);
    const bea = await investorAtKyc(t);
    const passport = pdf('ada passport');
    const bill = pdf('shared bill');
    for (const [who, kind, bytes] of [
      [ada, 'identity', passport],
      [ada, 'proof-of-address', bill],
      [bea, 'proof-of-address', bill],
    ] as const)
      assert.equal((await uploadKyc(t.app, who.token, who.target, kind, bytes)).status, 201);
    assert.ok((await s3().keys()).includes(keyOf(passport)));

    const erased = await t.admin.post(`/investors/${ada.id}/erasure`, { overrideRetention: true, reason: 'the investor asked' });
    assert.equal(erased.status, 200, erased.text);
    const keys = await s3().keys();
    assert.ok(!keys.includes(keyOf(passport)), 'the passport is gone from the bucket');
    assert.ok(keys.includes(keyOf(bill)), 'the bill another investor uploaded stays');
    const [theirs] = (await t.admin.get(`/deals/deal/${bea.deal.dealId}/kyc/${bea.id}`)).body.documents;
    const read = await send('GET', `/deals/deal/${bea.deal.dealId}/kyc/${bea.id}/documents/${theirs.id}/content`, t.adminToken);
    assert.ok(read.bytes.equals(bill), 'and reads byte for byte');
  });

  test('refused uploads leave nothing in the bucket: too large (after a part was sent), empty, not what they say', async () => {
    const deal = await kycDeal(t.admin);
    const { id } = await createInvestor(t.admin, { kycCheckLevel: null });
    await jump(t.admin, deal.dealId, id, deal.step('interest'));
    await jump(t.admin, deal.dealId, id, deal.step('kyc'));
    const keys = await s3().keys();
    const rows = await rowCounts(t);

    const kyc = (body: Buffer) => send('POST', `/deals/deal/${deal.dealId}/kyc/${id}/documents?kind=identity`, t.adminToken, body);
    expectProblem(await kyc(pdf('too large', KYC_MAX + 1)), 413);
    expectProblem(await kyc(pdf('far too large', 2 * KYC_MAX)), 413);
    expectProblem(await kyc(Buffer.alloc(0)), 400);
    expectProblem(await kyc(files.png()), 400);
    expectProblem(await uploadDocument(t.adminToken, deal.dealId, Buffer.from('Hello, I am text')), 400);
    expectProblem(await uploadDocument(t.adminToken, deal.dealId, Buffer.alloc(0)), 400);

    assert.deepEqual(await s3().keys(), keys, 'no object, not even a temporary one');
    assert.deepEqual(await rowCounts(t), rows, 'no row');
  });

  test('an agreement template: read back from the bucket to find its fields and to fill each investor’s agreement', async () => {
    const deal = await createDeal(t.admin);
    const { id } = await createInvestor(t.admin);
    await jump(t.admin, deal.dealId, id, deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });
    const template = await templatePdf(['investor_name', 'amount']);
    const uploaded = await send('POST', `/deals/deal/${deal.dealId}/agreement-template`, t.adminToken, template);
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.deepEqual(uploaded.body.fields, ['investor_name', 'amount']);
    assert.ok((await s3().keys()).includes(keyOf(template)));

    const agreement = await t.admin.get(`/deals/deal/${deal.dealId}/agreements/${id}`);
    assert.equal(agreement.status, 200, agreement.text);
    assert.equal(agreement.body.templateHash, sha256(template));
    const filled = await send('GET', `/deals/deal/${deal.dealId}/agreements/${id}/content`, t.adminToken);
    assert.equal(filled.status, 200);
    assert.equal(sha256(filled.bytes), agreement.body.contentHash, 'the template filled from the bucket is the PDF reviewed');
  });
});
