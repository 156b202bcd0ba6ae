// Requests that Node's HTTP parser refuses before any route runs still get problem documents
// (the reliability suite found they got Fastify's own JSON body).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import { startApp } from '../support/app.ts';

/** Sends raw bytes; resolves with the raw answer once the server closes the connection. */
function raw(port: number, bytes: string): Promise<{ status: number; contentType: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    let answer = '';
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 5 s')), 5000);
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
        contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '',
        body: body ? JSON.parse(body) : undefined,
      });
    });
  });
}

describe('requests refused by the HTTP parser', () => {
  const t = startApp();
  let port: number;
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  test('headers over 16 KiB are a 431 problem document', async () => {
    const answer = await raw(port, `GET /whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'A'.repeat(20_000)}\r\n\r\n`);
    assert.equal(answer.status, 431);
    assert.equal(answer.contentType, 'application/problem+json');
    assert.equal(answer.body.type, 'urn:dealflow:problem:headers-too-large');
    assert.equal(answer.body.status, 431);
  });

  test('bytes that are not HTTP are a 400 problem document', async () => {
    const answer = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
    assert.equal(answer.status, 400);
    assert.equal(answer.contentType, 'application/problem+json');
    assert.equal(answer.body.type, 'urn:dealflow:problem:validation');
  });
});
