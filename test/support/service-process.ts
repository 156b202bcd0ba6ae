// The service as a child process (`dealflow serve --no-demo` through bin/dealflow.js), for tests of
// what only a real process shows: the CLI beside a running service, backups under load, traces.
// Ready when it prints its console line; a start that fails or takes too long kills the child, so
// a failed start never leaves a process that keeps the test file from ending.
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServiceProcess {
  /** The service's base URL (http://127.0.0.1:port, with BASE_PATH if set). */
  base: string;
  child: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function startServiceProcess(env: NodeJS.ProcessEnv, { timeoutMs = 120_000 } = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['bin/dealflow.js', 'serve', '--no-demo'], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    children.delete(child);
  };
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`the service did not start within ${timeoutMs} ms: ${output}`)), timeoutMs);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const url = /^Console: +(\S+)\/console\/$/m.exec(output)?.[1];
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}): ${output}`));
      });
    });
    return { base, child, stop };
  } catch (err) {
    child.kill('SIGKILL');
    children.delete(child);
    throw err;
  }
}
