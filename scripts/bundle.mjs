// The server as one file: dist/parley.mjs, built from tsc's output (dist/src/main.js) by esbuild.
// Unbundled, Node loads about 250 of our modules and 430 files of our dependencies one at a time,
// resolving, reading and compiling each; that took 0.6-0.8 s of every start, and one file takes
// about a third of that (BENCHMARKS.md, stop 16). `npm start`, the benchmarks and the tests that
// spawn the server run this file; the CLI and the tests that import modules directly use tsc's
// output.
//
// Kept outside the bundle: the native uWebSockets.js addon, the embedded database (PGlite loads its
// WebAssembly and data files from beside its own modules, and only when no DATABASE_URL is set)
// and pg's optional native binding. They are loaded from node_modules as before.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'dist', 'src', 'main.js')],
  outfile: join(root, 'dist', 'parley.mjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['uWebSockets.js', '@electric-sql/pglite', 'pg-native'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as parleyCreateRequire } from 'node:module'; const require = parleyCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
