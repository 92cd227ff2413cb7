// The events WebSocket: Basic or ticket authentication, pushed frames, acknowledgement, resume
// after last_event_id, slow consumers closed without losing events, deactivation.
import { connect } from 'node:net';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { EventSpec } from '../../src/actors/event-sequencer.js';
import { writeWithEvents } from '../../src/actors/realm-events.js';
import { eventsSocketRoute, EVENTS_SOCKET_PATH } from '../../src/http/socket.js';
import { startHttpServer, type HttpServer } from '../../src/http/uws.js';
import { assertSuccess } from '../helpers/assert.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let http: HttpServer;
let realm: TestRealm;
let alice: TestUser;

const emit = (...specs: EventSpec[]) =>
  writeWithEvents(server.app.db, realm.handle.events, async (_tx, e) => {
    for (const s of specs) e(s);
  });
const settingEvent = (n: number, userId = alice.id, size = 10): EventSpec => ({
  type: 'user_settings',
  payload: { op: 'update', property: 'n', value: n, pad: 'x'.repeat(size) },
  userIds: [userId],
});

interface Client {
  ws: WebSocket;
  events: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  closed: Promise<{ code: number; reason: string }>;
  next(count: number, timeoutMs?: number): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function open(query: Record<string, string | number>, headers: Record<string, string> = {}): Promise<Client> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const ws = new WebSocket(`ws://127.0.0.1:${http.port}${EVENTS_SOCKET_PATH}?${q}`, { headers: { host: realm.host, ...headers } });
  const events: Client['events'] = [];
  let waiter: (() => void) | null = null;
  ws.on('message', (data) => {
    events.push(...(JSON.parse(data.toString()) as { events: Client['events'] }).events);
    waiter?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    ws.on('open', () =>
      resolve({
        ws,
        events,
        closed,
        next: (count, timeoutMs = 3000) =>
          new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error(`only ${events.length} events of ${count}`)), timeoutMs);
            const check = () => {
              if (events.length >= count) {
                clearTimeout(timer);
                waiter = null;
                res(events.slice(0, count));
              }
            };
            waiter = check;
            check();
          }),
      }),
    );
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body) })));
    });
    ws.on('error', (e) => reject(e));
  });
}

async function refused(p: Promise<Client>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as { status: number; body: Record<string, unknown> };
  }
  throw new Error('expected the upgrade to be refused');
}

const queueFor = async (u: TestUser, params: Record<string, unknown> = {}) =>
  assertSuccess(await u.post('/api/v1/register', { event_types: ['user_settings', 'realm_user'], fetch_event_types: [], ...params } as never)).queue_id as string;

const t = suite('events WebSocket');
t.before(async () => {
  server = await startTestServer({ env: { SOCKET_MAX_BACKPRESSURE_BYTES: '65536', SOCKET_TICKET_TTL_SECONDS: '1' } });
  realm = await server.createRealm();
  alice = await realm.createUser({ name: 'Alice' });
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1 << 20,
    bodyTimeoutMs: 5000,
    log: pino({ level: 'silent' }),
    dispatch: server.dispatcher,
    sockets: { [EVENTS_SOCKET_PATH]: eventsSocketRoute(server.app) },
  });
});
t.after(async () => {
  http.stopListening();
  http.closeAll();
  await server.close();
});

t('pushes events as they happen; acks free them; a reconnect resumes after last_event_id', async () => {
  const queue_id = await queueFor(alice);
  const c = await open({ queue_id, last_event_id: -1 }, { authorization: alice.auth });
  await emit(settingEvent(1));
  await emit(settingEvent(2), settingEvent(3));
  const got = await c.next(3);
  assert.equal(got.map((e) => e.value), [1, 2, 3]);
  assert.ok(got[0].id < got[1].id && got[1].id < got[2].id);
  c.ws.send(JSON.stringify({ ack: got[0].id }));
  c.ws.close();
  await c.closed;
  // Events 2 and 3 were pushed but not acknowledged: a reconnect after event 1 gets them again.
  const again = await open({ queue_id, last_event_id: got[0].id }, { authorization: alice.auth });
  assert.equal((await again.next(2)).map((e) => e.value), [2, 3]);
  again.ws.close();
  // The long-poll endpoint sees the same queue.
  const polled = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: got[1].id, dont_block: true }));
  assert.equal(polled.events.map((e: { value: number }) => e.value), [3]);
});

