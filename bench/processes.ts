// Child processes of the benchmark: the service, the baseline app and `dealflow` CLI commands, all
// run by the same Node 24 as the bench itself (process.execPath), plus the resident-memory sampler.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/** The environment a child needs to reach the benchmark's database, and nothing of the caller's. */
export type DatabaseEnv = { DATABASE_URL: string } | { DATA_DIR: string };

function childEnv(database: DatabaseEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...database, ...extra };
  if (!('DATABASE_URL' in database)) delete env.DATABASE_URL;
  return env;
}

/** Runs `dealflow <args>` to completion; rejects on a non-zero exit. Output is captured unless `inherit`. */
export function runCli(database: DatabaseEnv, args: string[], options: { inherit?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: root,
      env: childEnv(database),
      stdio: options.inherit ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`dealflow ${args.join(' ')} exited ${code}:\n${err || out}`))));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningChild {
  url: string;
  pid: number;
  /** SIGTERM, then wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Rejects when the child exits before stop() was called. */
  crashed: Promise<never>;
}

/** Starts a long-running Node child (the service or the baseline) and waits for GET `healthPath`. */
export async function startServer(
  name: string,
  args: string[],
  database: DatabaseEnv,
  options: { healthPath: string; env?: Record<string, string>; nodeOptions?: string[] },
): Promise<RunningChild> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeOptions ?? []), ...args], {
    cwd: root,
    env: childEnv(database, { PORT: String(port), HOST: '127.0.0.1', ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', (chunk: Buffer) => {
    keep(chunk);
    process.stderr.write(`[${name}] ${chunk}`);
  });
  let stopping = false;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const crashed = exited.then((code) => {
    if (!stopping) throw new Error(`${name} exited (${code}) unexpectedly:\n${output}`);
    return new Promise<never>(() => {});
  });
  crashed.catch(() => {}); // observed by whoever awaits it

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) while starting:\n${output}`);
    try {
      const response = await fetch(url + options.healthPath);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer ${options.healthPath} within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    pid: child.pid!,
    crashed,
    async stop() {
      if (child.exitCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process in bytes (Linux /proc), or undefined where it cannot be read. */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; reports the peak and the last value. */
export function sampleResidentMemory(pid: number, everyMs = 250) {
  let peak = 0;
  let last = 0;
  const take = () => {
    const bytes = residentBytes(pid);
    if (bytes !== undefined) {
      last = bytes;
      peak = Math.max(peak, bytes);
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    stop() {
      take();
      clearInterval(timer);
      return { peakBytes: peak, lastBytes: last };
    },
  };
}

/** Linux's clock tick for /proc CPU times (USER_HZ, 100 on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of a process in ms (Linux /proc/PID/stat), or undefined where it cannot be read. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) of each PostgreSQL backend on this machine that serves `database`, by pid: the
 * server titles each backend "postgres: … USER DATABASE HOST(PORT) …", so other databases' work
 * (other tests, other benches) is not counted. Undefined when none can be read (a remote server,
 * or not Linux). Background processes (WAL writer, checkpointer) are not included.
 */
export function databaseCpuMs(database: string): Map<number, number> | undefined {
  const byPid = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let title: string;
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!title.startsWith('postgres: ') || !title.split(' ').includes(database)) continue;
    const ms = cpuMs(Number(pid));
    if (ms !== undefined) byPid.set(Number(pid), ms);
  }
  return byPid.size > 0 ? byPid : undefined;
}

/** CPU spent between start() and stop(): by a process, by a database's backends, and by this process (the load generator). */
export function sampleCpu(pid: number, database: string | undefined) {
  const read = () => ({ service: cpuMs(pid), database: database ? databaseCpuMs(database) : undefined, load: process.cpuUsage() });
  const start = read();
  return {
    stop() {
      const end = read();
      const delta = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : b - a);
      // Per backend: one that started during the run counts from zero; one that ended during it
      // is lost (its time cannot be read any more), so the figure errs low, never negative.
      let databaseMs: number | undefined;
      if (end.database) {
        databaseMs = 0;
        for (const [pid, ms] of end.database) databaseMs += ms - (start.database?.get(pid) ?? 0);
      }
      return {
        serviceMs: delta(start.service, end.service),
        databaseMs,
        loadMs: (end.load.user - start.load.user + end.load.system - start.load.system) / 1000,
      };
    },
  };
}
