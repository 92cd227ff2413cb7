// Queues rebuilt from their descriptor and the event log by a fresh process on the same database,
// downtime credited to idle clocks, log trimming, and the register/events race.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { writeWithEvents } from '../../src/actors/realm-events.js';
import { createApp, type App } from '../../src/app.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { newServerSecret, secretFromBase64 } from '../../src/domain/secrets.js';
import { createDispatcher } from '../../src/http/dispatch.js';
import { apiRoutes, siteRoutes } from '../../src/http/routes.js';
import { creditDowntime, downtime, insertQueue, markAlive } from '../../src/store/queues.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents } from '../helpers/consistency.js';
import { within } from '../helpers/load-clients.js';
import { startTestServer, TestServer, type TestRealm, type TestUser } from '../helpers/server.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: TestServer;
let realm: TestRealm;
let alice: TestUser;
const secret = secretFromBase64(newServerSecret());

/** A second process image on the same database (what a restart after a crash looks like). */
async function secondApp(pool = server.db.pool, appSecret = secret, clock?: Clock): Promise<{ app: App; server: TestServer }> {
  const config = parseConfig({ DATA_DIR: tempDir('parley-restore-'), LOG_LEVEL: 'silent', QUEUE_FLUSH_INTERVAL_MS: '3600000' });
  const app = await createApp({ config, log: pino({ level: 'silent' }), database: { ...server.db, pool }, secret: appSecret, ...(clock ? { clock } : {}) });
  return { app, server: new TestServer(app, createDispatcher(app, { api: apiRoutes, site: siteRoutes }), server.db, server.clock) };
}

const t = suite('restore after a crash');
t.before(async () => {
  server = await startTestServer({ env: { QUEUE_FLUSH_INTERVAL_MS: '3600000' } });
  realm = await server.createRealm();
  alice = await realm.createUser({ name: 'Alice' });
});

