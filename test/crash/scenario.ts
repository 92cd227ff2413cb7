// The crash scenario behind `npm run test:crash`: the real server binary, with its own DATA_DIR,
// database and port, is killed with SIGKILL at random moments while clients send messages
// (retrying each with its Idempotency-Key until it is acknowledged) and long-poll their event
// queues, and is restarted at once, CRASH_KILLS times (default 20). Then:
// - every restart served again within 5 s (the server answers /health, and a client's send is
//   acknowledged again), measured per restart;
// - every acknowledged message is stored exactly once, under the id it was acknowledged with;
// - every queue consumer, resuming with its last_event_id after each crash, received every
//   message event exactly once, with strictly increasing event ids;
// - no request was answered with a 500;
// - every message scheduled (POST /scheduled_messages) to come due during the crashes was sent
//   exactly once, none failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmptyDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
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
  sleep,
  startSenders,
  stats,
  storageProblems,
  storedMessages,
  within,
  type Client,
  type Target,
} from '../helpers/load-clients.js';

/** Polls an asynchronous condition until it holds or `ms` pass. */
async function withinAsync(ms: number, cond: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return true;
    await sleep(100);
  }
  return cond();
}
import { freePort, startServerProcess, type RunningServer } from '../helpers/process.js';

const KILLS = Math.max(1, Number(process.env.CRASH_KILLS ?? 20));
/** The bound: serving resumes within 5 s of each restart. */
const RESUME_BOUND_MS = 5_000;
const CHANNEL = 'crash';
/** A private channel of the scheduling user's alone: the consumers above never see its messages. */
const LATER_CHANNEL = 'crash-later';
/** Scheduled messages, one coming due each second from the third on (about as long as the kills last). */
const SCHEDULED = 30;

interface Restart {
  /** Spawn to /health answering 200. */
  readonly healthyMs: number;
  /** Spawn to the first send acknowledged by the new process. */
  readonly firstAckMs: number;
}

class Harness implements Target {
  server!: RunningServer;
  private env: Record<string, string> = {};
  private db: TestDatabase | null = null;
  private readonly dataDir = mkdtempSync(join(tmpdir(), 'parley-crash-'));
  url = '';
  stopping = false;

  constructor(private readonly backend: 'embedded' | 'postgres') {}

  async open(): Promise<Client> {
    // Rate limits are off: the clients here are deliberately faster than any person.
    this.env = {
      DATA_DIR: this.dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '0',
      PORT: String(await freePort()),
    };
    if (this.backend === 'postgres') {
      this.db = await openEmptyDatabase();
      await this.db.pool.end();
      this.env.DATABASE_URL = this.db.testUrl!;
    }
    this.server = await startServerProcess(this.env);
    this.url = this.server.url;
    return printedOwner(this.server.output());
  }

  createUser(name: string): Promise<Client & { id: number }> {
    return cliUser(this.env, name);
  }

  /** SIGKILL, then start again; resolves when /health answers, with the moment of the spawn. */
  async crashAndRestart(): Promise<{ spawnedAt: number; healthyMs: number }> {
    await this.server.stop('SIGKILL');
    const spawnedAt = Date.now();
    this.server = await startServerProcess(this.env);
    return { spawnedAt, healthyMs: Date.now() - spawnedAt };
  }

