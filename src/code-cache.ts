// Running the server's bundle with V8's code cache. Compiling the 2 MB bundle took about 80 ms of
// every start, and every function the start runs was compiled again on its first call. V8 can
// hand back what it compiled (`createCachedData`) and take it again on the next compile; only
// CommonJS scripts can use it in Node 20 (`vm.Script`), which is why the bundle is CommonJS and
// dist/parley.mjs (launch.ts) runs it.
//
// The cache is written beside the bundle, never in a shared directory: it is code the process
// runs, so only who may change the bundle may change it. V8 checks its own version and flags but
// judges the source only by its length, so the file's name carries a hash of the source, and of
// the Node version and architecture.
//
// Node 20 maps stack traces through source maps only for modules its own loader compiled, so
// with --enable-source-maps the bundle is compiled as Node compiles a CommonJS module instead,
// without a cache (runModule).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';

export interface CachedScript {
  /** Whether V8 accepted a cache for this compile (false: there was none, or it was rejected). */
  readonly cacheUsed: boolean;
  /** Where this script's cache is (or would be) written. */
  readonly cacheFile: string;
  /** Run the script as a CommonJS module with `require`; its exports. */
  run(require: NodeJS.Require): unknown;
  /**
   * Write the code compiled so far as the cache, unless the cache in use already holds as much, and
   * delete the caches of other builds. Never throws: without a cache the server only starts slower.
   * Whether it wrote one.
   */
  save(): boolean;
}

const SUFFIX = '.v8cache';

/**
 * Compile `file` (a CommonJS module) with its cache, if there is a current one. The script must not
 * use import(): Node 20 loses a script's import() callback when it is compiled from a cache.
 */
export function loadCachedScript(file: string): CachedScript {
  // Hashed as read: hashing the decoded string would encode it to UTF-8 again.
  const bytes = readFileSync(file);
  const key = createHash('sha256').update(bytes).update(`\0${process.version}\0${process.arch}`).digest('hex').slice(0, 16);
  const source = bytes.toString('utf8');
  const cacheFile = `${file}.${key}${SUFFIX}`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // One line with the source's first, so that line numbers stay the file's.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const cacheUsed = cachedData !== undefined && script.cachedDataRejected === false;
  return {
    cacheUsed,
    cacheFile,
    run(require) {
      const module = { exports: {} as unknown };
      const f = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: typeof module, f: string, d: string) => void;
      f(module.exports, require, module, file, dirname(file));
      return module.exports;
    },
    save() {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        // A start that ran code the cache's start did not (restoring queues, say) compiled more:
        // the cache grows to hold it.
        const data = script.createCachedData();
        if (cacheUsed && data.length <= cachedData!.length) return false;
        writeFileSync(tmp, data);
        renameSync(tmp, cacheFile);
        // Other builds' caches, and what an interrupted write left.
        const dir = dirname(file);
        const prefix = `${basename(file)}.`;
        for (const f of readdirSync(dir)) {
          if (f.startsWith(prefix) && f.includes(SUFFIX) && join(dir, f) !== cacheFile) rmSync(join(dir, f), { force: true });
        }
        return true;
      } catch {
        rmSync(tmp, { force: true, recursive: true });
        return false;
      }
    },
  };
}

/**
 * Run `file` (a CommonJS module) as Node's own loader does, without a cache, but with `require`;
 * its exports. Stack traces then follow the file's source map under --enable-source-maps.
 */
export function runModule(file: string, require: NodeJS.Require): unknown {
  // Module#_compile is what Node's loader calls; it registers the file's source map.
  const m = new Module(file) as Module & { _compile(source: string, filename: string): void; paths: string[] };
  m.filename = file;
  // Where require.resolve() looks for packages: a bare name's lookup paths, the node_modules
  // directories from the file's own up.
  m.paths = require.resolve.paths('package') ?? [];
  m.require = require as Module['require'];
  m._compile(readFileSync(file, 'utf8'), file);
  return m.exports;
}