t('a queue comes back with every unacknowledged event, in order, once', async () => {
  // Both "processes" are second apps sharing one server secret, so the API key stays valid.
  const first = await secondApp();
  const r1 = first.server;
  const handle = await r1.app.realms.get(realm.id);
  const { user, apiKey } = await handle.ask('user.create', { email: 'ivy@example.com', fullName: 'Ivy', role: 400, passwordHash: null });
  const auth = `Basic ${Buffer.from(`${user.email}:${apiKey}`).toString('base64')}`;
  const call = (s: TestServer, method: string, path: string, params: Record<string, unknown> = {}) =>
    s.request(method, path, params as never, { host: realm.host, auth });
  const reg = assertSuccess(await call(r1, 'POST', '/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] }));
  for (const name of ['One', 'Two', 'Three']) {
    await handle.ask('user.create', { email: `${name}@example.com`, fullName: name, role: 400, passwordHash: null });
  }
  const seen = assertSuccess(await call(r1, 'GET', '/api/v1/events', { queue_id: reg.queue_id, dont_block: true })).events;
  assert.equal(seen.map((e: { person: { full_name: string } }) => e.person.full_name), ['One', 'Two', 'Three']);
  // "Crash": the first process stops without shutting its queues down (no final flush).
  first.app.runtime.stop();
  const second = await secondApp();
  const resumed = assertSuccess(await call(second.server, 'GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: seen[0].id, dont_block: true }));
  assert.equal(resumed.events.map((e: { id: number }) => e.id), [seen[1].id, seen[2].id]);
  // New events after the restart follow, with larger ids.
  const h2 = await second.app.realms.get(realm.id);
  await h2.ask('user.create', { email: 'four@example.com', fullName: 'Four', role: 400, passwordHash: null });
  const more = assertSuccess(await call(second.server, 'GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: seen[2].id }));
  assert.is(more.events.length, 1);
  assert.is(more.events[0].person.full_name, 'Four');
  assert.ok(more.events[0].id > seen[2].id);
  await second.app.close();
});

t('a queue whose restore fails in an outage answers 503, and the next request restores it whole', async () => {
  // The second process's pool loses its connection for multi-row reads while `down` is set.
  let down = false;
  const pool = new Proxy(server.db.pool, {
    get(target, name) {
      if (name === 'any' && down) return () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
      return Reflect.get(target, name) as unknown;
    },
  });
  const second = await secondApp(pool, server.app.secret);
  // The queue is created by this process after the second one started: it restores it lazily.
  const reg = assertSuccess(await alice.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] }));
  const zoe = await realm.createUser({ name: 'Zoe' });
  const poll = () =>
    second.server.request('GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true }, { host: realm.host, auth: alice.auth });
  down = true;
  assertError(await poll(), 'The database is temporarily unavailable; retry later', 503, 'SERVICE_UNAVAILABLE');
  down = false;
  // (Events the other processes of this file logged come along: their ids are from other blocks.)
  const ids = assertSuccess(await poll()).events.map((e: { person: { user_id: number } }) => e.person.user_id);
  assert.is(ids.filter((id: number) => id === zoe.id).length, 1, `Zoe's event once in ${ids.join(', ')}`);
  // Restored under another actor name while the failed one still answers late messages, and found
  // by its id from then on: the next requests reach the same queue, which holds its events.
  const queues = (await second.app.realms.get(realm.id)).queues;
  const restored = await queues.get(reg.queue_id);
  assert.is(restored?.name, `${reg.queue_id}.1`);
  assert.is(restored?.id, reg.queue_id);
  const listed = queues.size;
  const again = assertSuccess(await poll()).events.map((e: { person: { user_id: number } }) => e.person.user_id);
  assert.equal(again, ids, 'the same queue answers, with the events it holds');
  assert.is(await queues.get(reg.queue_id), restored);
  assert.is(queues.size, listed, 'restored once');
  await second.app.close();
});

t('a queue restored while an earlier write is still in flight misses none of its events', async () => {
  const second = await secondApp(server.db.pool, server.app.secret);
  // Created by this process after the second one started: the second restores it lazily.
  const reg = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: [] }));
  const stream = (await second.app.realms.get(realm.id)).events;
  // In the second process, a write has reserved its ids and not committed yet (no database
  // transaction is held: the embedded database has a single connection)...
  const inFlight = { query: async () => ({ rows: [] }), one: (q: never) => server.db.pool.one(q) } as unknown as Parameters<typeof stream.append>[0];
  const held = await stream.append(inFlight, [{ type: 'custom', payload: { n: 'held' }, userIds: [alice.id] }]);
  // ...while a later one commits: it is in the log, but released only after the held one.
  await writeWithEvents(server.db.pool, stream, async (_tx, emit) => emit({ type: 'custom', payload: { n: 'later' }, userIds: [alice.id] }));
  const poll = (last: number) =>
    second.server.request('GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true }, { host: realm.host, auth: alice.auth });
  type Ev = { id: number; type: string; n?: string };
  const custom = (es: Ev[]) => es.filter((e) => e.type === 'custom').map((e) => e.n);
  // The restore reads the log only up to what was released: "later" comes live, after "held".
  // Read from the log, it used to come at once, and "held" was then skipped as already passed.
  const first: Ev[] = assertSuccess(await poll(-1)).events;
  stream.committed(held.ticket, held.events);
  const rest: Ev[] = assertSuccess(await poll(first.at(-1)?.id ?? -1)).events;
  assert.equal(custom([...first, ...rest]), ['held', 'later']);
  await second.app.close();
});

t('events released while the start-up restore reads the log come after the log\'s, none skipped', async () => {
  // Once `gate` is set, the second process's second multi-row read (the restore's read of the
  // log, after its read of the queues) waits for it.
  let gate: Promise<void> | null = null;
  let reads = 0;
  const pool = new Proxy(server.db.pool, {
    get(target, name) {
      const real = Reflect.get(target, name) as unknown;
      if (name !== 'any' || typeof real !== 'function') return real;
      return async (...args: unknown[]) => {
        if (gate && ++reads === 2) await gate;
        return (real as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const second = await secondApp(pool, server.app.secret);
  const handle = await second.app.realms.get(realm.id);
  // A queue the second process does not have yet, and an event for it in the log.
  const reg = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: [] }));
  await writeWithEvents(server.db.pool, handle.events, async (_tx, emit) => emit({ type: 'custom', payload: { n: 'logged' }, userIds: [alice.id] }));
  let open!: () => void;
  gate = new Promise<void>((r) => (open = r));
  // The restore registers the queue, then waits to read the log; an event is released meanwhile.
  const restoring = handle.queues.restoreAll();
  assert.ok(await within(5_000, () => reads === 2), 'the restore reads the log');
  await writeWithEvents(server.db.pool, handle.events, async (_tx, emit) => emit({ type: 'custom', payload: { n: 'live' }, userIds: [alice.id] }));
  open();
  assert.is(await restoring, 1);
  const got = assertSuccess(
    await second.server.request('GET', '/api/v1/events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true }, { host: realm.host, auth: alice.auth }),
  ).events as Array<{ type: string; n?: string }>;
  // (Earlier tests of this file logged custom events for Alice too.)
  assert.equal(got.filter((e) => e.n === 'logged' || e.n === 'live').map((e) => e.n), ['logged', 'live']);
  await second.app.close();
});

t('downtime is credited to idle clocks; a queue idle past its timeout before the crash is gone', async () => {
  const db = server.app.db;
  const now = Date.now();
  const ids = { kept: '11111111-1111-4111-8111-111111111111', gone: '22222222-2222-4222-8222-222222222222' };
  for (const [id, idleSecs] of [[ids.kept, 60], [ids.gone, 5]] as const) {
    await db.query(sql.unsafe`
      INSERT INTO event_queues (id, realm_id, user_id, descriptor, start_event_id, acked_event_id, idle_timeout_secs, last_contact)
      VALUES (${id}, ${realm.id}, ${alice.id}, ${sql.jsonb({ eventTypes: null, narrow: [], allPublicStreams: false, capabilities: {}, applyMarkdown: false, clientExtavatar: true })},
              0, 0, ${idleSecs}, to_timestamp(${(now - 100_000) / 1000}))`);
  }
  // The server was last alive 90 s ago (it died 10 s after the clients' last contact).
  await markAlive(db, now - 90_000);
  const credited = await downtime(db, now);
  assert.is(credited, 90_000);
  await creditDowntime(db, credited, now);
  assert.is(await downtime(db, now), 0, 'marked alive with the credit');
  const contact = await db.oneFirst(sql.type(z.object({ ms: z.number() }))`
    SELECT (extract(epoch FROM last_contact) * 1000)::float8 AS ms FROM event_queues WHERE id = ${ids.kept}`);
  assert.ok(Math.abs(contact - (now - 10_000)) < 1000, `last contact moved to ~10 s ago (${now - contact} ms)`);
  assertSuccess(await alice.get('/api/v1/events', { queue_id: ids.kept, dont_block: true }));
  assertError(await alice.get('/api/v1/events', { queue_id: ids.gone, dont_block: true }), `Bad event queue ID: ${ids.gone}`, 400, 'BAD_EVENT_QUEUE_ID');
});

t('DELETE /events deletes its row at once and writes no other queue\'s', async () => {
  const db = server.app.db;
  const cursor = (id: string) =>
    db.maybeOneFirst(sql.type(z.object({ acked: z.number() }))`SELECT acked_event_id::int AS acked FROM event_queues WHERE id = ${id}`);
  const register = async () => assertSuccess(await alice.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] })).queue_id as string;
  const [ended, other] = [await register(), await register()];
  await realm.createUser();
  const evs = assertSuccess(await alice.get('/api/v1/events', { queue_id: other, dont_block: true })).events;
  assertSuccess(await alice.get('/api/v1/events', { queue_id: other, last_event_id: evs.at(-1).id, dont_block: true }));
  const saved = await cursor(other);
  assert.ok(saved !== null && saved < evs.at(-1).id, 'the acknowledgement waits for a flush');
  assertSuccess(await alice.delete('/api/v1/events', { queue_id: ended }));
  assert.is(await cursor(ended), null, 'the ended queue has no row');
  assert.is(await cursor(other), saved, 'the other queue is not written');
  await realm.handle.queues.flush();
  assert.is(await cursor(other), evs.at(-1).id);
});

t('a flush whose write fails writes the same cursors at the next flush', async () => {
  let refuse = true;
  const pool = new Proxy(server.db.pool, {
    get(target, name) {
      if (name !== 'query') return Reflect.get(target, name) as unknown;
      return async (q: { sql: string }) => {
        if (refuse && /UPDATE event_queues q SET acked_event_id/.test(q.sql)) throw new Error('write refused');
        return target.query(q as never);
      };
    },
  });
  const second = await secondApp(pool, server.app.secret);
  try {
    const call = (method: string, path: string, params: Record<string, unknown>) =>
      second.server.request(method, path, params as never, { host: realm.host, auth: alice.auth });
    const queueId = assertSuccess(await call('POST', '/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] })).queue_id as string;
    const handle = await second.app.realms.get(realm.id);
    const registry = handle.queues;
    await handle.ask('user.create', { email: `refused-${randomUUID()}@example.com`, fullName: 'Refused', role: 400, passwordHash: null });
    const evs = assertSuccess(await call('GET', '/api/v1/events', { queue_id: queueId, dont_block: true })).events;
    const last: number = evs.at(-1).id;
    assertSuccess(await call('GET', '/api/v1/events', { queue_id: queueId, last_event_id: last, dont_block: true }));
    const cursor = () => server.app.db.oneFirst(sql.type(z.object({ acked: z.number() }))`SELECT acked_event_id::int AS acked FROM event_queues WHERE id = ${queueId}`);
    await registry.flush(); // refused (logged)
    assert.ok((await cursor()) < last, 'not written');
    refuse = false;
    await registry.flush();
    assert.is(await cursor(), last);
  } finally {
    await second.app.close();
  }
});

t('the sweep trims log rows no queue needs', async () => {
  const db = server.app.db;
  const count = (upTo: number) =>
    db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events WHERE realm_id = ${realm.id} AND id <= ${upTo}`);
  const reg = assertSuccess(await alice.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] }));
  await realm.createUser();
  await realm.createUser();
  const evs = assertSuccess(await alice.get('/api/v1/events', { queue_id: reg.queue_id, dont_block: true })).events;
  // Other queues of this realm would keep old rows alive: end them.
  const others = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id::text AS id FROM event_queues WHERE realm_id = ${realm.id} AND id <> ${reg.queue_id}`);
  for (const id of others) {
    const e = await realm.handle.queues.get(id);
    if (e) await realm.handle.queues.end(e, 'deleted');
  }
  await db.query(sql.unsafe`DELETE FROM event_queues WHERE realm_id = ${realm.id} AND id <> ${reg.queue_id}`);
  assertSuccess(await alice.get('/api/v1/events', { queue_id: reg.queue_id, last_event_id: evs.at(-1).id, dont_block: true }));
  const acked: number = evs.at(-1).id;
  const before = await count(acked);
  await realm.handle.queues.sweep();
  const after = await count(acked);
  assert.ok(before >= 2 && after === 0, `rows up to the acknowledged id: before ${before}, after ${after}`);
});

t('the sweep deletes expired rows no process loaded, and keeps live queues whose row looks expired', async () => {
  const db = server.app.db;
  const rows = (ids: string[]) =>
    db.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id::text AS id FROM event_queues WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  // Live, parked past its idle time: its row's contact is the park's, which looks expired.
  const parkedQueue = assertSuccess(await alice.post('/api/v1/register', { idle_queue_timeout: 1, event_types: ['realm_user'], fetch_event_types: [] })).queue_id;
  const parked = alice.get('/api/v1/events', { queue_id: parkedQueue, last_event_id: -1 });
  // Live and fresh: not named to the database, kept because its row has not run out.
  const freshQueue = assertSuccess(await alice.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] })).queue_id;
  // Rows no process loaded: one expired an hour ago, one fresh.
  const descriptor: unknown = await db.oneFirst(sql.type(z.object({ d: z.unknown() }))`SELECT descriptor AS d FROM event_queues WHERE id = ${freshQueue}`);
  const [expiredRow, unloadedRow] = [randomUUID(), randomUUID()];
  const now = server.clock.now();
  for (const [id, at] of [[expiredRow, now - 3_600_000], [unloadedRow, now]] as const) {
    await insertQueue(db, { id, realmId: realm.id, userId: alice.id, descriptor, startEventId: 0, idleTimeoutSecs: 600, lastContactMs: at });
  }
  await new Promise((r) => setTimeout(r, 1500));
  await realm.handle.queues.sweep();
  assert.equal([...(await rows([parkedQueue, freshQueue, expiredRow, unloadedRow]))].sort(), [parkedQueue, freshQueue, unloadedRow].sort());
  // The parked poll is still answered.
  await realm.createUser();
  assert.ok(assertSuccess(await parked).events.length > 0);
  await db.query(sql.unsafe`DELETE FROM event_queues WHERE id = ${unloadedRow}`);
});

