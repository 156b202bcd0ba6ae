// A client that closes its connection half-way through an upload is logged as what it is, a client
// abort (info), not as "database unavailable" (the stream's ECONNRESET was read as a network failure
// of the database), and the service answers the next request as before.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Api, buildApp } from '../../src/http/app.ts';
import { newUuid, systemClock } from '../../src/operations/deps.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openTestDatabase, type TestDatabase } from '../support/app.ts';

describe('client abort', () => {
  const logs: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });

  let database: TestDatabase;
  let app: Api;
  let token: string;
  let port: number;
  before(async () => {
    database = await openTestDatabase();
    const config = loadConfig({ LOG_LEVEL: 'info' });
    app = await buildApp({ db: database.db, config, clock: systemClock, newId: newUuid }, { logger: { level: 'info', stream: sink } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    token = (await createToken(database.db, { name: 'abort test', role: 'admin' })).token;
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  /** Sends the headers and part of the body, then resets the connection. */
  function abortUpload(path: string, contentType: string, announced: number, sent: string): Promise<void> {
    return new Promise((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.on('connect', () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${announced}\r\n\r\n${sent}`,
        );
        setTimeout(() => socket.resetAndDestroy(), 100);
      });
      socket.on('close', () => setTimeout(resolve, 200));
      socket.on('error', () => {});
    });
  }

  test('an upload aborted half-way is logged as a client abort at info, never as database unavailable', async () => {
    await abortUpload('/payments/statements', 'application/xml', 100_000, '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">');
    await abortUpload('/investors/portal-invitations', 'application/json', 10_000, '{"investorUserIds":["');
    const messages = logs.filter((l) => l.level >= 30).map((l) => l.msg);
    assert.ok(!messages.includes('database unavailable'), JSON.stringify(messages));
    const aborts = logs.filter((l) => l.msg === 'client aborted the request');
    assert.equal(aborts.length, 2, JSON.stringify(messages));
    assert.ok(
      aborts.every((l) => l.level === 30),
      'logged at info',
    );
    // The service answers as before.
    const response = await app.inject({ method: 'GET', url: '/whoami', headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.statusCode, 200);
  });
});
