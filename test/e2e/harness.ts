// End-to-end harness: the real service (src/main.ts serve, as `npm start` runs it) on an in-memory
// PGlite, with the demo deal or without (`--no-demo`), and Debian's Chromium driven by playwright-core. Chromium gets the
// flags that keep it off the network (this machine has none; without them it waits on connections).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { serve, type RunningService } from '../../src/main.ts';
import { createToken } from '../../src/operations/tokens.ts';
import { openDatabase } from '../../src/store/database.ts';
import { onPostgres } from '../support/app.ts';
import { checkedFetch } from '../support/contract.ts';
import { investorBody } from '../support/fixtures.ts';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the end-to-end tests cannot run here, or false. In CI a missing browser fails, never skips. */
export const skipE2e: string | false = onPostgres
  ? 'end-to-end tests run once, on PGlite (TEST_DATABASE_URL is set)'
  : !existsSync(chromiumPath) && !process.env.CI
    ? `no Chromium at ${chromiumPath} (apt-get install chromium, as .ci/run does)`
    : false;

/**
 * A PostgreSQL server for the browser tests that run on both databases (the investor portal's):
 * with E2E_DATABASE_URL set they run there, each on a database of its own made for the run.
 */
export const e2eDatabaseUrl = process.env.E2E_DATABASE_URL || undefined;

// Tests write their screenshots to the ignored test-results/ folder, so `npm run test:e2e` leaves the checkout
// clean; `npm run screenshots` points SCREENSHOT_DIR at docs/screenshots/ to refresh the pictures of the README and docs/.
export const screenshotDir = process.env.SCREENSHOT_DIR
  ? resolve(process.env.SCREENSHOT_DIR)
  : new URL('../../test-results/screenshots/', import.meta.url).pathname;

