// Durable queues across crashes: the real server is killed with SIGKILL while a client long-polls,
// restarted, and the client resumes with its last_event_id: every event after it arrives exactly
// once, in increasing id order. A graceful stop (SIGTERM) answers parked polls, closes WebSockets
// with 1001, saves every queue's cursor and exits within 10 s; clients then resume without loss.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmptyDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import WebSocket from 'ws';
import { within } from '../helpers/load-clients.js';
import { httpRequest, runCli, startServerProcess, type RunningServer } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const dataDir = tempDir('parley-durable-');
let env: Record<string, string>;
let db: TestDatabase | null = null;
let server: RunningServer;
let auth: string;
let port: number;

type Event = { id: number; type: string; person?: { user_id: number; full_name: string } };

async function api(method: string, path: string, params: Record<string, string> = {}) {
  const q = new URLSearchParams(params).toString();
  const r = await httpRequest(`${server.url}/api/v1${path}${method === 'GET' && q ? `?${q}` : ''}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: method === 'GET' ? undefined : q,
  });
  return { status: r.status, body: r.json() as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function createUser(name: string): Promise<void> {
  const r = await runCli(['user', 'create', '--email', `${name.toLowerCase()}@example.com`, '--name', name, '--json'], env);
  assert.is(r.code, 0, r.stderr + r.stdout);
}

const names = (events: Event[]) => events.filter((e) => e.type === 'realm_user').map((e) => e.person!.full_name);

const t = suite('durable event queues');
t.before(async () => {
  env = { DATA_DIR: dataDir, HEARTBEAT_MS: '60000', QUEUE_FLUSH_INTERVAL_MS: '60000', LOG_LEVEL: 'warn' };
  if (serverUrl()) {
    db = await openEmptyDatabase();
    await db.pool.end();
    env.DATABASE_URL = db.testUrl!;
  }
  server = await startServerProcess(env);
  port = Number(new URL(server.url).port);
  env.PORT = String(port);
  const out = server.output();
  const email = /Owner:\s+(\S+)/.exec(out)![1];
  const key = /API key:\s+(\S+)/.exec(out)![1];
  auth = `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;
});
t.after(async () => {
  // Unset when before() failed: its error is the one to report. Stopping an ended server resolves at once.
  await server?.stop('SIGKILL');
  if (db) await db.close().catch(() => undefined);
});

t('kill -9 mid-stream, restart, resume: nothing missing, nothing repeated', async () => {
  const reg = await api('POST', '/register', { event_types: '["realm_user"]', fetch_event_types: '[]' });
  assert.is(reg.status, 200);
  const queueId: string = reg.body.queue_id;
  for (const n of ['Ann', 'Ben', 'Cid', 'Dee']) await createUser(n);
  const first = await api('GET', '/events', { queue_id: queueId, last_event_id: '-1', dont_block: 'true' });
  assert.equal(names(first.body.events), ['Ann', 'Ben', 'Cid', 'Dee']);
  // The client processed Ann and Ben only, and is long-polling when the server dies.
  const acked: number = first.body.events[1].id;
  const parked = api('GET', '/events', { queue_id: queueId, last_event_id: String(acked) }).catch((e: Error) => e);
  await new Promise((r) => setTimeout(r, 200));
  await server.stop('SIGKILL');
  await parked; // answered (Cid, Dee) or cut off: either way the client resumes from `acked`

  server = await startServerProcess(env);
  const resumed = await api('GET', '/events', { queue_id: queueId, last_event_id: String(acked), dont_block: 'true' });
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(names(resumed.body.events), ['Cid', 'Dee']);
  const lastBefore: number = resumed.body.events.at(-1).id;

  // Crash again right after new events are committed and before any flush.
  await createUser('Eve');
  await server.stop('SIGKILL');
  server = await startServerProcess(env);
  await createUser('Fay');
  const after = await api('GET', '/events', { queue_id: queueId, last_event_id: String(lastBefore) });
  const got: Event[] = after.body.events;
  assert.equal(names(got), ['Eve', 'Fay']);
  const ids = [...resumed.body.events, ...got].map((e: Event) => e.id);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `ids increase: ${ids.join(',')}`);
});

