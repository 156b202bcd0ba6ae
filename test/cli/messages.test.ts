// The dealflow command speaks to people: an expected failure is one line saying what went wrong and
// one hint, exit code 1, no stack trace (it appears with --verbose or LOG_LEVEL=debug). Spawned as
// the real process.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';

const STACK = /^\s+at /m;

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['bin/dealflow.js', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });

function assertOneLineAndHint(result: ReturnType<typeof run>, message: RegExp) {
  assert.equal(result.status, 1, `${result.stdout}\n${result.stderr}`);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 2, result.stderr);
  assert.match(lines[0]!, message);
  assert.match(lines[1]!, /^hint: /);
  assert.doesNotMatch(result.stderr, STACK);
}

describe('CLI failures are one line and a hint', () => {
  // Nothing listens on port 1: the connection is refused. Needs no database of ours: both runs.
  const unreachable = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', DATABASE_TIMEOUT_MS: '500' };

  test('database unreachable: one line and a hint; the stack only with --verbose or LOG_LEVEL=debug', () => {
    assertOneLineAndHint(run(['token', 'list'], unreachable), /cannot reach the database/);
    assertOneLineAndHint(run(['migrate'], unreachable), /cannot reach the database/);
    const verbose = run(['token', 'list', '--verbose'], unreachable);
    assert.equal(verbose.status, 1);
    assert.match(verbose.stderr, STACK);
    assert.match(run(['token', 'list'], { ...unreachable, LOG_LEVEL: 'debug' }).stderr, STACK);
  });

  test('bad arguments and bad configuration: one line and a hint', () => {
    assertOneLineAndHint(run(['token', 'create', '--bogus'], unreachable), /Unknown option '--bogus'/);
    assertOneLineAndHint(run(['seed', '--investors', 'many'], unreachable), /--investors must be a whole number/);
    assertOneLineAndHint(run(['token', 'create', '--role', 'owner'], unreachable), /--role must be viewer, operator, approver, admin or investor/);
    assertOneLineAndHint(run(['nonsense']), /unknown command "nonsense"/);
    assertOneLineAndHint(run(['migrate'], { PORT: 'eighty' }), /invalid configuration: PORT/);
  });
});

// The rest opens an embedded database folder; on a PostgreSQL run the CLI would use the shared
// server's default schema, so they run on the embedded database only.
describe('CLI on the embedded database', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-cli-messages-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };

  test('unknown token id: one line and a hint to list the tokens', () => {
    assertOneLineAndHint(run(['token', 'revoke', '00000000-0000-4000-8000-000000000000'], env), /no live token/);
    assert.match(run(['token', 'revoke', 'nope'], env).stderr, /hint: "dealflow token list"/);
  });

  test('token create --investor refuses an id not in the directory unless --allow-unknown; list names the investor once', () => {
    assertOneLineAndHint(run(['token', 'create', '--role', 'investor', '--investor', 'ghost-1'], env), /no investor "ghost-1" in the directory/);
    assert.doesNotMatch(run(['token', 'list'], env).stdout, /ghost-1/, 'nothing was created');
    const allowed = run(['token', 'create', '--role', 'investor', '--investor', 'ghost-1', '--allow-unknown'], env);
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(run(['seed', '--demo'], env).status, 0);
    const known = run(['token', 'create', '--role', 'investor', '--investor', 'demo-investor-001'], env);
    assert.equal(known.status, 0, known.stderr);
    const named = run(['token', 'create', '--role', 'investor', '--investor', 'demo-investor-002', '--name', 'Portal of D2'], env);
    assert.equal(named.status, 0, named.stderr);
    const list = run(['token', 'list'], env).stdout;
    for (const id of ['ghost-1', 'demo-investor-001', 'demo-investor-002']) {
      const line = list.split('\n').find((l) => l.includes(id))!;
      assert.equal(line.split(id).length - 1, 1, `"${id}" once: ${line}`);
    }
    assert.match(list, /Portal of D2 \(investor demo-investor-002\)/);
  });

  test('data folder in use by a running service: one line and a hint', async () => {
    const service = spawn(process.execPath, ['bin/dealflow.js', 'serve', '--no-demo'], {
      env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`the service did not start: ${output}`)), 60_000);
        service.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('dealflow listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
        service.once('exit', () => reject(new Error(`the service exited: ${output}`)));
      });
      assertOneLineAndHint(run(['seed', '--demo'], env), /in use by process \d+/);
    } finally {
      service.kill('SIGTERM');
      await new Promise((resolve) => (service.exitCode !== null ? resolve(undefined) : service.once('exit', resolve)));
    }
  });

  test('the worker and the service write the same log format', async () => {
    const firstLine = async (args: string[], marker: string) => {
      const child = spawn(process.execPath, ['bin/dealflow.js', ...args], {
        env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        return await new Promise<Record<string, unknown>>((resolve, reject) => {
          let output = '';
          const timer = setTimeout(() => reject(new Error(`no "${marker}" line: ${output}`)), 60_000);
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            const line = output.split('\n').find((l) => l.includes(marker));
            if (line) {
              clearTimeout(timer);
              resolve(JSON.parse(line));
            }
          });
        });
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      }
    };
    const service = await firstLine(['serve', '--no-demo'], 'dealflow listening');
    const worker = await firstLine(['worker'], 'dealflow worker');
    for (const line of [service, worker]) {
      assert.equal(typeof line.level, 'number');
      assert.equal(typeof line.time, 'number');
      assert.equal(typeof line.pid, 'number');
      assert.equal(typeof line.msg, 'string');
    }
    assert.equal(worker.component, 'webhooks');
  });
});
