// Slow clients do not hold the service: a request that has not arrived whole within
// REQUEST_TIMEOUT_MS loses its connection, within about a second of that deadline (the reliability
// suite found that Node swept its connections only every 30 s, so a trickling client held a socket
// that long).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import { startApp } from '../support/app.ts';

const TIMEOUT_MS = 1000;

/** Trickles `head` then one byte of `trickle` every 100 ms; resolves with how long the socket lived. */
function trickle(port: number, head: string, bytes: string, giveUpMs: number): Promise<{ heldMs: number; firstLine: string; answer: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    let i = 0;
    const timer = setInterval(() => bytes !== '' && socket.writable && socket.write(bytes[i++ % bytes.length]!), 100);
    const done = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ heldMs: performance.now() - started, firstLine: answer.split('\r\n')[0] ?? '', answer });
    };
    const giveUp = setTimeout(done, giveUpMs);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', done);
    socket.on('error', () => {});
  });
}

describe('slow clients', () => {
  const t = startApp({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  let port: number;
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  test('headers trickled a byte at a time are cut off soon after REQUEST_TIMEOUT_MS', async () => {
    const { heldMs, firstLine, answer } = await trickle(port, 'GET /whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaa\r\n', 10_000);
    assert.ok(heldMs < TIMEOUT_MS + 1500, `held ${Math.round(heldMs)} ms`);
    assert.match(firstLine, /^(HTTP\/1\.1 408 .*)?$/, 'a 408, or the connection closed');
    if (firstLine) assert.match(answer, /urn:dealflow:problem:request-timeout/, 'the 408 is a problem document');
  });

  test('a body trickled a byte at a time is cut off too', async () => {
    const head = `PUT /deals/deal/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`;
    const { heldMs } = await trickle(port, head, '{"name":"', 10_000);
    assert.ok(heldMs < TIMEOUT_MS + 1500, `held ${Math.round(heldMs)} ms`);
  });

  test('a chunked upload that sends no body at all: a 408 problem document, then the connection closes', async () => {
    for (const path of ['/payments/statements', '/deals/deal/silent']) {
      const method = path.startsWith('/payments') ? 'POST' : 'PUT';
      const contentType = path.startsWith('/payments') ? 'application/xml' : 'application/json';
      const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\n`;
      // Nothing after the headers: no chunk, no idle trickle.
      const { heldMs, firstLine, answer } = await trickle(port, head, '', 10_000);
      assert.ok(heldMs < TIMEOUT_MS + 1500, `held ${Math.round(heldMs)} ms`);
      assert.match(firstLine, /^HTTP\/1\.1 408 /, `${path}: ${answer}`);
      assert.match(answer, /urn:dealflow:problem:request-timeout/);
    }
  });
});