t('a sweep whose deletion fails leaves the flush that waited for it working', async () => {
  let deleting: () => void = () => {};
  const deletionStarted = new Promise<void>((r) => (deleting = r));
  const pool = new Proxy(server.db.pool, {
    get(target, name) {
      if (name !== 'query') return Reflect.get(target, name) as unknown;
      return async (q: { sql: string }) => {
        if (!/DELETE FROM event_queues[\s\S]*NOT \(id = ANY/.test(q.sql)) return target.query(q as never);
        deleting();
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('deletion refused');
      };
    },
  });
  const second = await secondApp(pool, server.app.secret);
  try {
    const queues = (await second.app.realms.get(realm.id)).queues;
    const sweep = queues.sweep();
    await deletionStarted;
    // Asked for while the deletion is under way: it waits for it, then writes.
    await queues.flush();
    await sweep; // the sweep logs its failure
  } finally {
    await second.app.close();
  }
});

const race = suite('register/events race');
race.after(() => server.close());

race('a change racing a register is in its state or in its events, never neither', async () => {
  for (let round = 0; round < 8; round++) {
    const creations = Array.from({ length: 4 }, (_, i) =>
      new Promise((r) => setTimeout(r, Math.random() * 15)).then(() => realm.createUser({ name: `Racer ${round}-${i}` })),
    );
    await new Promise((r) => setTimeout(r, Math.random() * 10));
    const reg = assertSuccess(await alice.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] }));
    const created = await Promise.all(creations);
    const events = await drainEvents(alice, reg.queue_id);
    const inState = new Set(reg.realm_users.map((u: { user_id: number }) => u.user_id));
    const inEvents = events.map((e) => e.person.user_id);
    assert.is(new Set(inEvents).size, inEvents.length, 'no event twice');
    for (const u of created) assert.ok(inState.has(u.id) || inEvents.includes(u.id), `user ${u.id} lost in round ${round}`);
    await alice.delete('/api/v1/events', { queue_id: reg.queue_id });
  }
});

