// The documented ways to run the service stop on SIGTERM as a shell, systemd and a container
// runtime send it: `npm start` (SIGTERM to the npm process itself), the systemd unit's ExecStart
// command line and the container image's ENTRYPOINT + CMD, both read from
// docs/operations/README.md (SIGTERM to the main PID), and `npm start` under a terminal's Ctrl-C
// (SIGINT to the process group). Each must end within 10 s with no process of its tree left,
// answer the write in flight at the signal, say so in its log line, and leave the data folder's
// lock free. One data folder
// for the three, in turn: only the first start pays the first run.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { acquireDataDirLock } from '../../src/store/data-dir-lock.ts';

describe('stop on signal', () => {
  const root = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
  const page = readFileSync(join(root, 'docs/operations/README.md'), 'utf8');
  const fenced = (lang: string) =>
    new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``).exec(page)?.[1] ?? assert.fail(`no ${lang} block in docs/operations/README.md`);
  const STOP_WITHIN_MS = 10_000;

  const dir = mkdtempSync(join(tmpdir(), 'dealflow-stop-'));
  const dataDir = join(dir, 'data');
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Every process below `pid` now (read from /proc), `pid` included. */
  function tree(pid: number): number[] {
    const children = new Map<number, number[]>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {
        // gone meanwhile
      }
    }
    const all = [pid];
    for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
    return all;
  }

  /** Running: exists and is not a zombie waiting to be reaped. */
  function running(pid: number): boolean {
    if (!existsSync(`/proc/${pid}`)) return false;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  }

  interface StopOptions {
    cwd: string;
    env: NodeJS.ProcessEnv;
    /** The signal, SIGTERM unless said. */
    signal?: 'SIGTERM' | 'SIGINT';
    /** Sent to the whole process group, as a terminal's Ctrl-C is; else to the first process only. */
    toGroup?: boolean;
    /** Runs once the service listens, with what it printed; what it returns is awaited after the signal. */
    whileListening?: (output: string) => Promise<() => Promise<void>>;
  }

  /** Starts `argv`, waits for the listening line, sends the signal, checks it all ended. */
  async function startAndStop(what: string, argv: string[], options: StopOptions) {
    const signal = options.signal ?? 'SIGTERM';
    const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.toGroup === true, // a process group of its own, as a terminal's foreground job
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let pids: number[] = [];
    try {
      const deadline = Date.now() + 180_000;
      while (!output.includes('"msg":"dealflow listening"')) {
        assert.equal(child.exitCode, null, `${what} exited before listening: ${output}`);
        assert.ok(Date.now() < deadline, `${what} did not start: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const finish = await options.whileListening?.(output);
      pids = tree(child.pid!);
      if (options.toGroup) process.kill(-child.pid!, signal);
      else child.kill(signal);
      const sent = Date.now();
      await finish?.();
      while (pids.some(running) && Date.now() - sent < STOP_WITHIN_MS) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(pids.filter(running), [], `${what}: processes left ${STOP_WITHIN_MS} ms after ${signal}: ${output.slice(-2000)}`);
      await exited;
      const line = new RegExp(`"signal":"${signal}".*"msg":"dealflow stopped on ${signal}: requests in flight answered, database closed"`);
      assert.match(output, line, `${what}: the stop line`);
      // The data folder is free again: another process may take it.
      (await acquireDataDirLock(dataDir))();
      return Date.now() - sent;
    } finally {
      // Nothing outlives the test, whether the service stopped, never started or hung.
      for (const pid of pids.length > 0 ? pids : tree(child.pid!)) if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  }

  /**
   * A write whose body is still arriving when the signal comes: half the body before, the rest
   * 300 ms after. The service must answer it (201, the deal stored) before it stops.
   */
  async function writeInFlight(output: string): Promise<() => Promise<void>> {
    const [, base, token] = /export BASE='([^']+)' TOKEN='([^']+)'/.exec(output) ?? assert.fail(`no "Try it" line: ${output}`);
    const body = Buffer.from(JSON.stringify({ name: 'Signalled while writing', currency: 'EUR' }));
    const request = httpRequest(`${base}/deals/deal/deal-in-flight`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, text }));
      });
      request.on('error', reject);
    });
    request.write(body.subarray(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the request is in the service's hands
    return async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      request.end(body.subarray(10));
      const { status, text } = await answered;
      assert.equal(status, 201, `the write in flight at the signal is answered: ${text}`);
    };
  }

  describe('the service stops on SIGTERM, however it was started', { concurrency: false }, () => {
    test('npm start: SIGTERM to npm', async (t) => {
      // --no-demo: the first run without seeding 200 investors (the signal handling is the same).
      // The first start prints the "Try it" lines: a write is sent, and still arriving at the signal.
      const ms = await startAndStop('npm start', ['npm', 'start', '--silent', '--', '--no-demo'], { cwd: root, env: {}, whileListening: writeInFlight });
      t.diagnostic(`no process left ${ms} ms after SIGTERM, the write in flight answered`);
    });

    test('npm start: Ctrl-C in a terminal (SIGINT to the whole process group)', async (t) => {
      const ms = await startAndStop('npm start', ['npm', 'start', '--silent'], { cwd: root, env: {}, signal: 'SIGINT', toGroup: true });
      t.diagnostic(`no process left ${ms} ms after SIGINT`);
    });

    test("the systemd unit's ExecStart, as systemd runs it: SIGTERM to the main PID", async (t) => {
      const unit = fenced('ini').replaceAll('/srv/dealflow', root);
      const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!);
      const execStart = values('ExecStart')[0]!.split(' ');
      const env = Object.fromEntries(
        values('Environment')
          .flatMap((line) => line.split(' '))
          .map((pair) => pair.split('=') as [string, string]),
      );
      assert.equal(execStart[0], join(root, 'node_modules/node/bin/node'), 'the unit runs the Node of the checkout');
      t.diagnostic(`no process left ${await startAndStop('the systemd unit', execStart, { cwd: values('WorkingDirectory')[0]!, env })} ms after SIGTERM`);
    });

    test("the container image's ENTRYPOINT and CMD: SIGTERM to the main PID", async (t) => {
      const dockerfile = fenced('dockerfile');
      const array = (key: string) => JSON.parse(new RegExp(`^${key} (.*)$`, 'm').exec(dockerfile)?.[1] ?? assert.fail(`no ${key}`)) as string[];
      const argv = [...array('ENTRYPOINT'), ...array('CMD')];
      assert.equal(argv[0], 'node');
      const env = Object.fromEntries(
        /^ENV (.*)$/m
          .exec(dockerfile)![1]!
          .split(' ')
          .map((pair) => pair.split('=') as [string, string]),
      );
      // The image's node is Node 24, as this one.
      t.diagnostic(
        `no process left ${await startAndStop('the container entrypoint', [process.execPath, ...argv.slice(1)], { cwd: root, env })} ms after SIGTERM`,
      );
    });
  });
});
