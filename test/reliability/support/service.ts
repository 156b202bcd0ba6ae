// Real service instances: `node src/cli/main.ts serve` as child processes on free loopback ports.
// Every child is registered so `stopAll` (called from `after` hooks, and at exit) kills it even when
// a check failed half-way.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { sleep } from './http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const live = new Set<ChildProcess>();

process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Instance {
  url: string;
  port: number;
  readonly pid: number | undefined;
  /** The last lines the service wrote (for failure messages). */
  output(): string;
  /** SIGKILL: no shutdown hooks, no goodbye. */
  kill(): Promise<void>;
  /** Start again on the same port after a kill. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
  alive(): boolean;
}

export interface InstanceOptions {
  databaseUrl: string;
  env?: Record<string, string>;
  /** How long to wait for /readyz (default 90 s: the machine may be shared and loaded). */
  readyTimeoutMs?: number;
  /** Wait for /healthz only (the database may be down on purpose). */
  waitFor?: 'readyz' | 'healthz';
}

export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let lines: string[] = [];
  const spawnChild = async () => {
    lines = [];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    const c = spawn(process.execPath, ['src/cli/main.ts', 'serve', '--no-demo'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    live.add(c);
    const keep = (chunk: Buffer) => {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (lines.length > 200) lines = lines.slice(-100);
    };
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    c.on('exit', () => live.delete(c));
    await waitReady(
      `http://127.0.0.1:${port}/${options.waitFor ?? 'readyz'}`,
      options.readyTimeoutMs ?? 90_000,
      () => c.exitCode !== null || c.signalCode !== null,
      () => lines.slice(-20).join('\n'),
    );
  };
  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => c.once('exit', () => resolve()));
  await spawnChild();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    output: () => lines.slice(-30).join('\n'),
    async kill() {
      if (!child) return;
      child.kill('SIGKILL');
      await exited(child);
    },
    restart: spawnChild,
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const c = child;
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
      await exited(c);
      clearTimeout(timer);
    },
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
  };
}

async function waitReady(url: string, timeoutMs: number, dead: () => boolean, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead()) throw new Error(`the service exited before it was ready:\n${output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the service was not ready within ${timeoutMs} ms:\n${output()}`);
}

/** Kills every instance still running (the `after` hooks call this). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...live].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}
