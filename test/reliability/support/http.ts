// A small HTTP/1.1 client for the reliability suite: real sockets (keep-alive), raw bodies and
// headers exactly as given, and a hard deadline on every request so a hanging service is a
// recorded failure, never a hanging suite.
import http from 'node:http';
import { contract } from '../../support/contract.ts';

/**
 * Every answer is checked against the committed openapi.json (test/support/contract.ts), as the
 * normal suite's are; the differences are collected here and each check reports them as failures.
 */
const mismatches: string[] = [];
let mismatchCount = 0;

/** The contract differences seen since the last call (at most 20 quoted, with the total). */
export function takeContractMismatches(): string[] {
  const taken = mismatchCount > mismatches.length ? [...mismatches, `… ${mismatchCount} responses did not match openapi.json in all`] : [...mismatches];
  mismatches.length = 0;
  mismatchCount = 0;
  return taken;
}

function checkContract(sent: Sent, received: Omit<Received, 'ms'>) {
  if (received.status === 0) return;
  const errors = contract().check({ method: sent.method, url: sent.path, status: received.status, headers: received.headers, text: received.text });
  if (errors.length === 0) return;
  mismatchCount++;
  if (mismatches.length < 20) mismatches.push(errors.join('; ').slice(0, 1000));
}

export interface Sent {
  method: string;
  /** Path and query, already encoded (the suite sends hostile URLs on purpose). */
  path: string;
  headers?: Record<string, string>;
  /** A string or bytes sent as is; an object is sent as JSON. */
  body?: string | Buffer | object;
  /** Abort after this many milliseconds (default 15 000). */
  timeoutMs?: number;
}

export interface Received {
  /** 0 when no response arrived (refused, reset, or timed out: see `error`). */
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
  ms: number;
  error?: string;
}

export function createClient(baseUrl: string, options: { maxSockets?: number } = {}) {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '::1') {
    throw new Error(`the reliability suite talks to loopback addresses only, not ${url.hostname}`);
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const prefix = url.pathname.replace(/\/$/, '');

  const request = (sent: Sent): Promise<Received> =>
    new Promise((resolve) => {
      const started = performance.now();
      let body: string | Buffer | undefined;
      const headers: Record<string, string> = { ...sent.headers };
      if (sent.body !== undefined) {
        if (typeof sent.body === 'string' || Buffer.isBuffer(sent.body)) body = sent.body;
        else {
          body = JSON.stringify(sent.body);
          headers['content-type'] ??= 'application/json';
        }
      }
      // Node's client frames a GET or DELETE body with no length at all (the bytes would run into
      // the next request on the connection): say how long it is, unless sent chunked on purpose.
      if (body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(Buffer.byteLength(body));
      let settled = false;
      const finish = (result: Omit<Received, 'ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        checkContract(sent, result);
        resolve({ ...result, ms: performance.now() - started });
      };
      const req = http.request({ host: url.hostname, port: url.port, method: sent.method, path: prefix + sent.path, headers, agent }, (res) => {
        // An event stream that opened never ends on its own: its status and headers are the
        // answer, and the connection is closed rather than read for ever.
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream') && (res.statusCode ?? 0) < 300) {
          finish({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: undefined });
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => finish({ status: 0, headers: {}, text: '', json: undefined, error: err.message }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          finish({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      const timer = setTimeout(() => {
        req.destroy(new Error(`no response within ${sent.timeoutMs ?? 15_000} ms`));
      }, sent.timeoutMs ?? 15_000);
      req.on('error', (err) =>
        finish({ status: 0, headers: {}, text: '', json: undefined, error: `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`.trim() }),
      );
      if (body !== undefined) req.end(body);
      else req.end();
    });

  return {
    baseUrl,
    request,
    get: (path: string, token?: string, headers: Record<string, string> = {}) => request({ method: 'GET', path, headers: { ...bearer(token), ...headers } }),
    post: (path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
      request({ method: 'POST', path, body: body as object, headers: { ...bearer(token), ...headers } }),
    put: (path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
      request({ method: 'PUT', path, body: body as object, headers: { ...bearer(token), ...headers } }),
    close: () => agent.destroy(),
  };
}

export type Client = ReturnType<typeof createClient>;

export const bearer = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** True for an RFC 9457 problem document with this response's status. */
export function isProblem(response: Received): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return (
    type.startsWith('application/problem+json') &&
    typeof response.json === 'object' &&
    response.json !== null &&
    typeof response.json.type === 'string' &&
    response.json.status === response.status
  );
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
