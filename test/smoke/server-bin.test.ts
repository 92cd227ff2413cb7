// The bundle the tests and benchmarks spawn is rebuilt when it is older than tsc's output (a bare
// `tsc -b` leaves it behind). Checked on a directory of its own: the real bundle is in use by
// other test files running at the same time.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bundleIsStale } from '../helpers/process.js';

const test = suite('server bundle freshness');
let dir: string;

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-bundle-'));
  mkdirSync(join(dir, 'src', 'http'), { recursive: true });
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

const at = (file: string, seconds: number) => {
  writeFileSync(file, '');
  utimesSync(file, seconds, seconds);
};

test('missing, older than a module at any depth, or up to date', () => {
  const bundle = join(dir, 'parley.mjs');
  const src = join(dir, 'src');
  at(join(src, 'main.js'), 1_000);
  at(join(src, 'http', 'dispatch.js'), 1_000);
  assert.ok(bundleIsStale(bundle, src), 'missing');
  at(bundle, 2_000);
  assert.not.ok(bundleIsStale(bundle, src), 'newer than every module');
  at(join(src, 'http', 'dispatch.js.map'), 3_000);
  assert.not.ok(bundleIsStale(bundle, src), 'source maps do not count');
  at(join(src, 'http', 'dispatch.js'), 3_000);
  assert.ok(bundleIsStale(bundle, src), 'a nested module is newer');
});

test.run();
