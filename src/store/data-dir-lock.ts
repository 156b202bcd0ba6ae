// PGlite is one process's database: a second process opening the same folder would corrupt it.
// The folder's lock keeps a CLI command from opening the folder of a running service (and tells the
// user why). It is a Unix socket the holding process listens on (`dealflow.lock` in the folder): the
// operating system closes it with the process however it ends, SIGKILL included, so the lock is held
// exactly while its holder lives. Whether it is held is asked of the socket (a connection answered
// means held, and the holder names its pid), never of a PID: a start right after a crash takes it
// over, and a PID reused by another process cannot block one. Node has no flock(2), and a native
// addon would tie the install to one Node ABI; a listening socket is the lock the OS keeps for us.
// Taking over a stale socket happens under a mutex (a file made with O_EXCL, held for milliseconds),
// so two starts at once cannot both take it.
import { createHash } from 'node:crypto';
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class DataDirLockedError extends Error {}

/** The lock's socket: in the folder, or in the temporary folder when that path is too long for a socket. */
export function lockPath(dataDir: string): string {
  const inFolder = path.join(path.resolve(dataDir), 'dealflow.lock');
  if (Buffer.byteLength(inFolder) < 100) return inFolder;
  return path.join(tmpdir(), `dealflow-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}.lock`);
}

/** A mutex left by a process killed while taking the lock is stale after this long. */
const MUTEX_STALE_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid of the process listening on `file` (0 when it does not say in time), or undefined when none is. */
function holderOf(file: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const connection = createConnection(file);
    let said = '';
    let connected = false;
    const done = (value: number | undefined) => {
      clearTimeout(timer);
      connection.destroy();
      resolve(value);
    };
    // Connected but silent (a holder busy starting up): held all the same.
    const timer = setTimeout(() => done(connected ? 0 : undefined), 3_000);
    connection.on('connect', () => (connected = true));
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => (said += chunk));
    connection.on('end', () => done(Number.parseInt(said, 10) || 0));
    // ECONNREFUSED (nobody listens: the holder is gone), ENOENT, ENOTSOCK (a lock file of an older version).
    connection.on('error', () => done(connected ? 0 : undefined));
  });
}

function listen(file: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((connection) => connection.end(`${process.pid}\n`));
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    server.listen(file, () => {
      // The lock never keeps the process alive by itself.
      server.unref();
      resolve(server);
    });
  });
}

/** Runs `work` holding the folder's mutex (for taking the lock over, milliseconds). */
async function withMutex<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const file = path.join(path.resolve(dataDir), 'dealflow.lock.taking');
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = (() => {
        try {
          return Date.now() - statSync(file).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if (age > MUTEX_STALE_MS) rmSync(file, { force: true });
      else await sleep(10);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}

/** Takes the lock on `dataDir`; returns the function that releases it. */
export async function acquireDataDirLock(dataDir: string): Promise<() => void> {
  const file = lockPath(dataDir);
  const server = await withMutex(dataDir, async () => {
    const taken = await listen(file);
    if (taken) return taken;
    const holder = await holderOf(file);
    if (holder !== undefined) {
      throw new DataDirLockedError(
        `the embedded database in ${dataDir} is in use by ${holder ? `process ${holder}` : 'another process'} (PGlite allows one process at a time)`,
      );
    }
    // Nobody listens: its holder ended (the socket file outlives it), or it is an older lock file.
    rmSync(file, { force: true });
    const retaken = await listen(file);
    if (!retaken) throw new DataDirLockedError(`could not lock ${dataDir}`);
    return retaken;
  });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    server.close();
    rmSync(file, { force: true });
    process.off('exit', release);
  };
  process.on('exit', release);
  return release;
}
