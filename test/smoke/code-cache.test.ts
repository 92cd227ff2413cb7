// The launcher's code cache (src/code-cache.ts) on small scripts in a directory of their own.
// Each start is a process of its own: within one process V8 finds a script it compiled before in
// its own memory and never reads the cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCachedScript, runModule } from '../../src/code-cache.js';

const test = suite('code cache');
let dir: string;
let file: string;

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-code-cache-'));
  file = join(dir, 'bundle.cjs');
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const codeCache = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'code-cache.js');

interface Start {
  readonly cacheUsed: boolean;
  readonly cacheFile: string;
  readonly exports: unknown;
  readonly saved: boolean;
}

/** Start `file` in a new process with `env`: load it, run it, save its cache. */
function start(env: Record<string, string> = {}): Start {
  const program = `
    import { createRequire } from 'node:module';
    import { loadCachedScript } from ${JSON.stringify(codeCache)};
    const s = loadCachedScript(${JSON.stringify(file)});
    const exports = s.run(createRequire(${JSON.stringify(file)}));
    process.stdout.write(JSON.stringify({ cacheUsed: s.cacheUsed, cacheFile: s.cacheFile, exports, saved: s.save() }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`start failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Start;
}

const caches = () => readdirSync(dir).filter((f) => f.endsWith('.v8cache'));
const requireHere = () => createRequire(file);

// Top-level code with a function the run calls, so that the cache holds compiled code of both,
// and one that only a start with MORE set calls.
const script = (answer: number) =>
  `const double = (x) => x * 2;\nexports.answer = double(${answer});\nexports.dir = __dirname;\nexports.path = require('node:path').sep;\n` +
  `const more = () => { const words = []; for (let i = 0; i < 3; i++) words.push('more'.repeat(i)); return words.join(' '); };\n` +
  `if (process.env.MORE) exports.more = more().length;\n`;

test('the first start writes a cache and the next start uses it', () => {
  writeFileSync(file, script(21));
  const first = start();
  assert.equal(first, { cacheUsed: false, cacheFile: first.cacheFile, exports: { answer: 42, dir, path: '/' }, saved: true });
  assert.equal(caches(), [first.cacheFile.slice(dir.length + 1)]);

  const written = statSync(first.cacheFile).mtimeMs;
  const second = start();
  assert.equal(second, { cacheUsed: true, cacheFile: first.cacheFile, exports: { answer: 42, dir, path: '/' }, saved: false });
  assert.is(statSync(first.cacheFile).mtimeMs, written, 'a cache in use is not written again');
});

test('a start that compiled more than the cache holds writes it again', () => {
  writeFileSync(file, script(21));
  start();
  const more = start({ MORE: '1' });
  assert.equal([more.cacheUsed, more.exports, more.saved], [true, { answer: 42, dir, path: '/', more: 14 }, true]);
  assert.equal([start({ MORE: '1' }).saved, start().saved], [false, false]);
});

test('a changed bundle of the same length gets its own cache, and the old one is deleted', () => {
  writeFileSync(file, script(21));
  const old = start();
  // V8 would take the old cache for this source: it compares lengths only.
  writeFileSync(file, script(12));
  const changed = start();
  assert.is.not(changed.cacheFile, old.cacheFile);
  assert.equal([changed.cacheUsed, changed.exports, changed.saved], [false, { answer: 24, dir, path: '/' }, true]);
  assert.equal(caches(), [changed.cacheFile.slice(dir.length + 1)]);
  assert.ok(start().cacheUsed);
});

test('a damaged cache is rejected, the script still runs, and the cache is written again', () => {
  writeFileSync(file, script(21));
  const first = start();
  writeFileSync(first.cacheFile, Buffer.alloc(4096, 7));
  const again = start();
  assert.equal([again.cacheUsed, again.exports, again.saved], [false, { answer: 42, dir, path: '/' }, true]);
  assert.ok(start().cacheUsed);
});

test('a cache that cannot be written is no error', () => {
  writeFileSync(file, script(21));
  const s = loadCachedScript(file);
  s.run(requireHere());
  // The temporary file's name is taken by a directory.
  mkdirSync(`${s.cacheFile}.${process.pid}.tmp`);
  assert.not.ok(s.save());
  assert.not.ok(existsSync(s.cacheFile));
});

test('the given require is the script\'s, compiled with or without a cache', () => {
  writeFileSync(file, "exports.x = require('virtual');\n");
  const require = Object.assign((id: string) => (id === 'virtual' ? 'handed over' : undefined), requireHere());
  const s = loadCachedScript(file);
  assert.equal(s.run(require), { x: 'handed over' });
  assert.equal(runModule(file, require), { x: 'handed over' });
});

test('run as Node runs a module, require.resolve finds packages from the file up', () => {
  mkdirSync(join(dir, 'node_modules', 'beside'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'beside', 'index.js'), '');
  writeFileSync(file, "exports.found = require.resolve('beside');\n");
  assert.equal(runModule(file, requireHere()), { found: join(dir, 'node_modules', 'beside', 'index.js') });
});

test('run as Node runs a module, a thrown error names the file and line', () => {
  writeFileSync(file, "exports.fail = () => {\n  throw new Error('here');\n};\n");
  const { fail } = runModule(file, requireHere()) as { fail(): void };
  try {
    fail();
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).stack ?? '', `${file}:2:`);
  }
});

test.run();
