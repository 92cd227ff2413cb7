// The server as one file: dist/parley.cjs, built from tsc's output (dist/src/main.js) by esbuild,
// and its launcher dist/parley.mjs (src/launch.ts), which runs it with V8's code cache
// (src/code-cache.ts). Unbundled, Node loads about 250 of our modules and 430 files of our
// dependencies one at a time, resolving, reading and compiling each; that took 0.6-0.8 s of every
// start, and one file takes about a third of that (BENCHMARKS.md, stop 16). The bundle is CommonJS
// because Node 20 caches compiled code only for scripts. `npm start`, the benchmarks and the tests
// that spawn the server run dist/parley.mjs; the CLI and the tests that import modules directly use
// tsc's output.
//
// Kept outside the bundle: the native uWebSockets.js addon (an ES module, handed to the bundle by
// the launcher), the embedded database (PGlite loads its WebAssembly and data files from beside its
// own modules, and only when no DATABASE_URL is set) and pg's optional native binding. They are
// loaded from node_modules as before.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning' };

await build({
  ...common,
  entryPoints: [join(dist, 'src', 'main.js')],
  outfile: join(dist, 'parley.cjs'),
  format: 'cjs',
  external: ['uWebSockets.js', '@electric-sql/pglite', 'pg-native'],
  // Modules that find files beside themselves ask import.meta.url, which CommonJS lacks.
  define: { 'import.meta.url': 'parleyBundleUrl' },
  // A script compiled from V8's cache loses its dynamic import() in Node 20 ("A dynamic import
  // callback was not specified"): the bundle require()s instead (PGlite ships CommonJS too).
  supported: { 'dynamic-import': false },
  banner: { js: "const parleyBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// Last: the tests rebuild when this file is older than tsc's output (test/helpers/process.ts).
await build({
  ...common,
  entryPoints: [join(dist, 'src', 'launch.js')],
  outfile: join(dist, 'parley.mjs'),
  format: 'esm',
  external: ['uWebSockets.js'],
});
