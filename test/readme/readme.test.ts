// The README runs as pasted: every ```sh block, in order, in one bash, against a service started as
// `npm start` starts it (a fresh data folder, a free port), stops at the first command that fails
// (the blocks use `curl -f` or test the status they expect). The Quickstart's block that sets $BASE
// and $TOKEN is replaced by the "Try it" lines the first start printed, so those are tested too. A
// block preceded by `<!-- readme-test: skip (why) -->` is not run. On PostgreSQL (TEST_DATABASE_URL)
// the service runs on a fresh database of that server, with a token made by `dealflow token create`.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { startCommand } from '../../scripts/start-command.ts';
import { tryLines } from '../../src/try-lines.ts';
import { testDatabaseUrl } from '../support/app.ts';

const root = new URL('../../', import.meta.url).pathname;
const cli = join(root, 'bin/dealflow.js');
/** `npm start`'s own command line (its flags, the built entry point, `serve`), as its prestart built it. */
const npmStart = startCommand();
const serve = [...npmStart.nodeFlags, join(root, npmStart.entry), ...npmStart.args];

export interface ShellBlock {
  /** Line of the opening fence in README.md (1-based). */
  line: number;
  code: string;
  marker?: 'skip' | 'replaced';
}

/** The ```sh (or bash, shell) blocks of a Markdown text, with the readme-test marker before each. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1]!) && l.trim() === fence[1]);
    const close = end === -1 ? lines.length : end;
    if (['sh', 'bash', 'shell'].includes(fence[2]!)) {
      let k = i - 1;
      while (k >= 0 && lines[k]!.trim() === '') k--;
      const marker = /^<!--\s*readme-test:\s*(skip|replaced)\b/.exec(lines[k] ?? '')?.[1] as ShellBlock['marker'];
      blocks.push({ line: i + 1, code: lines.slice(i + 1, close).join('\n'), ...(marker ? { marker } : {}) });
    }
    i = close;
  }
  return blocks;
}

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
  const stop = () => stopChild(child);
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

/** The same on a fresh PostgreSQL database, with a token made by the CLI (nothing is made at start there). */
async function startOnPostgres(serverUrl: string): Promise<Started> {
  const name = `dealflow_readme_${Date.now()}_${process.pid}`;
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
    const created = await promisify(execFile)(process.execPath, [cli, 'token', 'create', '--role', 'admin', '--name', 'readme'], { env });
    const token = /dfk_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] ?? assert.fail(`no token in: ${created.stdout}`);
    child = spawn(process.execPath, serve, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = lineReader(child);
    const base = await waitFor('the listening log line', () => {
      for (const line of out.lines) {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(line);
        if (match && line.includes('dealflow listening')) return match[1];
      }
      return undefined;
    }, child, out.stderr);
    const started = child;
    return { setup: tryLines(base!, token, false).slice(1).join('\n'), stop: async () => { await stopChild(started); await drop(); } };
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

/** One bash script: the blocks in order, each announcing its README line, stopping at the first failure. */
export function scriptOf(blocks: ShellBlock[], setup: string): string {
  const parts = ['set -eo pipefail', `trap 'echo "README test: a command failed in the block at README.md:$README_LINE" >&2' ERR`];
  for (const block of blocks) {
    if (block.marker === 'skip') continue;
    parts.push(`README_LINE=${block.line}`, `echo "== README.md:${block.line}" >&2`, block.marker === 'replaced' ? setup : block.code);
  }
  return `${parts.join('\n')}\n`;
}

describe('the README runs as pasted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-readme-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the markers are where the convention puts them', () => {
    const blocks = shellBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
    assert.equal(blocks.filter((b) => b.marker === 'replaced').length, 1, 'one block sets $BASE and $TOKEN: the "Try it" lines');
    const first = blocks.findIndex((b) => b.marker !== 'skip');
    assert.equal(blocks[first]?.marker, 'replaced', 'it is the first block that runs');
  });

  test(`every shell block, in order, against a fresh service (${testDatabaseUrl ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const blocks = shellBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
    const started = testDatabaseUrl ? await startOnPostgres(testDatabaseUrl) : await startOnPglite(dir);
    try {
      const script = join(dir, 'readme.sh');
      writeFileSync(script, scriptOf(blocks, started.setup));
      // As a reader runs them: in the checkout (so `npx dealflow` is this project's), with
      // node_modules/.bin first on the PATH as in every npm script (Node 24 for the CLI).
      const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
      delete env.BASE;
      delete env.TOKEN;
      delete env.DATABASE_URL;
      // The blocks write nothing into the checkout (the convention below): what git sees is the same after.
      const gitStatus = async () => (await promisify(execFile)('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root })).stdout;
      const before = await gitStatus();
      const result = await promisify(execFile)('bash', [script], { cwd: root, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }).catch(
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
      if ('code' in result && result.code) {
        assert.fail(`the README's shell blocks failed (exit ${result.code}):\n${result.stderr.slice(-4000)}\n--- stdout (end) ---\n${result.stdout.slice(-4000)}`);
      }
      const ran = blocks.filter((b) => b.marker !== 'skip').length;
      assert.equal(result.stderr.split('\n').filter((l) => l.startsWith('== README.md:')).length, ran, 'every block ran');
      assert.equal(await gitStatus(), before, 'the README\'s blocks left files in the checkout (a body goes in a variable)');
    } finally {
      await started.stop();
    }
  });
});
