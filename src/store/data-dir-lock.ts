// PGlite is one process's database: a second process opening the same folder would corrupt it.
// A lock file holding the owner's pid keeps a CLI command from opening the folder of a running
// service (and tells the user why); a lock left by a dead process is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock on `dataDir`; returns the function that releases it. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = join(dataDir, 'dealflow.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirLockedError(`the embedded database in ${dataDir} is in use by process ${owner} (PGlite allows one process at a time)`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${dataDir}`);
}