export interface E2e {
  service: RunningService;
  /** The service's base URL (with BASE_PATH). */
  url: string;
  adminToken: string;
  printed: string[];
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Calls the API as the admin, JSON in and out. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/**
 * `demo: false` starts the service as `npm start -- --no-demo` does: no deal, only the first-run
 * admin token. `env` adds settings (a fixed PORT with the PUBLIC_URL that names it, for the portal).
 */
export async function startE2e(options: { basePath?: string; demo?: boolean; env?: Record<string, string>; databaseUrl?: string } = {}): Promise<E2e> {
  const printed: string[] = [];
  const userDataDir = mkdtempSync(join(tmpdir(), 'dealflow-chromium-'));
  const database = options.databaseUrl ? await freshDatabase(options.databaseUrl) : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'warn',
    BASE_PATH: options.basePath ?? '',
    ...options.env,
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  const service = await serve(config, { demo: options.demo ?? true, print: (line) => printed.push(line) });
  // The embedded database's first start prints the admin token; on PostgreSQL one is made as `dealflow token create` makes it.
  const adminToken = database ? await adminTokenOn(config) : /dfk_[A-Za-z0-9_-]+/.exec(printed.join('\n'))?.[0];
  if (!adminToken) throw new Error(`the service printed no admin token:\n${printed.join('\n')}`);
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
    timeout: 30_000,
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const url = service.url;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await checkedFetch(url, path, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: response.json };
  };
  return {
    service,
    url,
    adminToken,
    printed,
    browser,
    context,
    page,
    api,
    async close() {
      await browser.close().catch(() => {});
      await service.close();
      await database?.drop();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server of `serverUrl`, and how to drop it. */
async function freshDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `dealflow_e2e_${process.pid}_${Date.now()}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

async function adminTokenOn(config: ReturnType<typeof loadConfig>): Promise<string> {
  const database = await openDatabase(config);
  try {
    return (await createToken(database.db, { name: 'end-to-end admin', role: 'admin' })).token;
  } finally {
    await database.close();
  }
}

/**
 * Waits until `expression` (JavaScript of the page) is true. Evaluated through the DevTools
 * protocol, which the web apps' Content-Security-Policy allows; Playwright's waitForFunction with a
 * string would compile it inside the page, which the policy (no 'unsafe-eval') refuses.
 */
export async function waitForExpression(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A TCP port free on the loopback interface now (for a service whose public URL must name its port). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Where test screenshots go: test-results/ (ignored), whatever SCREENSHOT_DIR says. */
const testShots = new URL('../../test-results/screenshots/', import.meta.url).pathname;

/**
 * A screen's checks: axe-core finds nothing, and (on a phone) the page does not scroll sideways;
 * then a screenshot `<prefix>-<name>-<width>.png` in test-results/, or in SCREENSHOT_DIR when
 * `readme` says the README or docs/ show it.
 */
/**
 * An investor's browser: a context of this size whose page has a platform authenticator with user
 * verification (as a phone's or a laptop's), through the DevTools protocol's virtual WebAuthn.
 */
export async function investorBrowser(e: E2e, viewport: { width: number; height: number }, options: { acceptDownloads?: boolean } = {}) {
  const context = await e.browser.newContext({ viewport, deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

export async function checkScreen(page: Page, shot: { prefix: string; name: string; width: number; readme?: boolean }) {
  const { prefix, name, width } = shot;
  await page.waitForTimeout(250);
  // Every rule still runs; only the violations are worked up in full (axe-core's resultTypes), so it
  // does not build selectors for every passing node, most of an analysis's time on a large screen.
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  const found = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  assert.deepEqual(found, [], `axe-core on ${name} at ${width}px`);
  if (width < 500) {
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${width}px`);
  }
  const dir = process.env.SCREENSHOT_DIR && shot.readme ? screenshotDir : testShots;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${prefix}-${name}-${width}.png`) });
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/**
 * The deal the tests work on: the demo deal seeded on first start, or, on a build whose service
 * does not seed one yet, a small deal of the same shape built through the public API.
 */
export async function demoDealId(e: E2e): Promise<{ dealId: string; seeded: boolean }> {
  const deals = await e.api('GET', '/console/deals');
  const demo = deals.body.find((d: { investors: { total: number } }) => d.investors.total > 0);
  if (demo) return { dealId: demo.id, seeded: true };
  const dealId = 'e2e-harbour-series-b';
  const must = async (method: string, path: string, body?: unknown) => {
    const response = await e.api(method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  await must('PUT', `/deals/deal/${dealId}`, { name: 'Harbour Logistics Series B', currency: 'EUR' });
  const step = (id: string, label: string, extra: object = {}) => ({ id: `${dealId}:${id}`, label, type: 'default', stepFields: [], ...extra });
  await must('PUT', `/deals/deal/${dealId}/workflow`, {
    label: 'Series B subscription',
    description: 'Interest to completion',
    investorEngagementEnabled: true,
    steps: [
      step('interest', 'Interest'),
      step('commitment', 'Commitment', {
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency', label: 'Currency' },
        ],
      }),
      step('kyc', 'KYC', {
        stepFields: [{ fieldKey: 'kyc_provider', required: false, kind: 'choice', options: ['Onfido', 'Jumio'] }],
        requirements: [{ kind: 'kyc-level', minimumLevel: 2 }],
      }),
      step('documents', 'Documents', {
        stepFields: [{ fieldKey: 'signed_on', required: true, kind: 'date', label: 'Signed on' }],
        formId: 'subscription-agreement',
      }),
      step('payment', 'Payment', { stepFields: [{ fieldKey: 'paid_on', required: false, kind: 'date' }] }),
      step('complete', 'Complete', { type: 'complete' }),
      step('withdrawn', 'Withdrawn', { type: 'withdrawn' }),
    ],
    links: [
      ['interest', 'commitment'],
      ['commitment', 'kyc'],
      ['kyc', 'documents'],
      ['documents', 'payment'],
      ['payment', 'complete'],
      ['interest', 'withdrawn'],
      ['commitment', 'withdrawn'],
    ].map(([from, to]) => ({ fromStepId: `${dealId}:${from}`, toStepId: `${dealId}:${to}` })),
  });
  const people = [
    'Ada Lovelace',
    'Grace Hopper',
    'Alan Turing',
    'Edsger Dijkstra',
    'Barbara Liskov',
    'Donald Knuth',
    'Margaret Hamilton',
    'Ken Thompson',
    'Frances Allen',
    'John Backus',
    'Radia Perlman',
    'Leslie Lamport',
  ];
  const paths: [string, Record<string, string>][][] = [
    [['interest', {}]],
    [['commitment', { committed_amount: '50000.00', currency: 'EUR' }]],
    [['kyc', { committed_amount: '125000.00', currency: 'EUR', kyc_provider: 'Onfido' }]],
    [['documents', { committed_amount: '80000.00', currency: 'USD', signed_on: '2026-11-02' }]],
  ];
  for (const [n, name] of people.entries()) {
    const [forename, surname] = name.split(' ') as [string, string];
    const id = `${dealId}-investor-${n + 1}`;
    await must('PUT', `/investors/${id}`, investorBody({ forename, surname, dateOfBirth: null, classes: [] }));
    for (const [to, data] of paths[n % paths.length]!) {
      await must('POST', `/deals/deal/${dealId}/jump-to-step`, { investorUserId: id, targetStepId: `${dealId}:${to}`, data });
    }
  }
  return { dealId, seeded: false };
}

/** The admin's API call that must succeed; its body. */
async function must(e: E2e, method: string, path: string, body?: unknown) {
  const response = await e.api(method, path, body);
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/**
 * The portal's subscription deal: invited → commitment (amount, currency) → funds received →
 * complete, with withdrawal along the way, investors taking the commitment themselves, and payment
 * settings (the payee's bank details when given). Step ids are `<dealId>:<name>`.
 */
export async function subscriptionDeal(
  e: E2e,
  dealId: string,
  options: { series: string; signedOn?: boolean; withdrawnFromPayment?: boolean; payee?: { beneficiaryName: string; iban: string; bic: string } },
) {
  const step = (name: string) => `${dealId}:${name}`;
  await must(e, 'PUT', `/deals/deal/${dealId}`, { name: `Harbour Logistics Series ${options.series}`, currency: 'EUR' });
  await must(e, 'PUT', `/deals/deal/${dealId}/workflow`, {
    label: `Series ${options.series} subscription`,
    description: 'invited, commitment, funds received, complete',
    investorEngagementEnabled: true,
    steps: [
      { id: step('invited'), label: 'Invited', type: 'default', stepFields: [] },
      {
        id: step('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: 'Committed amount' },
          { fieldKey: 'currency', required: true, kind: 'currency', label: 'Currency' },
          ...(options.signedOn ? [{ fieldKey: 'signed_on', required: false, kind: 'date', label: 'Signed on' }] : []),
        ],
      },
      {
        id: step('payment'),
        label: 'Funds received',
        type: 'default',
        stepFields: [
          { fieldKey: 'amount_received', required: true, kind: 'amount' },
          { fieldKey: 'received_on', required: true, kind: 'date' },
        ],
      },
      { id: step('complete'), label: 'Complete', type: 'complete', stepFields: [] },
      { id: step('withdrawn'), label: 'Withdrawn', type: 'withdrawn', stepFields: [] },
    ],
    links: [
      { fromStepId: step('invited'), toStepId: step('commitment'), investorMay: true },
      { fromStepId: step('invited'), toStepId: step('withdrawn') },
      { fromStepId: step('commitment'), toStepId: step('payment') },
      { fromStepId: step('commitment'), toStepId: step('withdrawn') },
      { fromStepId: step('payment'), toStepId: step('complete') },
      ...(options.withdrawnFromPayment ? [{ fromStepId: step('payment'), toStepId: step('withdrawn') }] : []),
    ],
  });
  await must(e, 'PUT', `/deals/deal/${dealId}/payment-settings`, {
    paymentStepId: step('payment'),
    amountFieldKey: 'amount_received',
    dateFieldKey: 'received_on',
    commitmentFieldKey: 'committed_amount',
    currencyFieldKey: 'currency',
    assetId: null,
    pricePerUnit: null,
    unitDecimals: 0,
    ...options.payee,
  });
}
