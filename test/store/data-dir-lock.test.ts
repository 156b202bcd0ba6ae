// The embedded data folder's lock is held exactly while its process lives: the operating system
// releases it with the process (SIGKILL included), so a start right after a crash takes it over, and
// a PID written in the folder (dead, or reused by another live process) never decides anything.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { acquireDataDirLock, DataDirLockedError } from '../../src/store/data-dir-lock.ts';

describe('data dir lock', () => {
  const folders: string[] = [];
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dealflow-lock-'));
    folders.push(dir);
    return dir;
  };

  /** A process holding the folder's lock, once it says so. */
  function holder(dataDir: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [new URL('./fixtures/hold-data-dir-lock.ts', import.meta.url).pathname, dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk) => String(chunk).includes('locked') && resolve(child));
      child.on('exit', (code) => reject(new Error(`the holder exited (${code})`)));
    });
  }

  test('a folder held by a live process is refused, naming that process', async () => {
    const dir = folder();
    const child = await holder(dir);
    await assert.rejects(
      acquireDataDirLock(dir),
      (err: unknown) => err instanceof DataDirLockedError && err.message.includes(`in use by process ${child.pid}`),
    );
  });

  test('0.3 s after the holder is killed (SIGKILL), the lock is taken', async () => {
    const dir = folder();
    const child = await holder(dir);
    child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const release = await acquireDataDirLock(dir);
    release();
  });

  test('a lock file naming a live process that is not holding the folder (a reused PID) does not block', async () => {
    const dir = folder();
    // The parent of this test, alive and no dealflow: as a PID reused after a crash would be.
    writeFileSync(path.join(dir, 'dealflow.lock'), String(process.ppid));
    const release = await acquireDataDirLock(dir);
    // Released, it is free again; held, a second taker in this process is refused.
    const again = acquireDataDirLock(dir);
    await assert.rejects(again, DataDirLockedError);
    release();
    (await acquireDataDirLock(dir))();
  });

  test('two takers at once: exactly one holds the folder', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'dealflow.lock'), '999999');
    const results = await Promise.allSettled([acquireDataDirLock(dir), acquireDataDirLock(dir)]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of results) if (r.status === 'fulfilled') r.value();
  });
});
