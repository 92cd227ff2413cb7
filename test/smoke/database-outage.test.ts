// Database outages: the real server runs on a private Postgres cluster (initdb in a temporary
// directory, its own port) that is stopped and started again while clients send messages and
// long-poll, once with a clean stop (`pg_ctl -m fast`) and once with a crash (`-m immediate`).
// While it is down, requests that need it are answered at once with 503 SERVICE_UNAVAILABLE, the
// process stays up and its memory stays bounded; once it is back, Parley serves again within 5 s
// by itself, and no acknowledged message or event is lost or repeated.
// Skipped when initdb and pg_ctl are not installed (they are looked for under
// /usr/lib/postgresql/*/bin, or in PG_BIN).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  apiCall,
  assertConsumersComplete,
  cliUser,
  consume,
  consumerSummary,
  createChannel,
  finishConsumers,
  LoadLog,
  printedOwner,
  registerConsumer,
  startSenders,
  stats,
  storageProblems,
  storedMessages,
  within,
  type Answer,
  type Client,
  type Target,
} from '../helpers/load-clients.js';
import { createPrivateCluster, findPostgresBin, type PrivateCluster } from '../helpers/private-postgres.js';
import { freePort, httpRequest, startServerProcess, type RunningServer } from '../helpers/process.js';

/** The bound: Parley serves again within 5 s of the database's return. */
const RECOVERY_BOUND_MS = 5_000;
/** "Fail fast": an answer while the database is down takes less than this (DB_CONNECT_TIMEOUT_MS is 5 s). */
const FAIL_FAST_MS = 2_000;
/** Requests sent at once during each outage, 50 at a time, far more than the pool's connections. */
const BURST = 1_000;
const OUTAGE_MS = 3_000;
/** How much the process may grow while Postgres is down (RSS, after one outage under load). */
const MEMORY_BOUND_KB = 128 * 1024;
const CHANNEL = 'outage';

const bin = findPostgresBin();
const t = suite('database outage');