t("the start-up restore judges expiry by the server's clock, as the restore on demand and the sweep do", async () => {
  const db = server.app.db;
  const now = Date.now();
  const id = '33333333-3333-4333-8333-333333333333';
  await db.query(sql.unsafe`
    INSERT INTO event_queues (id, realm_id, user_id, descriptor, start_event_id, acked_event_id, idle_timeout_secs, last_contact)
    VALUES (${id}, ${realm.id}, ${alice.id}, ${sql.jsonb({ eventTypes: null, narrow: [], allPublicStreams: false, capabilities: {}, applyMarkdown: false, clientExtavatar: true })},
            0, 0, 60, to_timestamp(${now / 1000}))`);
  // A server whose clock is two minutes ahead of the database's, alive until then (no downtime
  // to credit): by its clock the queue expired a minute ago; by the database's it has not.
  const ahead = new ManualClock(now + 120_000);
  await markAlive(db, ahead.now());
  const second = await secondApp(server.db.pool, server.app.secret, ahead);
  try {
    const poll = await second.server.request('GET', '/api/v1/events', { queue_id: id, dont_block: true }, { host: realm.host, auth: alice.auth });
    assertError(poll, `Bad event queue ID: ${id}`, 400, 'BAD_EVENT_QUEUE_ID');
  } finally {
    await second.app.close();
    await markAlive(db, Date.now());
  }
});

