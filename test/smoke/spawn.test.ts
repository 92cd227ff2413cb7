// spawnUntilHealthy (test/helpers/process.ts), which starts the server for the tests and the
// benchmarks: a process that ends before it is healthy fails the start at once, whether it exited
// or a signal killed it (a killed process has no exit code, only a signal).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnUntilHealthy } from '../helpers/process.js';

const t = suite('spawnUntilHealthy');

/** Start `node -e program`, never healthy; how it failed and after how long. */
async function failedStart(program: string): Promise<{ message: string; ms: number }> {
  const t0 = performance.now();
  try {
    await spawnUntilHealthy({ what: 'child', args: ['-e', program], env: {}, healthy: async () => false, pollMs: 20, timeoutMs: 20_000 });
  } catch (e) {
    return { message: (e as Error).message, ms: performance.now() - t0 };
  }
  throw new Error('the start did not fail');
}

t('a process that exits first fails the start with its exit code and output', async () => {
  const r = await failedStart(`console.error('cannot listen'); process.exit(3)`);
  assert.match(r.message, 'child exited early (3)');
  assert.match(r.message, 'cannot listen');
  assert.ok(r.ms < 10_000, `${r.ms} ms`);
});

t('a process killed by a signal fails the start at once, not at the time-out', async () => {
  const r = await failedStart(`console.error('dying'); process.kill(process.pid, 'SIGKILL')`);
  assert.match(r.message, 'child exited early (SIGKILL)');
  assert.ok(r.ms < 10_000, `${r.ms} ms`);
});

t('a process that stays unhealthy is killed at the time-out', async () => {
  const t0 = performance.now();
  try {
    await spawnUntilHealthy({ what: 'child', args: ['-e', 'setInterval(() => {}, 1000)'], env: {}, healthy: async () => false, pollMs: 20, timeoutMs: 500 });
    assert.unreachable('should fail');
  } catch (e) {
    assert.match((e as Error).message, 'child did not become healthy');
  }
  assert.ok(performance.now() - t0 < 5_000);
});

t.run();
