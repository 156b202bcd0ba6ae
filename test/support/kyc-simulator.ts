// A KYC provider that follows docs/reference/kyc-provider-contract.md, as a real HTTP server
// (node:http): it verifies our signed start request, answers with its id for the check and a page
// for the investor, and after a delay posts the signed result to the callback URL, retrying an
// answer other than 2xx as the contract says (same webhook-id, signed afresh each attempt).
// Tests start it with startKycSimulator; for a demo it runs on its own:
//
//   KYC_WEBHOOK_SECRET=whsec_… node test/support/kyc-simulator.ts   (KYC_SIMULATOR_PORT, KYC_SIMULATOR_DELAY_MS)
//
// An investor whose full name contains "Refer" or "Fail" gets that outcome; everyone else is clear
// at the level asked for.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { signatureOf, verifySignedMessage } from '../../src/domain/signed-webhook.ts';

export interface SimulatedRequest {
  reference: string;
  level: number;
  investor: { id: string; fullName: string; email: string | null; dateOfBirth: string | null };
  dealId: string | null;
  callbackUrl: string;
}

export interface SimulatedResult {
  outcome: 'clear' | 'refer' | 'failed' | 'expired';
  level?: number | null;
}

export interface Delivery {
  reference: string;
  webhookId: string;
  attempt: number;
  status: number | 'unreachable';
  body: string;
}

export interface KycSimulatorOptions {
  secret: string;
  port?: number;
  delayMs?: number;
  /** Where results go instead of the request's callbackUrl (a test whose app listens on a port it chose later). */
  callbackUrl?: string;
  decide?: (request: SimulatedRequest) => SimulatedResult;
  /** Attempts after the first, each after 50 ms × 2^n. */
  retries?: number;
}

export interface KycSimulator {
  url: string;
  /** Where results go instead of each request's callbackUrl, when set (an app whose port is known only once it listens). */
  callbackUrl: string | undefined;
  requests: SimulatedRequest[];
  deliveries: Delivery[];
  /** Resolves with the delivery that was answered 2xx for this check (or the last attempt's). */
  settled(reference: string): Promise<Delivery>;
  /** Resolves once every check started so far has had its result delivered (or its last attempt). */
  idle(): Promise<void>;
  /** Sends a check's result again: by default the same message, signed afresh; or with another webhook-id, timestamp or result. */
  send(reference: string, options?: { webhookId?: string; timestampSeconds?: number; result?: SimulatedResult }): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

const defaultDecision = (request: SimulatedRequest): SimulatedResult =>
  /Refer/.test(request.investor.fullName)
    ? { outcome: 'refer' }
    : /Fail/.test(request.investor.fullName)
      ? { outcome: 'failed' }
      : { outcome: 'clear', level: request.level };

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request
      .on('data', (chunk: string) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject);
  });

export async function startKycSimulator(options: KycSimulatorOptions): Promise<KycSimulator> {
  const { secret, delayMs = 50, retries = 5, decide = defaultDecision } = options;
  const requests: SimulatedRequest[] = [];
  const deliveries: Delivery[] = [];
  const checks = new Map<string, { id: string; request: SimulatedRequest; webhookId: string; result: SimulatedResult }>();
  const waiting = new Map<string, { promise: Promise<Delivery>; resolve: (d: Delivery) => void }>();
  const waiterOf = (reference: string) => {
    let waiter = waiting.get(reference);
    if (!waiter) {
      let resolve!: (d: Delivery) => void;
      const promise = new Promise<Delivery>((r) => (resolve = r));
      waiter = { promise, resolve };
      waiting.set(reference, waiter);
    }
    return waiter;
  };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, work: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timers.add(timer);
  };

  const post = async (reference: string, webhookId: string, result: SimulatedResult, timestampSeconds?: number) => {
    const check = checks.get(reference)!;
    const body = JSON.stringify({
      type: 'kyc.check.decided',
      reference,
      checkId: check.id,
      outcome: result.outcome,
      level: result.outcome === 'clear' ? (result.level ?? check.request.level) : null,
      decidedAt: new Date().toISOString(),
    });
    const timestamp = timestampSeconds ?? Math.floor(Date.now() / 1000);
    const response = await fetch(simulator.callbackUrl ?? check.request.callbackUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureOf(secret, webhookId, timestamp, body),
      },
      body,
    });
    return { status: response.status, body: await response.text() };
  };

  const deliver = (reference: string, attempt: number) => {
    const check = checks.get(reference)!;
    post(reference, check.webhookId, check.result).then(
      ({ status, body }) => record(reference, attempt, status, body),
      () => record(reference, attempt, 'unreachable', ''),
    );
  };
  const record = (reference: string, attempt: number, status: number | 'unreachable', body: string) => {
    const delivery = { reference, webhookId: checks.get(reference)!.webhookId, attempt, status, body };
    deliveries.push(delivery);
    const done = typeof status === 'number' && status >= 200 && status < 300;
    if (done || attempt > retries) waiterOf(reference).resolve(delivery);
    else later(50 * 2 ** (attempt - 1), () => deliver(reference, attempt + 1));
  };

  const server = createServer(async (request, response) => {
    const answer = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (request.method === 'GET' && request.url?.startsWith('/verify/')) {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>KYC simulator</title><p>The simulator decides on its own.</p>');
      return;
    }
    if (request.method !== 'POST' || request.url !== '/checks') return answer(404, { error: 'no such route' });
    const body = await readBody(request);
    const header = (name: string) => (typeof request.headers[name] === 'string' ? (request.headers[name] as string) : undefined);
    const verdict = verifySignedMessage(
      secret,
      { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), body },
      Math.floor(Date.now() / 1000),
    );
    if (!verdict.ok) return answer(401, { error: verdict.detail });
    const started = JSON.parse(body) as SimulatedRequest;
    const known = checks.get(started.reference);
    if (known) return answer(200, { id: known.id, redirectUrl: `${simulator.url}/verify/${known.id}` });
    const id = `sim_${randomUUID()}`;
    requests.push(started);
    checks.set(started.reference, { id, request: started, webhookId: `msg_${randomUUID()}`, result: decide(started) });
    later(delayMs, () => deliver(started.reference, 1));
    answer(201, { id, redirectUrl: `${simulator.url}/verify/${id}` });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const simulator: KycSimulator = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    callbackUrl: options.callbackUrl,
    requests,
    deliveries,
    settled: (reference) => waiterOf(reference).promise,
    idle: async () => {
      await Promise.all([...checks.keys()].map((reference) => waiterOf(reference).promise));
    },
    send: (reference, opts = {}) =>
      post(reference, opts.webhookId ?? checks.get(reference)!.webhookId, opts.result ?? checks.get(reference)!.result, opts.timestampSeconds),
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return simulator;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.env.KYC_WEBHOOK_SECRET;
  if (!secret) {
    console.error('KYC_WEBHOOK_SECRET: the secret shared with dealflow (whsec_…) is needed');
    process.exit(1);
  }
  const simulator = await startKycSimulator({
    secret,
    port: Number(process.env.KYC_SIMULATOR_PORT ?? 4010),
    delayMs: Number(process.env.KYC_SIMULATOR_DELAY_MS ?? 2000),
  });
  console.log(`KYC simulator listening on ${simulator.url} (KYC_PROVIDER_URL=${simulator.url})`);
  process.on('SIGINT', () => void simulator.stop().then(() => process.exit(0)));
  process.on('SIGTERM', () => void simulator.stop().then(() => process.exit(0)));
}
