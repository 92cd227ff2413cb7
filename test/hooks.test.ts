// uvu as patched in patches/uvu+0.5.6.patch: a suite whose before or after hook throws reports
// the hook's error and fails. Unpatched, uvu dropped a failed before hook's error (the runner's
// `finally` returns), and an after hook that then threw hid it behind its own: CI once showed only
// "Cannot read properties of undefined" from an after hook, never why the server had not started.
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const uvu = import.meta.resolve('uvu');

/** Run a suite with these hooks and one passing test, in a process of its own. */
function runSuite(hooks: string): { code: number | null; output: string } {
  const program = `
    import { suite } from ${JSON.stringify(uvu)};
    const s = suite('hooked');
    ${hooks}
    s('passes', () => {});
    s.run();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, output: r.stdout + r.stderr };
}

const t = suite('test hooks');

t('a failed before hook fails the suite with its own error', () => {
  const r = runSuite(`s.before(() => { throw new Error('the database is down'); });`);
  assert.is(r.code, 1, r.output);
  assert.match(r.output, 'before hook');
  assert.match(r.output, 'the database is down');
  assert.match(r.output, /Passed:\s+0/);
});

t('an after hook that throws as well does not hide the before hook\'s error', () => {
  const r = runSuite(`
    let server;
    s.before(() => { throw new Error('the server exited early'); });
    s.after(() => server.stop());`);
  assert.is(r.code, 1, r.output);
  assert.match(r.output, 'the server exited early');
  assert.match(r.output, 'after hook');
  assert.match(r.output, /Cannot read properties of undefined/);
  assert.not.match(r.output, 'Exiting early', 'the run ends normally');
});

t('a failed after hook fails a suite whose tests passed', () => {
  const r = runSuite(`s.after(() => { throw new Error('could not drop the database'); });`);
  assert.is(r.code, 1, r.output);
  assert.match(r.output, 'could not drop the database');
  assert.match(r.output, /Passed:\s+1/);
});

t('a suite whose hooks pass still passes', () => {
  const r = runSuite(`s.before(() => {}); s.after(() => {});`);
  assert.is(r.code, 0, r.output);
  assert.match(r.output, /Passed:\s+1/);
});

t.run();
