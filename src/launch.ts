// dist/parley.mjs, what `npm start` runs: the server's bundle (dist/parley.cjs, whose entry is
// main.ts) compiled with V8's code cache (code-cache.ts), then started. The cache is written
// once the server has served for a few seconds, so that it holds what the start compiled, and
// again whenever a later start compiled more. With --enable-source-maps the bundle is compiled
// without a cache, so that stack traces are mapped.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The one ES-module-only dependency: require() cannot load it in Node 20, so it is handed to the
// bundle from here.
import * as uWS from 'uWebSockets.js';
import { loadCachedScript, runModule, type CachedScript } from './code-cache.js';

const SAVE_AFTER_MS = 3000;

const bundle = join(dirname(fileURLToPath(import.meta.url)), 'parley.cjs');
const requireFromBundle = createRequire(bundle);
const bundleRequire = Object.assign((id: string): unknown => (id === 'uWebSockets.js' ? uWS : requireFromBundle(id)), requireFromBundle);
const script: CachedScript | null = process.sourceMapsEnabled ? null : loadCachedScript(bundle);
const server = (script ? script.run(bundleRequire) : runModule(bundle, bundleRequire)) as { main(): Promise<void> };

server.main().then(
  () => {
    if (script) setTimeout(() => script.save(), SAVE_AFTER_MS).unref();
  },
  (e: unknown) => {
    process.stderr.write(`Parley failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