if (!bin) {
  console.log('Skipped: initdb and pg_ctl were not found under /usr/lib/postgresql/*/bin (set PG_BIN to their directory).');
  t.skip('Postgres stopped and started under load', () => undefined);
} else {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-outage-'));
  const target: Target & { url: string } = { url: '', stopping: false };
  const log = new LoadLog();
  const probes: Array<Answer & { what: string; mode: string }> = [];
  let cluster: PrivateCluster;
  let server: RunningServer;
  let env: Record<string, string>;
  let owner: Client;
  let sending: { stop(): Promise<void> };
  let consuming: Promise<void>[];

  const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]);

  t.before(async () => {
    cluster = await createPrivateCluster(bin);
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: cluster.url,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '0',
      PORT: String(await freePort()),
    };
    server = await startServerProcess(env);
    target.url = server.url;
    owner = printedOwner(server.output());
    const [ann, ben, dana] = [await cliUser(env, 'ann'), await cliUser(env, 'ben'), await cliUser(env, 'dana')];
    await createChannel(target, owner, CHANNEL, [ann.id, ben.id, dana.id]);
    log.consumers.push(
      await registerConsumer(target, dana, 'dana: message events', { event_types: '["message"]' }),
      await registerConsumer(target, dana, 'dana: every event', {}),
      await registerConsumer(target, ann, 'ann (a sender): message events', { event_types: '["message"]' }),
    );
    sending = startSenders(target, log, [ann, ben], CHANNEL);
    consuming = log.consumers.map((q) => consume(target, log, q));
    assert.ok(await within(10_000, () => log.acks.length > 0), 'the first message is acknowledged');
  });

  t.after(async () => {
    target.stopping = true;
    if (server?.child.exitCode === null) await server.stop('SIGKILL');
    await cluster?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const health = async (): Promise<Answer> => {
    const at = Date.now();
    const r = await httpRequest(`${target.url}/health`, { timeoutMs: 20_000 });
    return { status: r.status, body: r.json() as Answer['body'], at, ms: Date.now() - at };
  };

  /** One request of each kind that needs the database, plus the health check. */
  const probeOnce = async (mode: string, n: number) => {
    const calls: Array<[string, Promise<Answer>]> = [
      ['POST /messages', apiCall(target, owner, 'POST', '/messages', { type: 'stream', to: CHANNEL, topic: 'probe', content: `probe ${mode} ${n}` })],
      ['GET /messages', apiCall(target, owner, 'GET', '/messages', { anchor: 'newest', num_before: '5', num_after: '0' })],
      ['POST /register', apiCall(target, owner, 'POST', '/register', { event_types: '["message"]', fetch_event_types: '["message"]' })],
      ['GET /health', health()],
    ];
    for (const [what, p] of calls) probes.push({ ...(await p), what, mode });
  };

  for (const mode of ['fast', 'immediate'] as const) {
    t(`Postgres stopped (${mode}) under load: requests needing it fail fast with 503 SERVICE_UNAVAILABLE`, async () => {
      const ackedBefore = log.acks.length;
      await within(5_000, () => log.acks.length > ackedBefore + 5);
      await cluster.stop(mode);
      const downAt = Date.now();
      const rssBefore = rssKb();
      for (let n = 0; Date.now() - downAt < OUTAGE_MS; n++) await probeOnce(mode, n);
      // A burst far above the pool size: every request is answered at once, nothing piles up.
      const burst: Answer[] = [];
      for (let i = 0; i < BURST; i += 50) {
        const wave = Array.from({ length: 50 }, (_, j) =>
          apiCall(target, owner, 'POST', '/messages', { type: 'stream', to: CHANNEL, topic: 'burst', content: `burst ${mode} ${i + j}` }),
        );
        burst.push(...(await Promise.all(wave)));
      }
      const rssGrowthKb = rssKb() - rssBefore;
      const mine = probes.filter((p) => p.mode === mode);
      const duringOutage = [...mine, ...burst, ...log.sendAnswers.filter((a) => a.at > downAt)];
      console.log(
        `[${mode}] ${duringOutage.length} answers while Postgres was down: ${stats(duringOutage.map((a) => a.ms))}; memory growth ${Math.round(rssGrowthKb / 1024)} MB`,
      );
      assert.is(server.child.exitCode, null, 'the server is still running');
      const wrong = duringOutage.filter((a) => a.status !== 503 || a.body.result !== 'error' || a.body.code !== 'SERVICE_UNAVAILABLE');
      // /health answers its own shape: {status: "unavailable", database: "unreachable"}.
      const health = wrong.filter((a) => a.status === 503 && a.body.status === 'unavailable' && a.body.database === 'unreachable');
      assert.equal(
        wrong.filter((a) => !health.includes(a)).map((a) => `${a.status} ${JSON.stringify(a.body)}`),
        [],
        'every answer is a 503 SERVICE_UNAVAILABLE',
      );
      assert.ok(mine.some((p) => p.what === 'GET /health') && health.length > 0, '/health reports the database unreachable');
      const slow = duringOutage.filter((a) => a.ms > FAIL_FAST_MS);
      assert.equal(slow.map((a) => `${a.ms} ms`), [], `every answer within ${FAIL_FAST_MS} ms`);
      // The heap grows while it absorbs several thousand requests in a few seconds: 9 to 69 MB
      // seen on a busy 2-core machine, less in the second outage than in the first. This bound
      // is for growth without end, e.g. requests held while waiting for the pool.
      assert.ok(rssGrowthKb < MEMORY_BOUND_KB, `memory grew by ${rssGrowthKb} kB`);
    });

    t(`after the ${mode} stop, Parley serves again within 5 s of Postgres' return, by itself`, async () => {
      await cluster.start();
      const upAt = Date.now();
      const resumed = () => log.acks.find((a) => a.at > upAt);
      await within(RECOVERY_BOUND_MS * 3, () => resumed() !== undefined);
      const ms = (resumed()?.at ?? Infinity) - upAt;
      console.log(`[${mode}] first acknowledged send ${ms} ms after Postgres accepted connections again`);
      assert.ok(ms < RECOVERY_BOUND_MS, `recovered after ${ms} ms`);
      const h = await health();
      assert.is(h.status, 200, JSON.stringify(h.body));
    });
  }

  t('the server logged the outage as warnings, not errors', () => {
    const errors = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 50);
    assert.equal(errors, []);
  });

  t('no acknowledged message or event was lost or repeated, and live delivery resumed', async () => {
    await sending.stop();
    const drained = await finishConsumers(target, log, owner, CHANNEL, consuming);
    const stored = await storedMessages(target, owner, CHANNEL);
    // Probes and the burst were refused while the database was down: none of them is stored.
    const sent = new Map([...stored].filter(([content]) => content.startsWith('message ')));
    const refused = [...stored.keys()].filter((c) => !c.startsWith('message '));
    console.log(
      [
        `messages acknowledged: ${log.acks.length} (${log.acks.filter((a) => a.attempts > 1).length} retried with their Idempotency-Key)`,
        ...consumerSummary(log),
        `responses by status: ${log.statusSummary()}`,
      ].join('\n'),
    );
    assert.equal(log.unexpected, [], 'only 200 or 503 answers to sends');
    assert.equal(storageProblems(log.acks, sent), []);
    assert.equal(refused, [], 'requests refused with 503 stored nothing');
    // Live delivery once the database is back. It used to stall in about 1 run of 8 beside the
    // model test and the fuzzer: slonik failed a write's transaction on a connection error while
    // its handler ran on and reserved event ids, which then held the release order for good
    // (fixed in writeWithEvents). On failure, the message says what each queue still holds.
    if (!drained) {
      const lines = ['consumers did not receive every message event within 30 s after the outages'];
      for (const q of log.consumers) {
        const r = await apiCall(target, q.client, 'GET', '/events', { queue_id: q.queueId, last_event_id: String(q.last), dont_block: 'true' });
        const held = (r.body.events ?? []) as unknown[];
        lines.push(`${q.label}: last event ${q.last}; the queue holds ${held.length} more (${r.status})`);
      }
      assert.unreachable(lines.join('\n'));
    }
    assertConsumersComplete(log);
  });

  t('SIGTERM while Postgres is down: the server still stops within 10 s', async () => {
    await cluster.stop('immediate');
    const started = Date.now();
    const code = await server.stop('SIGTERM');
    const ms = Date.now() - started;
    assert.ok(ms < 10_000, `stopped after ${ms} ms`);
    assert.is(code, 0, server.output().split('\n').slice(-5).join('\n'));
  });
}

t.run();