const saves = suite('cursor and contact saves');
let saving: TestServer;
const saveClock = new ManualClock();
saves.before(async () => {
  // Three turns: each flush writes the changed queues whose turn it is.
  saving = await startTestServer({ clock: saveClock, env: { QUEUE_FLUSH_INTERVAL_MS: '3600000', QUEUE_SAVE_INTERVAL_MS: '10800000' } });
});
saves.after(() => saving.close());

/** What each queue's row holds: its cursor and its last contact, in ms. */
async function savedRows(ids: readonly string[]): Promise<Map<string, { acked: number; contact: number }>> {
  const rows = await saving.app.db.any(sql.type(z.object({ id: z.string(), acked: z.number(), contact: z.number() }))`
    SELECT id::text AS id, acked_event_id::int AS acked, (extract(epoch FROM last_contact) * 1000)::float8 AS contact
    FROM event_queues WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  return new Map(rows.map((r) => [r.id, { acked: r.acked, contact: r.contact }]));
}

saves('a changed queue is written at its turn, once per round of turns; all of them within a round', async () => {
  const r = await saving.createRealm();
  const users = await Promise.all([0, 1, 2].map((i) => r.createUser({ name: `Saver ${i}` })));
  const queues: Array<{ user: TestUser; id: string }> = [];
  for (const user of users) {
    for (let i = 0; i < 10; i++) {
      queues.push({ user, id: assertSuccess(await user.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] })).queue_id });
    }
  }
  const ids = queues.map((q) => q.id);
  const acked = new Map<string, number>();
  const contactAll = async () => {
    await r.createUser();
    saveClock.advance(5_000);
    for (const q of queues) {
      const evs = assertSuccess(await q.user.get('/api/v1/events', { queue_id: q.id, last_event_id: -1, dont_block: true })).events;
      assertSuccess(await q.user.get('/api/v1/events', { queue_id: q.id, last_event_id: evs.at(-1).id, dont_block: true }));
      acked.set(q.id, evs.at(-1).id);
    }
  };
  await contactAll();
  const firstContact = saveClock.now();
  const registry = r.handle.queues;
  const writtenAt: Array<Set<string>> = [];
  for (let turn = 0; turn < 3; turn++) {
    await registry.flush();
    const rows = await savedRows(ids);
    const written = new Set(ids.filter((id) => rows.get(id)!.contact === firstContact && !writtenAt.some((w) => w.has(id))));
    writtenAt.push(written);
    for (const id of written) assert.is(rows.get(id)!.acked, acked.get(id), 'the cursor is written with the contact');
  }
  // Thirty queues in three turns: each turn wrote some, none wrote all, and together every one.
  for (const w of writtenAt) assert.ok(w.size > 0 && w.size < ids.length, `turn sizes ${writtenAt.map((x) => x.size).join(', ')}`);
  assert.is(writtenAt.reduce((n, w) => n + w.size, 0), ids.length);
  // Changed again: a queue waits for its turn, one round later, not for the next flush.
  await contactAll();
  const secondContact = saveClock.now();
  for (let turn = 0; turn < 3; turn++) {
    await registry.flush();
    const rows = await savedRows(ids);
    for (const [i, w] of writtenAt.entries()) {
      for (const id of w) assert.is(rows.get(id)!.contact, i <= turn ? secondContact : firstContact, `turn ${turn}: the queue of turn ${i}`);
    }
  }
});

saves('the save interval is never below the flush interval (one turn, every flush)', () => {
  const parse = (save: string) =>
    parseConfig({ DATA_DIR: tempDir('parley-saves-'), QUEUE_FLUSH_INTERVAL_MS: '5000', QUEUE_SAVE_INTERVAL_MS: save }).queues.saveIntervalMs;
  assert.is(parse('1000'), 5000);
  assert.is(parse('60000'), 60_000);
});

saves('a queue whose contact moved by a tenth of its idle timeout is written at the next flush', async () => {
  const r = await saving.createRealm();
  const user = await r.createUser({ name: 'Brief' });
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    ids.push(assertSuccess(await user.post('/api/v1/register', { idle_queue_timeout: 30, event_types: ['realm_user'], fetch_event_types: [] })).queue_id);
  }
  const registry = r.handle.queues;
  // Moved by 2 s of 30: not yet at risk, and most of the queues not at their turn.
  saveClock.advance(2_000);
  for (const id of ids) assertSuccess(await user.get('/api/v1/events', { queue_id: id, dont_block: true }));
  await registry.flush();
  const atTurn = new Set([...(await savedRows(ids))].filter(([, row]) => row.contact === saveClock.now()).map(([id]) => id));
  assert.ok(atTurn.size < ids.length, `${atTurn.size} written at their turn`);
  // The others moved by 3 s since their row's contact: written now, whatever their turn. Those
  // written at their turn moved by 1 s since: they wait.
  saveClock.advance(1_000);
  for (const id of ids) assertSuccess(await user.get('/api/v1/events', { queue_id: id, dont_block: true }));
  await registry.flush();
  for (const [id, row] of await savedRows(ids)) assert.is(row.contact, saveClock.now() - (atTurn.has(id) ? 1_000 : 0), id);
});

t.run();
race.run();
saves.run();
