// A 50 MB statement over a real socket (README, "Payments": the statement size limit). The service
// keeps the clear 413 of STATEMENT_BODY_LIMIT (32 MiB by default) rather than streaming: it answers
// as soon as the limit is passed, without reading (or holding) the rest of the body, whether the
// client announces the size (Content-Length, refused before any byte is read) or streams it
// chunked. Nothing is stored, and the service still answers afterwards.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { client, type TestApp } from '../support/app.ts';
import { rowCounts } from '../bulk/support.ts';
import { start } from './setup.ts';

const MB = 1024 * 1024;
const TOTAL = 50 * MB;
const CHUNK = Buffer.alloc(256 * 1024, 0x20);
const HEAD = Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">');

describe('a 50 MB statement', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    ({ t } = await start());
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(async () => t.close());

  /** Sends 50 MB (announced or chunked) and resolves with the answer and how much was written before it came. */
  const send = (announce: boolean) =>
    new Promise<{ status: number; body: any; writtenBeforeAnswer: number }>((resolve, reject) => {
      let written = 0;
      let answered = false;
      const request = http.request({
        host: '127.0.0.1', port, method: 'POST', path: '/payments/statements',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/xml', ...(announce ? { 'content-length': String(TOTAL) } : {}) },
      });
      request.on('response', (response) => {
        answered = true;
        const writtenBeforeAnswer = written;
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), writtenBeforeAnswer });
        });
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        // The service closes the connection once it has answered; writes after that may fail.
        if (!answered) reject(err);
      });
      const pump = () => {
        while (!answered && written < TOTAL) {
          const chunk = written === 0 ? Buffer.concat([HEAD, CHUNK.subarray(HEAD.length)]) : CHUNK;
          written += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        if (!answered) request.end();
      };
      pump();
    });

  it('is refused with a clear 413 as soon as it passes the limit, chunked or announced, and nothing is stored', async () => {
    const before = await rowCounts(t);
    const limit = t.config.statementBodyLimit;
    assert.ok(limit < TOTAL, 'the default limit is below 50 MB');
    for (const announce of [true, false]) {
      const { status, body, writtenBeforeAnswer } = await send(announce);
      assert.equal(status, 413, JSON.stringify(body));
      assert.equal(body.status, 413);
      assert.match(body.detail, /STATEMENT_BODY_LIMIT/);
      // Answered before the client could send the rest: the service never read (nor held) 50 MB.
      // Chunked, it reads up to the limit; the slack is what the sockets buffer on both sides.
      assert.ok(writtenBeforeAnswer < (announce ? 16 * MB : limit + 16 * MB), `${announce ? 'announced' : 'chunked'}: ${writtenBeforeAnswer} bytes written before the answer`);
    }
    assert.deepEqual(await rowCounts(t), before);
    const lines = await client(t.app, t.adminToken).get('/payments/lines');
    assert.equal(lines.status, 200, 'the service still answers');
  });
});