t('repeated crashes: every event exactly once across restarts', async () => {
  const reg = await api('POST', '/register', { event_types: '["realm_user"]', fetch_event_types: '[]' });
  const queueId: string = reg.body.queue_id;
  const seen: string[] = [];
  let last = -1;
  for (let round = 0; round < 3; round++) {
    await createUser(`Round${round}a`);
    await createUser(`Round${round}b`);
    const r = await api('GET', '/events', { queue_id: queueId, last_event_id: String(last), dont_block: 'true' });
    const evs: Event[] = r.body.events;
    // Acknowledge only the first of the two before crashing.
    seen.push(names(evs)[0]!);
    last = evs[0]!.id;
    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    const again = await api('GET', '/events', { queue_id: queueId, last_event_id: String(last), dont_block: 'true' });
    seen.push(...names(again.body.events));
    last = again.body.events.at(-1).id;
  }
  assert.equal(seen, ['Round0a', 'Round0b', 'Round1a', 'Round1b', 'Round2a', 'Round2b']);
});

t('SIGTERM: parked polls answered, sockets closed with 1001, cursors saved, exit within 10 s; clients resume', async () => {
  const queue = async () => (await api('POST', '/register', { event_types: '["realm_user"]', fetch_event_types: '[]' })).body.queue_id as string;
  const [polled, socketed, caughtUp] = [await queue(), await queue(), await queue()];
  // The socket's client acknowledges Hal only; the other two long-poll, up to date, when the stop comes.
  const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/events/socket?queue_id=${socketed}&last_event_id=-1`, {
    headers: { authorization: auth },
  });
  const frames: Event[] = [];
  socket.on('message', (d) => frames.push(...(JSON.parse(d.toString()) as { events: Event[] }).events));
  await new Promise((r, j) => socket.once('open', r).once('error', j));
  await createUser('Hal');
  await within(5_000, () => frames.length === 1);
  socket.send(JSON.stringify({ ack: frames[0]!.id }));
  await createUser('Ida'); // delivered on the socket, not acknowledged
  await within(5_000, () => frames.length === 2);
  const closed = new Promise<number>((r) => socket.once('close', (code) => r(code)));
  const first = await api('GET', '/events', { queue_id: polled, last_event_id: '-1', dont_block: 'true' });
  assert.equal(names(first.body.events), ['Hal', 'Ida']);
  const idaId = String(first.body.events[1].id);
  const parked = [
    api('GET', '/events', { queue_id: polled, last_event_id: idaId }),
    api('GET', '/events', { queue_id: caughtUp, last_event_id: idaId }),
  ];
  await new Promise((r) => setTimeout(r, 300));

  const started = Date.now();
  const exited = server.stop('SIGTERM');
  // A client polls again as soon as it is answered: while the server stops it is told to retry
  // (or finds the server gone), never that its queue is gone.
  const again = parked[0].then(() => api('GET', '/events', { queue_id: polled, last_event_id: idaId }).catch((e: Error) => e));
  for (const answer of await Promise.all(parked)) {
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.events, [], 'a parked poll is answered (nothing new)');
  }
  assert.is(await closed, 1001, 'the WebSocket is closed with 1001 (going away)');
  const retry = await again;
  if (!(retry instanceof Error)) assert.equal([retry.status, retry.body.code], [503, 'SERVICE_UNAVAILABLE'], JSON.stringify(retry.body));
  assert.is(await exited, 0, 'exit code');
  const stopMs = Date.now() - started;
  assert.ok(stopMs < 10_000, `stopped after ${stopMs} ms`);

  server = await startServerProcess(env);
  await createUser('Jo');
  // Cursors were saved at the stop (the flush interval here is a minute): each queue resumes
  // after what its client acknowledged, even asked from the start.
  const fromStart = async (q: string) => names((await api('GET', '/events', { queue_id: q, last_event_id: '-1', dont_block: 'true' })).body.events);
  assert.equal(await fromStart(socketed), ['Ida', 'Jo'], 'the socket acknowledged Hal');
  assert.equal(await fromStart(polled), ['Jo'], 'the pollers acknowledged Hal and Ida');
  assert.equal(await fromStart(caughtUp), ['Jo']);
  await server.stop('SIGTERM');
});

t.run();
