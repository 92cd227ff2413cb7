// Temporary directories of a test process, removed when it exits (each server a test starts has
// a data directory; left behind, a day of test runs left hundreds of them in /tmp).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new, empty directory under the system's temporary one, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(dir);
  return dir;
}

function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
