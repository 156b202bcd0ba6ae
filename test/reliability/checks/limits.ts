// Check 7, limits: bodies over BODY_LIMIT are 413 on every route that takes one (with and without
// Content-Length); `limit` outside 1..100 is a 400 on every route that pages; past
// RATE_LIMIT_PER_MINUTE a token gets 429 with Retry-After; and slow clients (headers or body
// trickled a byte at a time, idle sockets) are cut off after REQUEST_TIMEOUT_MS while everyone
// else is served promptly.
import net from 'node:net';
import { createClient, isProblem, sleep } from '../support/http.ts';
import { loadOperations } from '../support/openapi.ts';
import { freshDatabase } from '../support/postgres.ts';
import { newResult, type CheckResult } from '../support/report.ts';
import { startInstance } from '../support/service.ts';
import { buildWorld, hintsOf } from '../support/world.ts';
import { investorOnly, requestOf } from './access-control.ts';

const BODY_LIMIT = 4096;
const REQUEST_TIMEOUT_MS = 2000;
const RATE_LIMIT = 20;
/** How long past REQUEST_TIMEOUT_MS a slow client may still hold its socket. */
const SLACK_MS = 1500;

/** Opens a socket and trickles `head` then `trickle` one byte every `everyMs`; resolves with how long the server kept it. */
function slowClient(port: number, head: string, trickle: string, everyMs: number, giveUpMs: number): Promise<{ heldMs: number; answer: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ heldMs: performance.now() - started, answer: answer.split('\r\n')[0] ?? '' });
    };
    const giveUp = setTimeout(done, giveUpMs);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', done);
    socket.on('error', () => {});
    socket.on('connect', () => {
      if (head) socket.write(head);
      timer = setInterval(() => {
        if (socket.destroyed) return;
        socket.write(trickle[i++ % trickle.length]!);
      }, everyMs);
    });
  });
}

export async function limits(): Promise<CheckResult> {
  const result = newResult('7 limits');
  const started = performance.now();
  const db = await freshDatabase('limits');
  try {
    const service = await startInstance({ databaseUrl: db.url, env: { BODY_LIMIT: String(BODY_LIMIT), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    const client = createClient(service.url);
    const admin = db.adminToken;
    const operations = await loadOperations(client);
    const world = await buildWorld(client, admin);
    const hints = hintsOf(world.a);
    // A route only investors call refuses staff before it reads a body: it is sent as the investor.
    const investor = (await db.newToken('investor', world.a.investorUserId)).token;

    // 413: a body over the limit, sent with a Content-Length and chunked.
    let tooLarge = 0;
    const big = JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT * 2) });
    for (const op of operations.filter((o) => o.body)) {
      const { method, path } = requestOf(op, hints);
      for (const chunked of [false, true]) {
        const response = await client.request({
          method,
          path,
          headers: {
            authorization: `Bearer ${investorOnly.has(op.key) ? investor : admin}`,
            'content-type': 'application/json',
            ...(chunked ? { 'transfer-encoding': 'chunked' } : {}),
          },
          body: big,
        });
        if (response.status !== 413 || !isProblem(response))
          result.failures.push(`${op.key} with ${chunked ? 'a chunked' : 'an'} oversized body: ${response.status} ${response.text.slice(0, 200)}`);
        else tooLarge++;
      }
    }

    // limit out of range, and page below 1.
    let outOfRange = 0;
    const paged = operations.filter((o) => o.queryParams.some((q) => q.name === 'limit'));
    for (const op of paged) {
      const { method, path, body } = requestOf(op, hints);
      const join = path.includes('?') ? '&' : '?';
      const pages = op.queryParams.some((q) => q.name === 'page') ? ['page=0', 'page=-1', 'page=1.5'] : [];
      for (const bad of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=1e3', 'limit=0x10', 'limit=99999999999999999999', ...pages]) {
        const response = await client.request({
          method,
          path: `${path}${join}${bad}`,
          headers: { authorization: `Bearer ${admin}` },
          ...(body !== undefined ? { body: body as object } : {}),
        });
        const field = bad.split('=')[0];
        if (response.status !== 400 || !isProblem(response) || !response.json.errors?.some((e: any) => e.field === field)) {
          result.failures.push(`${op.key} ?${bad}: ${response.status} ${response.text.slice(0, 200)}`);
        } else outOfRange++;
      }
    }

    // Slow clients: headers trickled, a body trickled, an idle socket; meanwhile others are served.
    const giveUp = REQUEST_TIMEOUT_MS * 10;
    const slow = [
      ...Array.from({ length: 40 }, () => slowClient(service.port, 'GET /whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaa\r\n', 200, giveUp)),
      ...Array.from({ length: 40 }, () =>
        slowClient(
          service.port,
          `PUT /deals/deal/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
          '{"name":"',
          200,
          giveUp,
        ),
      ),
      ...Array.from({ length: 20 }, () => slowClient(service.port, '', '', 1_000_000, giveUp)),
    ];
    await sleep(300);
    let slowestServed = 0;
    for (let i = 0; i < 10; i++) {
      const response = await client.get('/whoami', admin);
      slowestServed = Math.max(slowestServed, response.ms);
      if (response.status !== 200) result.failures.push(`a normal request beside slow clients got ${response.status}`);
      await sleep(100);
    }
    if (slowestServed > 1000) result.failures.push(`normal requests took up to ${Math.round(slowestServed)} ms beside slow clients`);
    const held = await Promise.all(slow);
    const longest = Math.max(...held.map((h) => h.heldMs));
    if (longest > REQUEST_TIMEOUT_MS + SLACK_MS) {
      result.failures.push(`a slow client held its connection for ${Math.round(longest)} ms (REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS})`);
    }
    client.close();
    await service.stop();

    // Rate limiting, on an instance of its own.
    const limited = await startInstance({ databaseUrl: db.url, env: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
    const lc = createClient(limited.url);
    let ok = 0;
    let throttled = 0;
    for (let i = 0; i < RATE_LIMIT + 5; i++) {
      const response = await lc.get('/whoami', admin);
      if (response.status === 200) ok++;
      else if (response.status === 429) {
        throttled++;
        const retryAfter = Number(response.headers['retry-after']);
        if (!(retryAfter > 0 && retryAfter <= 60)) result.failures.push(`429 with Retry-After ${response.headers['retry-after']}`);
        if (!isProblem(response)) result.failures.push('429 is not a problem document');
      } else result.failures.push(`rate limiting: ${response.status}`);
    }
    if (ok !== RATE_LIMIT || throttled !== 5) result.failures.push(`rate limit ${RATE_LIMIT}/min: ${ok} served, ${throttled} throttled`);
    const other = await lc.get('/whoami', (await db.newToken('admin')).token);
    if (other.status !== 200) result.failures.push(`another token was throttled too (${other.status})`);
    lc.close();
    await limited.stop();

    result.figures = {
      'oversized bodies 413': tooLarge,
      'out-of-range limit/page 400': outOfRange,
      'paged routes': paged.length,
      'slow clients': slow.length,
      'longest hold ms': Math.round(longest),
      'request timeout ms': REQUEST_TIMEOUT_MS,
      'normal request beside them ms': Math.round(slowestServed),
      'rate limit': `${ok} ok + ${throttled} × 429`,
    };
    return result;
  } finally {
    result.ms = performance.now() - started;
    await db.drop();
  }
}
