// Part of check 4 (crashes): SIGKILL during the first start of the embedded database (PGlite). Each
// trial takes a new data folder, starts `dealflow serve` and kills it at a random moment within
// the time a whole first start takes, four times in a row (each start may land in what the last
// one left unfinished), then starts it again and lets it finish: 5 trials, 20 kills.
// Afterwards: the last start printed a working admin token, or an earlier start did and it still
// works; every live admin token is one that was printed (none that nobody saw); the demo deal is
// there unless --no-demo.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/store/database.ts';
import { sleep } from '../support/http.ts';
import { rng, seed } from '../support/random.ts';
import { freePort } from '../support/service.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const TOKEN = /Admin token \(shown once, keep it\): (dfk_[A-Za-z0-9_-]+)/g;
const TRIALS = Number(process.env.RELIABILITY_FIRST_START_TRIALS || 5);
/** Kills per trial: each restart may land in what the previous one left unfinished. */
const KILLS_PER_TRIAL = Number(process.env.RELIABILITY_FIRST_START_KILLS || 4);

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

function start(dataDir: string, port: number, demo: boolean): Run {
  let output = '';
  const child = spawn(process.execPath, ['src/cli/main.ts', 'serve', ...(demo ? [] : ['--no-demo'])], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WEBHOOKS_DISPATCHER: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

async function untilReady(port: number, run: Run, timeoutMs = 120_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) return false;
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) })).ok) return true;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  return false;
}

const tokensIn = (text: string) => [...text.matchAll(TOKEN)].map((m) => m[1]!);
const works = async (port: number, token: string) =>
  (await fetch(`http://127.0.0.1:${port}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status === 200;

export interface FirstStartFigures {
  failures: string[];
  figures: Record<string, number | string>;
}

export async function firstStartKills(): Promise<FirstStartFigures> {
  const failures: string[] = [];
  const random = rng(seed + 44);
  // How long a whole first start takes here (with the demo seed): kills land within it.
  const probeDir = mkdtempSync(join(tmpdir(), 'dealflow-first-start-'));
  const probePort = await freePort();
  const began = performance.now();
  const probe = start(probeDir, probePort, true);
  const probeReady = await untilReady(probePort, probe);
  const fullMs = performance.now() - began;
  probe.child.kill('SIGKILL');
  await probe.exited;
  rmSync(probeDir, { recursive: true, force: true });
  if (!probeReady) return { failures: [`first start did not become ready: ${probe.output().slice(-500)}`], figures: {} };

  let kills = 0;
  let resumed = 0;
  let newTokenPrinted = 0;
  let earlierTokenKept = 0;
  let revokedUnseen = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'dealflow-first-start-'));
    const port = await freePort();
    const demo = trial % 5 !== 4;
    const printed: string[] = [];
    try {
      for (let k = 0; k < KILLS_PER_TRIAL; k++) {
        const run = start(dataDir, port, demo);
        await sleep(random.int(Math.round(fullMs * 1.1)));
        run.child.kill('SIGKILL');
        await run.exited;
        kills++;
        printed.push(...tokensIn(run.output()));
      }
      const last = start(dataDir, port, demo);
      if (!(await untilReady(port, last))) {
        failures.push(`trial ${trial}: the start after the kill did not become ready: ${last.output().slice(-800)}`);
        last.child.kill('SIGKILL');
        await last.exited;
        continue;
      }
      const output = last.output();
      const fresh = tokensIn(output);
      if (/Finishing a first start that was cut short/.test(output)) resumed++;
      if (fresh.length > 0) {
        newTokenPrinted++;
        if (!(await works(port, fresh.at(-1)!))) failures.push(`trial ${trial}: the token printed by the last start does not work`);
      } else {
        const usable = [];
        for (const token of printed) if (await works(port, token)) usable.push(token);
        if (usable.length === 0) failures.push(`trial ${trial}: no token printed by this start, and none printed earlier works (${printed.length} printed)`);
        else earlierTokenKept++;
      }
      const anyToken = fresh.at(-1) ?? printed.at(-1);
      if (anyToken) {
        const status = (await fetch(`http://127.0.0.1:${port}/deals/deal/demo`, { headers: { authorization: `Bearer ${anyToken}` } })).status;
        if (demo && status !== 200) failures.push(`trial ${trial}: the demo deal is missing after the restart (${status})`);
        if (!demo && status !== 404) failures.push(`trial ${trial}: a demo deal exists although every start had --no-demo (${status})`);
      }
      last.child.kill('SIGTERM');
      await last.exited;
      printed.push(...fresh);
      // Every live admin token is one that was printed: none that nobody saw.
      const database = await openDatabase(loadConfig({ DATABASE_URL: '', DATA_DIR: dataDir }));
      try {
        const { rows } = await sql<{ token_hash: string }>`select token_hash from api_tokens where role = 'admin' and revoked_at is null`.execute(database.db);
        const printedHashes = new Set(printed.map((t) => createHash('sha256').update(t).digest('hex')));
        const unseen = rows.filter((r) => !printedHashes.has(r.token_hash)).length;
        if (unseen > 0) failures.push(`trial ${trial}: ${unseen} live admin token(s) that were never printed`);
        const { rows: revoked } = await sql<{ n: number }>`select count(*)::int as n from api_tokens where role = 'admin' and revoked_at is not null`.execute(
          database.db,
        );
        revokedUnseen += Number(revoked[0]?.n ?? 0);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    failures,
    figures: {
      'first-start trials': TRIALS,
      'kills during first start': kills,
      'first start ms (whole, with demo)': Math.round(fullMs),
      'restarts that finished a cut first run': resumed,
      'restarts printing a new token': newTokenPrinted,
      'restarts keeping an earlier printed token': earlierTokenKept,
      'unconfirmed tokens revoked': revokedUnseen,
    },
  };
}
