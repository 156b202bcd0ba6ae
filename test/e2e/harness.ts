// End-to-end harness: the real service (src/main.ts serve, as `npm start` runs it) on an in-memory
// PGlite with the demo deal, and Debian's Chromium driven by playwright-core. Chromium gets the
// flags that keep it off the network (this machine has none; without them it waits on connections).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { serve, type RunningService } from '../../src/main.ts';
import { onPostgres } from '../support/app.ts';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the end-to-end tests cannot run here, or false. */
export const skipE2e: string | false = onPostgres
  ? 'end-to-end tests run once, on PGlite (TEST_DATABASE_URL is set)'
  : !existsSync(chromiumPath)
    ? `no Chromium at ${chromiumPath} (apt-get install chromium, as .ci/run does)`
    : false;

export const screenshotDir = new URL('../../docs/screenshots/', import.meta.url).pathname;

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

export async function startE2e(options: { basePath?: string } = {}): Promise<E2e> {
  const printed: string[] = [];
  const userDataDir = mkdtempSync(join(tmpdir(), 'dealflow-chromium-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: 'warn', BASE_PATH: options.basePath ?? '' });
  const service = await serve(config, { demo: true, print: (line) => printed.push(line) });
  const adminToken = /dfk_[A-Za-z0-9_-]+/.exec(printed.join('\n'))?.[0];
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
    const response = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
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
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}