t('tickets for browsers: single use, short-lived, bound to the organization', async () => {
  const queue_id = await queueFor(alice);
  const { ticket, expires_in } = assertSuccess(await alice.post('/api/v1/events/socket_ticket'));
  assert.type(ticket, 'string');
  assert.is(expires_in, 1);
  const c = await open({ queue_id, ticket });
  await emit(settingEvent(7));
  assert.is((await c.next(1))[0].value, 7);
  c.ws.close();
  const reused = await refused(open({ queue_id, ticket }));
  assert.is(reused.status, 400);
  assert.is(reused.body.msg, 'Invalid or expired ticket');
  const late = assertSuccess(await alice.post('/api/v1/events/socket_ticket')).ticket;
  await new Promise((r) => setTimeout(r, 1100));
  assert.is((await refused(open({ queue_id, ticket: late }))).status, 400);
});

t('refusals: no credentials, wrong key, another user\u2019s queue, unknown queue', async () => {
  const queue_id = await queueFor(alice);
  const bob = await realm.createUser();
  assert.is((await refused(open({ queue_id }))).status, 401);
  assert.is((await refused(open({ queue_id }, { authorization: `Basic ${Buffer.from(`${alice.email}:nope`).toString('base64')}` }))).body.code, 'INVALID_API_KEY');
  const other = await refused(open({ queue_id }, { authorization: bob.auth }));
  assert.is(other.status, 400);
  assert.is(other.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await refused(open({ queue_id: '00000000-0000-4000-8000-000000000000' }, { authorization: alice.auth }))).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await refused(open({}, { authorization: alice.auth }))).body.code, 'REQUEST_VARIABLE_MISSING');
});

t('a bad client message closes the socket; the queue survives', async () => {
  const queue_id = await queueFor(alice);
  const c = await open({ queue_id }, { authorization: alice.auth });
  c.ws.send('not json');
  assert.is((await c.closed).code, 1007);
  const d = await open({ queue_id }, { authorization: alice.auth });
  d.ws.send(JSON.stringify({ hello: 1 }));
  assert.is((await d.closed).code, 1008);
  assertSuccess(await alice.get('/api/v1/events', { queue_id, dont_block: true }));
});

t('an open socket keeps its queue alive past the idle timeout', async () => {
  const queue_id = await queueFor(alice, { idle_queue_timeout: 1 });
  const c = await open({ queue_id }, { authorization: alice.auth });
  await new Promise((r) => setTimeout(r, 1600));
  await emit(settingEvent(9));
  assert.is((await c.next(1))[0].value, 9);
  c.ws.close();
});

t('a slow consumer is closed; the queue keeps its events and the client resumes without loss', async () => {
  const queue_id = await queueFor(alice, { event_types: ['user_settings'] });
  // A raw client that completes the handshake and then stops reading.
  const sock = connect(http.port, '127.0.0.1');
  let closed = false;
  sock.on('close', () => (closed = true));
  sock.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    sock.on('connect', () => {
      sock.write(
        `GET ${EVENTS_SOCKET_PATH}?queue_id=${queue_id} HTTP/1.1\r\nHost: ${realm.host}\r\nAuthorization: ${alice.auth}\r\n` +
          'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    sock.once('data', (d) => {
      assert.match(d.toString(), /^HTTP\/1\.1 101/);
      sock.pause();
      resolve();
    });
  });
  const total = 300;
  for (let i = 0; i < total; i += 50) {
    await emit(...Array.from({ length: 50 }, (_, k) => settingEvent(i + k, alice.id, 64 * 1024)));
  }
  sock.resume(); // drain what the kernel buffered; the server must already have given up on us
  const deadline = Date.now() + 10_000;
  while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(closed, 'the server closed the slow consumer');
  // Nothing was acknowledged: the queue still has every event.
  const c = await open({ queue_id, last_event_id: -1 }, { authorization: alice.auth });
  const all = await c.next(total, 10_000);
  assert.equal(all.map((e) => e.value), Array.from({ length: total }, (_, i) => i));
  c.ws.close();
});

t('deactivating the user closes the socket with BAD_EVENT_QUEUE_ID', async () => {
  const carl = await realm.createUser();
  const queue_id = await queueFor(carl);
  const c = await open({ queue_id }, { authorization: carl.auth });
  await realm.handle.ask('user.setActive', { userId: carl.id, active: false, actorId: null });
  const { code, reason } = await c.closed;
  assert.is(code, 4001);
  assert.is(reason, 'BAD_EVENT_QUEUE_ID');
});

t.run();
