// Files Parley keeps beside the database (avatars, custom emoji) under DATA_DIR, one directory
// per kind. Keys are relative paths made by Parley (never by clients); writes are atomic.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';

export class BlobStore {
  constructor(readonly root: string) {}

  private path(key: string): string {
    const p = normalize(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error(`Blob key escapes its store: ${key}`);
    return p;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    const tmp = `${p}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, data, { mode: 0o644 });
    await rename(tmp, p);
  }

  /** The file, or null when there is none. */
  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

/** The store of one kind of file under the data directory. */
export const blobStore = (dataDir: string, kind: 'avatars' | 'emoji') => new BlobStore(join(dataDir, kind));