  async close(): Promise<void> {
    this.stopping = true;
    if (this.server?.child.exitCode === null) await this.server.stop('SIGKILL');
    if (this.db) await this.db.close().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function crashSuite(backend: 'embedded' | 'postgres'): void {
  const t = suite(`crash test on ${backend === 'postgres' ? 'Postgres' : 'the embedded database'}`);
  if (backend === 'postgres' && !serverUrl()) {
    console.log('Skipped on Postgres: set TEST_DATABASE_URL (or DATABASE_URL) to a server where databases can be created.');
    t.skip('crashes on Postgres', () => undefined);
    t.run();
    return;
  }
  const h = new Harness(backend);
  const log = new LoadLog();
  const restarts: Restart[] = [];
  let stored = new Map<string, number[]>();
  let owner: Client;
  let senders: Client[] = [];
  let scheduler: Client;
  let lastDueMs = 0;

  t.before(async () => {
    owner = await h.open();
    const [ann, ben, cid, dana, erin] = [await h.createUser('ann'), await h.createUser('ben'), await h.createUser('cid'), await h.createUser('dana'), await h.createUser('erin')];
    await createChannel(h, owner, CHANNEL, [ann, ben, cid, dana, erin].map((u) => u.id));
    // Three kinds of queue: only messages, every event, and a narrow to the channel.
    log.consumers.push(
      await registerConsumer(h, dana, 'dana: message events', { event_types: '["message"]' }),
      await registerConsumer(h, dana, 'dana: every event', {}),
      await registerConsumer(h, erin, 'erin: narrow to the channel', { event_types: '["message"]', narrow: JSON.stringify([['channel', CHANNEL]]) }),
      await registerConsumer(h, ann, 'ann (a sender): message events', { event_types: '["message"]' }),
    );
    senders = [ann, ben, cid];
    scheduler = await h.createUser('fay');
    const made = await apiCall(h, scheduler, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: LATER_CHANNEL }]), invite_only: 'true' });
    assert.is(made.status, 200, JSON.stringify(made.body));
    const first = Math.ceil(Date.now() / 1000) + 3;
    for (let k = 0; k < SCHEDULED; k++) {
      const r = await apiCall(h, scheduler, 'POST', '/scheduled_messages', {
        type: 'stream',
        to: LATER_CHANNEL,
        topic: 'later',
        content: `scheduled ${k}`,
        scheduled_delivery_timestamp: String(first + k),
      });
      assert.is(r.status, 200, JSON.stringify(r.body));
    }
    lastDueMs = (first + SCHEDULED - 1) * 1000;
  });
  t.after(() => h.close());

  t(`${KILLS} SIGKILLs under load: every restart serves again within ${RESUME_BOUND_MS / 1000} s`, async () => {
    const sending = startSenders(h, log, senders, CHANNEL);
    const consuming = log.consumers.map((q) => consume(h, log, q));
    assert.ok(await within(10_000, () => log.acks.length > 0), 'the first message is acknowledged');
    for (let k = 0; k < KILLS; k++) {
      // Kill at a random moment of the load, sometimes right after serving resumed.
      await sleep(Math.random() * 1_000);
      const before = log.acks.length;
      const { spawnedAt, healthyMs } = await h.crashAndRestart();
      const resumed = () => log.acks.find((a, i) => i >= before && a.at > spawnedAt);
      await within(RESUME_BOUND_MS * 3, () => resumed() !== undefined);
      restarts.push({ healthyMs, firstAckMs: (resumed()?.at ?? Infinity) - spawnedAt });
    }
    await sending.stop();
    const drained = await finishConsumers(h, log, owner, CHANNEL, consuming);
    stored = await storedMessages(h, owner, CHANNEL);

    console.log(
      [
        `\n[${backend}] ${restarts.length} kills (SIGKILL) and restarts`,
        `  spawn → /health 200: ${stats(restarts.map((r) => r.healthyMs))}`,
        `  spawn → first acknowledged send: ${stats(restarts.map((r) => r.firstAckMs))}`,
        `  each restart, spawn → /health (ms): ${restarts.map((r) => r.healthyMs).join(' ')}`,
        `  messages acknowledged: ${log.acks.length} (${log.acks.filter((a) => a.attempts > 1).length} needed retries with their Idempotency-Key); stored: ${[...stored.values()].reduce((n, ids) => n + ids.length, 0)}`,
        ...consumerSummary(log),
        `  responses by status: ${log.statusSummary()}`,
      ].join('\n'),
    );
    assert.ok(drained, 'every consumer received the final message within 30 s');
    assert.equal(log.unexpected, [], 'only 200 or 503 answers to sends');
    assert.is(log.statuses.get(500) ?? 0, 0, 'no 500 answers');
    for (const [k, r] of restarts.entries()) {
      assert.ok(r.healthyMs < RESUME_BOUND_MS, `restart ${k + 1}: /health answered after ${r.healthyMs} ms`);
      assert.ok(r.firstAckMs < RESUME_BOUND_MS, `restart ${k + 1}: first send acknowledged after ${r.firstAckMs} ms`);
    }
  });

  t('every acknowledged message is stored exactly once, under the id it was acknowledged with', () => {
    assert.ok(log.acks.length > KILLS, `${log.acks.length} messages`);
    assert.equal(storageProblems(log.acks, stored), []);
  });

  t('every consumer received every message event exactly once, with strictly increasing ids', () => {
    assertConsumersComplete(log);
  });

  t('every message scheduled to come due during the crashes was sent exactly once', async () => {
    const pending = async () => (await apiCall(h, scheduler, 'GET', '/scheduled_messages', {})).body.scheduled_messages as unknown[] | undefined;
    await sleep(Math.max(0, lastDueMs - Date.now()));
    const left = async () => ((await pending()) ?? [null]).length;
    assert.ok(await withinAsync(15_000, async () => (await left()) === 0), `${await left()} of ${SCHEDULED} still scheduled`);
    const sent = await storedMessages(h, scheduler, LATER_CHANNEL);
    const wrong = Array.from({ length: SCHEDULED }, (_, k) => `scheduled ${k}`).filter((c) => sent.get(c)?.length !== 1);
    assert.equal(wrong.map((c) => `${c}: ${sent.get(c)?.length ?? 0} copies`), []);
    assert.is(sent.size, SCHEDULED, 'nothing else in the channel');
  });

  t('after the crashes a graceful stop still exits 0', async () => {
    assert.is(await h.server.stop('SIGTERM'), 0);
  });

  t.run();
}
