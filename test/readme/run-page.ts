// Runs a Markdown page's shell blocks as pasted: in order, in one bash, against a service of its own
// started as `npm start` starts it (a fresh data folder, a free port), stopping at the first command
// that fails (the blocks use `curl -f` or test the status they expect). $BASE and $TOKEN come from
// the "Try it" lines the first start printed: the README's Quickstart block marked
// `<!-- readme-test: replaced … -->` is replaced by them, and a docs page gets them before its
// first block (a page may show its own replaced block too). A block preceded by
// `<!-- readme-test: skip (why) -->` is not run. On PostgreSQL (TEST_DATABASE_URL) each page's
// service runs on a fresh database of that server, with the demo deal seeded and a token made by
// the CLI. Used by readme.test.ts (the README, in `npm test`) and doc-pages.docs.ts (every page
// under docs/, `npm run test:docs`).
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startCommand } from '../../scripts/start-command.ts';
import { tryLines } from '../../src/try-lines.ts';
import { testDatabaseUrl } from '../support/app.ts';
import type { ShellBlock } from './pages.ts';

const root = new URL('../../', import.meta.url).pathname;
const cli = join(root, 'bin/dealflow.js');
/** `npm start`'s own command line (its flags, the built entry point, `serve`), as its prestart built it. */
const npmStart = startCommand();
const serve = [...npmStart.nodeFlags, join(root, npmStart.entry), ...npmStart.args];

/** Stdout lines of a child, as they arrive. */
function lineReader(child: ChildProcess) {
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { lines, stderr: () => stderr };
}

async function waitFor<T>(what: string, probe: () => T | undefined, child: ChildProcess, stderr: () => string, ms = 180_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before ${what}: ${stderr()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Started {
  setup: string;
  stop(): Promise<void>;
}

/** `npm start` on a fresh PGlite folder: the setup is the "Try it" lines it printed. */
async function startOnPglite(dir: string): Promise<Started> {
  const child = spawn(process.execPath, serve, {
    cwd: dir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = lineReader(child);
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const setup = await waitFor(
      'the "Try it" lines',
      () => {
        const at = out.lines.findIndex((l) => l.startsWith('Try it'));
        const printed = at === -1 ? [] : out.lines.slice(at + 1).filter((l) => l.startsWith('  '));
        // The demo deal is seeded on this first start, so its line comes too.
        return printed.length >= 3 ? printed.join('\n') : undefined;
      },
      child,
      out.stderr,
    );
    assert.match(setup, /export BASE='http:\/\/127\.0\.0\.1:\d+' TOKEN='dfk_[A-Za-z0-9_-]+'/, 'the Try lines carry the real token');
    return { setup, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The same on a fresh PostgreSQL database, with the demo deal and a token made by the CLI (nothing is made at start there). */
async function startOnPostgres(serverUrl: string, label: string): Promise<Started> {
  const name = `dealflow_doc_${label.replace(/\W+/g, '_').slice(-24)}_${Date.now()}_${process.pid}`.toLowerCase();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const env = { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' };
  const drop = async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${name} with (force)`);
    await cleanup.end();
  };
  let child: ChildProcess | undefined;
  try {
    await promisify(execFile)(process.execPath, [cli, 'migrate'], { env });
    await promisify(execFile)(process.execPath, [cli, 'seed', '--demo'], { env });
    const created = await promisify(execFile)(process.execPath, [cli, 'token', 'create', '--role', 'admin', '--name', 'docs'], { env });
    const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] ?? assert.fail(`no token in: ${created.stdout}`);
    child = spawn(process.execPath, serve, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = lineReader(child);
    const base = await waitFor(
      'the listening log line',
      () => {
        for (const line of out.lines) {
          const match = /"url":"(http:\/\/[^"]+)"/.exec(line);
          if (match && line.includes('dealflow listening')) return match[1];
        }
        return undefined;
      },
      child,
      out.stderr,
    );
    const started = child;
    return {
      setup: tryLines(base!, token, true).slice(1).join('\n'),
      stop: async () => {
        await stopChild(started);
        await drop();
      },
    };
  } catch (err) {
    if (child) await stopChild(child);
    await drop();
    throw err;
  }
}

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * One bash script: the setup (unless the page has a replaced block, which becomes the setup), then
 * the blocks in order, each announcing its page and line, stopping at the first failure.
 */
export function scriptOf(blocks: ShellBlock[], setup: string, page = 'README.md'): string {
  const parts = ['set -eo pipefail', `trap 'echo "doc test: a command failed in the block at ${page}:$DOC_LINE" >&2' ERR`];
  if (!blocks.some((b) => b.marker === 'replaced')) parts.push('DOC_LINE=setup', setup);
  for (const block of blocks) {
    if (block.marker === 'skip') continue;
    parts.push(`DOC_LINE=${block.line}`, `echo "== ${page}:${block.line}" >&2`, block.marker === 'replaced' ? setup : block.code);
  }
  return `${parts.join('\n')}\n`;
}

export const gitStatus = async () => (await promisify(execFile)('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root })).stdout;

/** Run a page's shell blocks against a fresh service; fails naming the block that failed. */
export async function runPage(page: string, blocks: ShellBlock[]) {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-doc-'));
  const started = testDatabaseUrl ? await startOnPostgres(testDatabaseUrl, page) : await startOnPglite(dir);
  try {
    const script = join(dir, 'page.sh');
    writeFileSync(script, scriptOf(blocks, started.setup, page));
    // As a reader runs them: in the checkout (so `npx dealflow` is this project's), with
    // node_modules/.bin first on the PATH as in every npm script (Node 24 for the CLI).
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
    delete env.BASE;
    delete env.TOKEN;
    delete env.DATABASE_URL;
    delete env.DATA_DIR;
    const result = await promisify(execFile)('bash', [script], { cwd: root, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }).catch(
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    if ('code' in result && result.code) {
      assert.fail(
        `${page}: the shell blocks failed (exit ${result.code}):\n${result.stderr.slice(-4000)}\n--- stdout (end) ---\n${result.stdout.slice(-4000)}`,
      );
    }
    const ran = blocks.filter((b) => b.marker !== 'skip').length;
    assert.equal(result.stderr.split('\n').filter((l) => l.startsWith(`== ${page}:`)).length, ran, `${page}: every block ran`);
  } finally {
    await started.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
