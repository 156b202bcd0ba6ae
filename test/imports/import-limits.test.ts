// What an import file may hold (docs/reference/imports.md): a line or CSV record of at most 1 MiB,
// UTF-8 only. A line that never ends is refused once it passes the limit (413 naming the row),
// the connection is closed, the process lives with its memory flat, and nothing is stored; bytes
// that are not UTF-8 (investor files, CSV and camt statements) are a 400 naming the line.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { before, describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';
import { createDeal } from '../support/deals.ts';
import { rowCounts } from '../support/row-counts.ts';

const MB = 1024 * 1024;
const HEADER =
  'id,remoteId,dataSource,teamUserId,kycCheckLevel,guid,externalId,userType,status,contact.title,contact.forename,contact.middleNames,contact.surname,contact.nickname,contact.dateOfBirth,contact.email,username,profilePhotoFileKey,name,fullName,tfaEnabled,compliance,classifications';
const csvLine = (id: string) =>
  `${id},crm-${id},crm,,2,guid-${id},,1,active,Dr,Grace,,Hopper,,1906-12-09,${id}@example.com,${id},,Grace Hopper,Grace Hopper,true,approved,[]`;

describe('import limits', () => {
  const t = startApp();
  let port: number;
  let dealId: string;
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    dealId = (await createDeal(client(t.app, t.adminToken))).dealId;
  });

  const inject = (url: string, type: string, payload: string | Buffer | Readable) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type }, payload }).then((r) => ({
      status: r.statusCode,
      headers: r.headers,
      body: JSON.parse(r.body),
      text: r.body,
    }));

  /** A body of `head` then `fill` bytes without a line break, `total` bytes in all, made as it is read. */
  const endless = (head: string, total: number) =>
    Readable.from(
      (function* () {
        yield Buffer.from(head);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        for (let sent = head.length; sent < total; sent += chunk.length) yield chunk;
      })(),
    );

  /**
   * Sends `head` then `total` bytes of one endless line over a real socket, chunked, until the
   * service answers or closes the connection (it closes it right after its 413 and reads no more,
   * so a write may fail before the answer is read: recorded as `closed`, with the bytes written).
   */
  const sendEndless = (path: string, type: string, head: string, total: number) =>
    new Promise<{ status?: number; body?: any; closed?: string; written: number }>((resolve, reject) => {
      let written = 0;
      let settled = false;
      const settle = (value: { status?: number; body?: any; closed?: string; written: number }) => {
        if (settled) return;
        settled = true;
        request.destroy();
        resolve(value);
      };
      const request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        const at = written;
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => settle({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), written: at }));
        response.on('error', () => settle({ closed: 'response cut', written: at }));
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE' || err.code === 'ECONNRESET') settle({ closed: err.code, written });
        else if (!settled) reject(err);
      });
      const chunk = Buffer.alloc(256 * 1024, 0x61);
      const pump = () => {
        while (!settled && written < total) {
          const next = written === 0 ? Buffer.concat([Buffer.from(head), chunk]) : chunk;
          written += next.length;
          if (!request.write(next)) return void request.once('drain', pump);
        }
        if (!settled) request.end();
      };
      pump();
    });

  test('an NDJSON line or a CSV record longer than 1 MiB is a 413 naming the row; nothing is stored', async () => {
    const before = await rowCounts(t);
    const first = JSON.stringify({ id: 'limit-ok', remoteId: 'r', dataSource: 'crm' });
    const ndjson = await inject('/investors/import', 'application/x-ndjson', endless(`${first}\n{"id":"`, 3 * MB));
    expectProblem(ndjson, 413);
    assert.equal(ndjson.body.row, 2);
    assert.equal(ndjson.body.line, 2);
    assert.equal(ndjson.body.limit, MB);
    assert.match(ndjson.body.detail, /Data row 2 \(line 2\) is longer than 1048576 bytes/);
    assert.equal(ndjson.headers.connection, 'close');

    // An unterminated quote: the record goes on over line breaks.
    const quoted = await inject('/investors/import', 'text/csv', endless(`${HEADER}\r\n${csvLine('limit-a')}\r\n"limit-b,\r\n\r\nx`, 3 * MB));
    expectProblem(quoted, 413);
    assert.equal(quoted.body.row, 2);
    assert.equal(quoted.body.errors[0].field, 'row 2');

    const moves = await inject(`/deals/deal/${dealId}/jump-to-step/import`, 'text/csv', endless('investorUserId,targetStepId\ni-1,', 3 * MB));
    expectProblem(moves, 413);
    assert.equal(moves.body.row, 1);

    const statement = await inject('/payments/statements', 'text/csv', endless('date,amount,currency,reference\n2026-01-02,10.00,EUR,"', 3 * MB));
    expectProblem(statement, 413);
    assert.equal(statement.body.row, 1);
    // The rows before the long one were not stored either: the file is refused before any row is handled.
    assert.deepEqual(await rowCounts(t), before);
  });

  test('a line that never ends: the connection is closed after the limit, the memory stays flat, the next request works', async () => {
    const before = await rowCounts(t);
    const total = 96 * MB;
    const heapBefore = process.memoryUsage().heapUsed;
    for (const [path, type, head] of [
      ['/investors/import', 'application/x-ndjson', '{"id":"'],
      ['/investors/import', 'text/csv', `${HEADER}\n"`],
      [`/deals/deal/${dealId}/jump-to-step/import`, 'text/csv', 'investorUserId,targetStepId\n"'],
    ] as const) {
      const sent = await sendEndless(path, type, head, total);
      if (sent.status !== undefined) {
        assert.equal(sent.status, 413, JSON.stringify(sent.body));
        assert.match(sent.body.detail, /longer than 1048576 bytes/);
      } else assert.ok(sent.closed, 'the connection was closed');
      // Refused soon after the limit: the socket buffers, not the body, bound what was written.
      assert.ok(sent.written < 32 * MB, `${sent.written} bytes were written before the refusal`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);
    }
    const grown = process.memoryUsage().heapUsed - heapBefore;
    assert.ok(grown < 48 * MB, `the heap grew by ${(grown / MB).toFixed(1)} MiB`);
    assert.deepEqual(await rowCounts(t), before);
  });

  test('bytes that are not UTF-8 are a 400 naming the line, in investor files and statements; nothing is stored', async () => {
    const before = await rowCounts(t);
    const bad = Buffer.from([0xc3, 0x28]); // a lead byte without its continuation
    const lines = (...parts: (string | Buffer)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

    const csv = await inject('/investors/import', 'text/csv', lines(`${HEADER}\n${csvLine('utf-a')}\n`, csvLine('utf-b').replace('Grace', 'Gr'), bad, '\n'));
    expectProblem(csv, 400);
    assert.equal(csv.body.line, 3);
    assert.match(csv.body.detail, /not valid UTF-8 at line 3/);
    assert.deepEqual(csv.body.errors, [{ in: 'body', field: 'line 3', detail: 'is not valid UTF-8' }]);

    const ndjson = await inject('/investors/import', 'application/x-ndjson', lines('{"id":"utf-c"}\n{"id":"', Buffer.from([0xed, 0xa0, 0x80]), '"}\n'));
    expectProblem(ndjson, 400);
    assert.equal(ndjson.body.line, 2);

    const truncated = await inject('/investors/import', 'text/csv', lines(`${HEADER}\n${csvLine('utf-d')}`, Buffer.from([0xe2, 0x82])));
    expectProblem(truncated, 400);
    assert.equal(truncated.body.line, 2);

    const statementCsv = await inject(
      '/payments/statements',
      'text/csv',
      lines('date,amount,currency,reference\n2026-01-02,10.00,EUR,Paym', Buffer.from([0xff]), 'nt\n'),
    );
    expectProblem(statementCsv, 400);
    assert.equal(statementCsv.body.line, 2);

    const camt = lines(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">\n<BkToCstmrStmt><GrpHdr><MsgId>M',
      Buffer.from([0xc0, 0xaf]), // an overlong encoding of "/"
      '</MsgId></GrpHdr></BkToCstmrStmt></Document>\n',
    );
    const xml = await inject('/payments/statements', 'application/xml', camt);
    expectProblem(xml, 400);
    assert.equal(xml.body.line, 3);
    assert.deepEqual(await rowCounts(t), before);

    // Valid UTF-8 of every length still reads: é (2 bytes), € (3), 𝄞 (4).
    const fine = await inject(
      '/investors/import',
      'text/csv',
      `${HEADER}\n${csvLine('utf-e').replace('Grace,,Hopper', 'Gr\u00e9ce \u20ac \u{1d11e},,Hopper')}\n`,
    );
    assert.equal(fine.status, 200, fine.text);
    assert.equal(fine.body.rows[0].outcome, 'created', fine.text);
  });
});
