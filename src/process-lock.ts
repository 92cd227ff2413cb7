// One Parley process per DATA_DIR: the embedded database is a single session, and the admin
// socket lives there. The lock is a pid file; a stale one (dead process) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class LockedError extends Error {
  constructor(readonly pid: number, dir: string) {
    super(`Another Parley process (pid ${pid}) is using ${dir}`);
    this.name = 'LockedError';
  }
}

/** Whether process `pid` exists (signal 0 checks without signalling; EPERM: it exists, not ours). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'parley.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Take the DATA_DIR lock; returns its release function. Throws LockedError when held. */
export function acquireLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'parley.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = lockHolder(dataDir);
      if (holder !== null) throw new LockedError(holder, dataDir);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Cannot lock ${dataDir}`);
}
