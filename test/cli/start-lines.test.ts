// What a start prints before its JSON log: every start, first or later, says in plain lines where
// the console, the API docs and the health check are; the first also prints the admin token
// once, with the Try-it lines. The real process (`dealflow serve`) on a fresh embedded folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { onPostgres } from '../support/app.ts';

/** The service's stdout lines up to and including its "dealflow listening" log line. */
async function startAndStop(dataDir: string): Promise<string[]> {
  const child = spawn(process.execPath, ['bin/dealflow.js', 'serve', '--no-demo'], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    return await new Promise<string[]>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`the service did not start: ${output}`)), 90_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('dealflow listening')) {
          clearTimeout(timer);
          resolve(output.split('\n'));
        }
      });
      child.once('exit', (code) => reject(new Error(`the service exited (${code}): ${output}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}

/** The plain lines before the first JSON line; throws when a plain line comes after one. */
function plainHead(lines: string[]): string[] {
  const firstJson = lines.findIndex((l) => l.startsWith('{'));
  assert.ok(firstJson > 0, lines.join('\n'));
  const late = lines.slice(firstJson).filter((l) => l !== '' && !l.startsWith('{'));
  assert.deepEqual(late, [], 'no plain line after a JSON log line');
  return lines.slice(0, firstJson);
}

describe('start lines', { skip: onPostgres ? 'runs on the embedded database only' : false }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-start-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('the first start prints the token, the Try-it lines and the URLs before any JSON; a restart prints the URLs again', async () => {
    const first = plainHead(await startAndStop(dataDir));
    const url = /^Console:     (http:\/\/127\.0\.0\.1:\d+)\/console\/$/.exec(first.find((l) => l.startsWith('Console:')) ?? '')?.[1];
    assert.ok(url, first.join('\n'));
    assert.ok(
      first.some((l) => /^Admin token \(shown once, keep it\): dfk_/.test(l)),
      first.join('\n'),
    );
    assert.ok(first.includes(`API docs:    ${url}/docs`) && first.includes(`Health:      ${url}/healthz`), first.join('\n'));
    assert.ok(first.some((l) => l.startsWith('Try it')) && first.some((l) => /^ {2}export BASE=/.test(l)), first.join('\n'));

    const second = plainHead(await startAndStop(dataDir));
    assert.equal(second.length, 4, second.join('\n'));
    assert.match(second[0]!, /^Console:     http:\/\/127\.0\.0\.1:\d+\/console\/$/);
    // The portal at PUBLIC_URL (by default http://localhost:<port>), the one origin its passkeys accept.
    assert.match(second[1]!, /^Portal: +http:\/\/localhost:\d+\/portal\/$/);
    assert.match(second[2]!, /^API docs: +http:\/\/127\.0\.0\.1:\d+\/docs$/);
    assert.match(second[3]!, /^Health: +http:\/\/127\.0\.0\.1:\d+\/healthz$/);
    assert.ok(!second.some((l) => l.includes('dfk_')), 'the token is shown once');
  });
});
