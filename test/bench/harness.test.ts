// The benchmark harness (bench/main.ts) removes what a scenario set up, its data directory and its
// database, once the scenario is over, whether it succeeded or failed: scenarios leave it to it.
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseServerEnv, runScenarios, type Failure } from '../../bench/main.js';
import { parleyEnv, startParleyOn, type Context } from '../../bench/scenarios/common.js';
import type { Workspace } from '../../bench/setup.js';
import { alive } from '../../src/process-lock.js';
import { admin, serverUrl } from '../helpers/database.js';
import { smokeOptions as options } from './smoke.js';

const t = suite('bench harness');

/** A scenario that makes a workspace and fails; the workspace, once made. */
function failing() {
  const made: Workspace[] = [];
  const scenario = async (ctx: { workspace(): Promise<Workspace> }) => {
    made.push(await ctx.workspace());
    throw new Error('the scenario broke');
  };
  return { made, scenarios: { broken: scenario } };
}

/** Whether the workspace's database still exists (false on the embedded database: there is none). */
async function databaseExists(w: Workspace): Promise<boolean> {
  const url = serverUrl();
  if (!url || !w.databaseUrl) return false;
  const name = new URL(w.databaseUrl).pathname.slice(1);
  return admin(url, async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

t('a failed scenario is recorded, and what it set up is removed', async () => {
  const { made, scenarios } = failing();
  const failures: Failure[] = [];
  const results = await runScenarios(['broken'], options, 1, failures, scenarios);
  assert.equal(results, []);
  assert.equal(failures, [{ scenario: 'broken', error: 'the scenario broke' }]);
  assert.is(made.length, 1);
  assert.is(existsSync(made[0]!.dataDir), false, 'its data directory');
  assert.is(await databaseExists(made[0]!), false, 'its database');
});

t('without a list of failures the error fails the run, after the clean-up', async () => {
  const { made, scenarios } = failing();
  try {
    await runScenarios(['broken'], options, 1, null, scenarios);
    assert.unreachable('should throw');
  } catch (e) {
    assert.is((e as Error).message, 'the scenario broke');
  }
  assert.is(existsSync(made[0]!.dataDir), false);
  assert.is(await databaseExists(made[0]!), false);
});

t('a scenario that succeeds leaves its clean-up to the harness, which does it', async () => {
  const made: Workspace[] = [];
  const scenarios = {
    fine: async (ctx: { workspace(): Promise<Workspace> }) => {
      made.push(await ctx.workspace());
      assert.ok(existsSync(made[0]!.dataDir), 'there while the scenario runs');
      return [];
    },
  };
  assert.equal(await runScenarios(['fine'], options, 1, null, scenarios), []);
  assert.is(existsSync(made[0]!.dataDir), false);
  assert.is(await databaseExists(made[0]!), false);
});

t('each scenario runs on load generators of its own, ended with it', async () => {
  const seen: number[][] = [];
  const record = async (ctx: Context) => {
    const pids = ctx.gens.pids();
    for (const pid of pids) assert.ok(alive(pid), 'running while the scenario runs');
    seen.push(pids);
    return [];
  };
  await runScenarios(['first', 'second'], options, 2, null, { first: record, second: record });
  assert.is(seen.length, 2);
  assert.is(seen[0]!.length, 2);
  assert.equal(
    seen[1]!.filter((pid) => seen[0]!.includes(pid)),
    [],
    'the second scenario shares no process with the first',
  );
  for (const pid of seen.flat()) assert.not.ok(alive(pid), `generator ${pid} ended with its scenario`);
});

t('--server-env: NAME=VALUE settings, the value as given; anything else, or what the harness sets, is refused', () => {
  assert.equal(parseServerEnv([]), {});
  assert.equal(parseServerEnv(['QUEUE_ANSWER_INTERVAL_MS=10', 'LOG_LEVEL=', 'VIDEOCALL_URL=https://x.test/?a=b', 'LOG_LEVEL=info']), {
    QUEUE_ANSWER_INTERVAL_MS: '10',
    LOG_LEVEL: 'info',
    VIDEOCALL_URL: 'https://x.test/?a=b',
  });
  for (const bad of ['QUEUE_ANSWER_INTERVAL_MS', 'queue_answer_interval_ms=10', '=10', ' LOG_LEVEL=info']) {
    assert.throws(() => parseServerEnv([bad]), /--server-env wants NAME=VALUE/, bad);
  }
  // Where each Parley listens and keeps its data is the harness's.
  for (const owned of ['HOST', 'PORT', 'DATA_DIR', 'DATABASE_URL']) {
    assert.throws(() => parseServerEnv([`${owned}=x`]), new RegExp(`cannot set ${owned}`), owned);
  }
});

t("a scenario's own settings win over --server-env", () => {
  const options = { serverEnv: { HEARTBEAT_MS: '1000', QUEUE_ANSWER_INTERVAL_MS: '5' } };
  assert.equal(parleyEnv(options, { HEARTBEAT_MS: '600000' }), { HEARTBEAT_MS: '600000', QUEUE_ANSWER_INTERVAL_MS: '5' });
  assert.equal(parleyEnv(options), options.serverEnv);
});

t('the Parley a scenario starts gets the --server-env settings', async () => {
  const failures: Failure[] = [];
  const start = async (ctx: Context) => {
    const server = await startParleyOn(ctx, await ctx.workspace());
    await server.stop();
    return [];
  };
  // A value Parley refuses at start: the server's own message comes back as the failure.
  await runScenarios(['start'], { ...options, serverEnv: { QUEUE_ANSWER_INTERVAL_MS: 'soon' } }, 1, failures, { start });
  assert.is(failures.length, 1);
  assert.match(failures[0]!.error, /QUEUE_ANSWER_INTERVAL_MS/);
  await runScenarios(['start'], { ...options, serverEnv: { QUEUE_ANSWER_INTERVAL_MS: '10' } }, 1, null, { start });
});

t.run();
