// A deal's documents over HTTP: an operator uploads a PDF (stored once by its SHA-256, a chunk at a
// time) and releases it to a step or to one investor; an investor lists and opens only what is
// released to them (anything else is the 404 of an unknown document); every read is recorded and
// audited before a byte is sent, and staff see who opened what. Bad input changes nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createToken } from '../../src/operations/tokens.ts';
import { verify } from '../support/audit.ts';
import { type Client, client, expectProblem, startApp } from '../support/app.ts';
import { createDeal, createInvestor, jump } from '../support/deals.ts';
import { rowCounts } from '../support/row-counts.ts';

describe('documents routes', () => {
  const t = startApp();

  /** A small PDF-shaped file: the bytes begin as a PDF does; `pad` makes it as large as asked. */
  const pdf = (text: string, pad = 0) => Buffer.concat([Buffer.from(`%PDF-1.7\n% ${text}\n`), Buffer.alloc(pad, 0x20), Buffer.from('\n%%EOF\n')]);
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  async function upload(token: string, dealId: string, body: Buffer | string, query = 'title=Information%20memorandum', contentType = 'application/pdf') {
    const response = await t.app.inject({
      method: 'POST',
      url: `/deals/deal/${dealId}/documents?${query}`,
      payload: body,
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    });
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined, text: response.body };
  }

  async function open(token: string, dealId: string, documentId: string) {
    const response = await t.app.inject({
      method: 'GET',
      url: `/deals/deal/${dealId}/documents/${documentId}/content`,
      headers: { authorization: `Bearer ${token}` },
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      bytes: response.rawPayload,
      body: response.headers['content-type']?.toString().includes('json') ? response.json() : undefined,
    };
  }

  describe("a deal's documents", () => {
    let operator: string;
    const as = (token: string): Client => client(t.app, token);

    test('an operator uploads a PDF: stored once by its hash, streamed back byte for byte', async () => {
      operator = (await createToken(t.database.db, { name: 'operator key', role: 'operator' })).token;
      const deal = await createDeal(t.admin);
      const bytes = pdf('memorandum', 900 * 1024); // several chunks of 256 KiB
      const uploaded = await upload(operator, deal.dealId, bytes, 'title=Information%20memorandum&fileName=im-2026.pdf');
      assert.equal(uploaded.status, 201, uploaded.text);
      assert.deepEqual(
        { contentHash: uploaded.body.contentHash, size: uploaded.body.size, fileName: uploaded.body.fileName, title: uploaded.body.title },
        { contentHash: sha256(bytes), size: bytes.length, fileName: 'im-2026.pdf', title: 'Information memorandum' },
      );
      const again = await upload(operator, deal.dealId, bytes, 'title=Memorandum%20again');
      assert.equal(again.status, 201);
      assert.equal(again.body.contentHash, uploaded.body.contentHash);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from document_blobs where content_hash = ${sha256(bytes)}`.execute(t.database.db);
      assert.equal(rows[0]!.n, 1, 'the same bytes are stored once');

      const read = await open(t.adminToken, deal.dealId, uploaded.body.id);
      assert.equal(read.status, 200);
      assert.equal(read.headers['content-type'], 'application/pdf');
      assert.equal(read.headers.etag, `"${sha256(bytes)}"`);
      assert.match(String(read.headers['content-disposition']), /attachment; filename="im-2026.pdf"/);
      assert.ok(read.bytes.equals(bytes), 'the bytes come back as they went in');

      // A title in any script names the download, in UTF-8 beside an ASCII fallback (RFC 6266).
      const named = await upload(operator, deal.dealId, pdf('named'), `title=${encodeURIComponent('Mémorandum "€" 2026/27')}`);
      assert.equal(named.status, 201, named.text);
      assert.equal(named.body.fileName, 'Mémorandum _€_ 2026_27.pdf');
      const disposition = String((await open(t.adminToken, deal.dealId, named.body.id)).headers['content-disposition']);
      assert.equal(disposition, `attachment; filename="M_morandum ___ 2026_27.pdf"; filename*=UTF-8''M%C3%A9morandum%20_%E2%82%AC_%202026_27.pdf`);
    });

    test('bad uploads are refused and change nothing: not a PDF, empty, JSON, no title, an unknown deal, an investor', async () => {
      const deal = await createDeal(t.admin);
      const { id: investor } = await createInvestor(t.admin);
      const investorToken = await t.investorToken(investor);
      const before = await rowCounts(t);
      expectProblem(await upload(operator, deal.dealId, 'Hello, I am text'), 400);
      expectProblem(await upload(operator, deal.dealId, ''), 400);
      expectProblem(await upload(operator, deal.dealId, '{"title":"x"}', 'title=x', 'application/json'), 415);
      expectProblem(await upload(operator, deal.dealId, pdf('no title'), ''), 400);
      expectProblem(await upload(operator, deal.dealId, pdf('bad name'), 'title=x&fileName=..%2Fetc%2Fpasswd'), 400);
      expectProblem(await upload(operator, 'deal-nobody-has', pdf('nowhere')), 404);
      expectProblem(await upload(investorToken, deal.dealId, pdf('mine')), 403);
      const after = await rowCounts(t);
      assert.deepEqual({ ...after, document_chunks: 0 }, { ...before, document_chunks: 0 });
      assert.equal(after.document_chunks, before.document_chunks, 'a refused upload leaves no chunk behind');
    });

    test('released to a step: the investors who entered it list and open it; others get the 404 of an unknown document', async () => {
      const deal = await createDeal(t.admin);
      const [ada, bob, cleo] = [await createInvestor(t.admin), await createInvestor(t.admin), await createInvestor(t.admin)];
      await jump(t.admin, deal.dealId, ada.id, deal.step('commitment'), { committed_amount: '25000.00', currency: 'EUR' });
      await jump(t.admin, deal.dealId, bob.id, deal.step('interest'), {});
      await jump(t.admin, deal.dealId, cleo.id, deal.step('interest'), {});
      const im = (await upload(operator, deal.dealId, pdf('agreement'), 'title=Subscription%20agreement')).body;
      const letter = (await upload(operator, deal.dealId, pdf('letter for Cleo'), 'title=Side%20letter')).body;

      const tokens = { ada: await t.investorToken(ada.id), bob: await t.investorToken(bob.id), cleo: await t.investorToken(cleo.id) };
      assert.deepEqual((await as(tokens.ada).get(`/deals/deal/${deal.dealId}/documents`)).body, [], 'nothing is released yet');

      const released = await as(operator).post(`/deals/deal/${deal.dealId}/documents/${im.id}/releases`, { stepId: deal.step('commitment') });
      assert.equal(released.status, 201, released.text);
      assert.equal((await as(operator).post(`/deals/deal/${deal.dealId}/documents/${letter.id}/releases`, { investorUserId: cleo.id })).status, 201);

      const adaSees = (await as(tokens.ada).get(`/deals/deal/${deal.dealId}/documents`)).body;
      assert.deepEqual(
        adaSees.map((d: { title: string }) => d.title),
        ['Subscription agreement'],
      );
      assert.equal(adaSees[0].releases, undefined, 'an investor is not shown the releases');
      assert.equal((await open(tokens.ada, deal.dealId, im.id)).status, 200);

      // Bob has not entered the step: the document is unknown to him, exactly as a made-up id is.
      assert.deepEqual((await as(tokens.bob).get(`/deals/deal/${deal.dealId}/documents`)).body, []);
      const hidden = await open(tokens.bob, deal.dealId, im.id);
      const unknown = await open(tokens.bob, deal.dealId, '00000000-0000-4000-8000-000000000000');
      assert.deepEqual(
        [hidden.status, hidden.body.title, hidden.body.detail.replace(im.id, 'X')],
        [404, unknown.body.title, unknown.body.detail.replace('00000000-0000-4000-8000-000000000000', 'X')],
      );
      await jump(t.admin, deal.dealId, bob.id, deal.step('commitment'), { committed_amount: '10000.00', currency: 'EUR' });
      assert.equal((await open(tokens.bob, deal.dealId, im.id)).status, 200, 'entering the step releases it');

      // The side letter is Cleo's alone.
      assert.deepEqual(
        (await as(tokens.cleo).get(`/deals/deal/${deal.dealId}/documents`)).body.map((d: { title: string }) => d.title),
        ['Side letter'],
      );
      assert.equal((await open(tokens.ada, deal.dealId, letter.id)).status, 404);
      // A deal the investor has no journey in: 404 for the deal.
      const other = await createDeal(t.admin);
      expectProblem(await as(tokens.ada).get(`/deals/deal/${other.dealId}/documents`), 404);

      // Staff see the releases, the reads, and who read.
      const staffList = (await t.admin.get(`/deals/deal/${deal.dealId}/documents`)).body;
      const agreement = staffList.find((d: { id: string }) => d.id === im.id);
      assert.deepEqual(
        agreement.releases.map((r: { stepId: string }) => r.stepId),
        [deal.step('commitment')],
      );
      assert.equal(agreement.reads, 2);
      const reads = (await t.admin.get(`/deals/deal/${deal.dealId}/documents/${im.id}/reads`)).body;
      assert.deepEqual(
        reads.map((r: { reader: string; readerRole: string }) => [r.reader, r.readerRole]),
        [
          [ada.id, 'investor'],
          [bob.id, 'investor'],
        ],
      );
      expectProblem(await as(tokens.ada).get(`/deals/deal/${deal.dealId}/documents/${im.id}/reads`), 403);
      assert.equal((await verify(t.database.db, { dealId: deal.dealId })).code, 0, 'the audit chains verify');
    });

    test('releases that cannot be: neither or both targets, an unknown step or investor, the same release twice', async () => {
      const deal = await createDeal(t.admin);
      const { id: investor } = await createInvestor(t.admin);
      const doc = (await upload(operator, deal.dealId, pdf('terms'), 'title=Terms')).body;
      const release = (body: unknown) => as(operator).post(`/deals/deal/${deal.dealId}/documents/${doc.id}/releases`, body);
      assert.equal((await release({ stepId: deal.step('payment') })).status, 201);
      const before = await rowCounts(t);
      expectProblem(await release({}), 400);
      expectProblem(await release({ stepId: deal.step('payment'), investorUserId: investor }), 400);
      expectProblem(await release({ stepId: 'deal-other.payment' }), 404);
      expectProblem(await release({ investorUserId: 'inv-nobody-at-all' }), 404);
      expectProblem(await release({ stepId: deal.step('payment') }), 409);
      expectProblem(
        await as(operator).post(`/deals/deal/${deal.dealId}/documents/00000000-0000-4000-8000-000000000000/releases`, { investorUserId: investor }),
        404,
      );
      assert.deepEqual(await rowCounts(t), before);
    });
  });
});
