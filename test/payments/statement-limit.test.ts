// A 50 MB statement over a real socket (docs/reference/payments.md: the statement size limit). The service
// keeps the clear 413 of STATEMENT_BODY_LIMIT (32 MiB by default) rather than streaming: announced
// (Content-Length), the body is refused on the headers, before any byte of it is read; streamed
// chunked, it is refused once the bytes read pass the limit, and the rest is never read nor held.
// Nothing is stored, and the service still answers afterwards.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { client, startApp } from '../support/app.ts';
import { rowCounts } from '../support/row-counts.ts';

const MB = 1024 * 1024;
const TOTAL = 50 * MB;
const CHUNK = Buffer.alloc(256 * 1024, 0x20);
const HEAD = Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">');

describe('a 50 MB statement', () => {
  const t = startApp();
  let port: number;
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  /**
   * Sends 50 MB and resolves with the answer and how much was written before it came. Announced
   * (Content-Length), the body is held back until the service answers, which it does on the headers
   * alone. Chunked, the body is written until the service answers or closes the connection: it
   * closes it right after its 413 (it will not read the rest), so a write may fail before the answer
   * is read (EPIPE, ECONNRESET); that is recorded as `closed` with the bytes written until then.
   */
  const send = (announce: boolean) =>
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
        path: '/payments/statements',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/xml', ...(announce ? { 'content-length': String(TOTAL) } : {}) },
      });
      request.on('response', (response) => {
        const writtenBeforeAnswer = written;
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          settle({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), written: writtenBeforeAnswer }),
        );
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (!announce && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) settle({ closed: err.code, written });
        else if (!settled) reject(err);
      });
      const pump = () => {
        while (!settled && written < TOTAL) {
          const chunk = written === 0 ? Buffer.concat([HEAD, CHUNK.subarray(HEAD.length)]) : CHUNK;
          written += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        if (!settled) request.end();
      };
      if (announce) request.flushHeaders();
      else pump();
    });

  it('is refused with a clear 413 as soon as it passes the limit, chunked or announced, and nothing is stored', async () => {
    const before = await rowCounts(t);
    const limit = t.config.statementBodyLimit;
    assert.ok(limit < TOTAL, 'the default limit is below 50 MB');
    // Announced: refused on the headers, before a byte of the body.
    const announced = await send(true);
    assert.equal(announced.status, 413, JSON.stringify(announced.body));
    assert.equal(announced.body.status, 413);
    assert.match(announced.body.detail, /STATEMENT_BODY_LIMIT/);
    assert.equal(announced.written, 0);
    // Chunked: read up to the limit, then refused (or the connection closed under the writer). The
    // slack is what the sockets buffer on both sides; the service never read nor held 50 MB.
    const chunked = await send(false);
    if (chunked.status !== undefined) {
      assert.equal(chunked.status, 413, JSON.stringify(chunked.body));
      assert.match(chunked.body.detail, /STATEMENT_BODY_LIMIT/);
    }
    assert.ok(chunked.written < limit + 16 * MB, `chunked: ${chunked.written} bytes written before the answer (${chunked.closed ?? chunked.status})`);
    assert.deepEqual(await rowCounts(t), before);
    const lines = await client(t.app, t.adminToken).get('/payments/lines');
    assert.equal(lines.status, 200, 'the service still answers');
  });
});
