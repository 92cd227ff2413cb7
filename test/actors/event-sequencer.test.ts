// Event ids and release order: ids only grow, and committed events reach subscribers in id order
// even when transactions commit out of order (DESIGN.md §2).
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { IdAllocator, ReleaseOrder, type PublishedEvent } from '../../src/actors/event-sequencer.js';
import { RealmEventStream, writeWithEvents } from '../../src/actors/realm-events.js';
import { orderOf, Turn } from '../../src/actors/commit-order.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

/** A stand-in connection whose `nextval` answers come from a script (in order of calls). */
function fakeSequence(step: number, starts: number[], delays: number[] = []) {
  let call = 0;
  const conn = {
    async one() {
      const i = call++;
      if (delays[i]) await new Promise((r) => setTimeout(r, delays[i]));
      if (starts[i] === undefined) throw new Error('sequence unavailable');
      return { start: starts[i], step };
    },
  };
  return { conn: conn as unknown as ConstructorParameters<typeof IdAllocator>[0], calls: () => call };
}

const alloc = suite('IdAllocator');

alloc('hands out increasing ids synchronously within a block', async () => {
  const { conn } = fakeSequence(10, [100, 110, 120]);
  const ids = new IdAllocator(conn);
  assert.is(await ids.init(), 99);
  assert.equal(ids.reserve(3), [100, 101, 102]);
  assert.equal(ids.reserve(1), [103]);
});

alloc('a reservation may span blocks; prefetch keeps it synchronous', async () => {
  const { conn, calls } = fakeSequence(10, [100, 110, 120, 130]);
  const ids = new IdAllocator(conn);
  await ids.init();
  assert.equal(ids.reserve(6), [100, 101, 102, 103, 104, 105]); // below half: prefetch starts
  await new Promise((r) => setTimeout(r, 5));
  assert.ok(calls() >= 2);
  assert.equal(ids.reserve(6), [106, 107, 108, 109, 110, 111]);
});

alloc('waiters are served in order when the blocks run out', async () => {
  const { conn } = fakeSequence(4, [100, 104, 108, 112], [0, 30, 0, 0]);
  const ids = new IdAllocator(conn);
  await ids.init();
  const a = ids.reserve(4);
  const b = ids.reserve(3);
  const c = ids.reserve(2);
  assert.equal(a, [100, 101, 102, 103]);
  const [rb, rc] = await Promise.all([b, c]);
  assert.ok(rb.every((x, i) => i === 0 || x > rb[i - 1]!));
  assert.ok(rc[0]! > rb.at(-1)!, `${rc} after ${rb}`);
});

alloc('a block that arrives below ids already handed out is dropped', async () => {
  // First prefetch answers late with a lower block than a later fetch.
  const { conn } = fakeSequence(4, [100, 104, 108], [0, 50, 0]);
  const ids = new IdAllocator(conn);
  await ids.init();
  assert.equal(ids.reserve(3), [100, 101, 102]); // triggers the slow prefetch of 104..107
  const next = await ids.reserve(4); // has to wait; fetches 108..111 meanwhile
  const later = await ids.reserve(1);
  const seen = [100, 101, 102, ...next, ...later];
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, seen.join(','));
});

alloc('a failing fetch rejects waiters; the allocator recovers', async () => {
  // Call 2 is the background prefetch (its failure is absorbed), call 3 the waiter's own fetch.
  const x = undefined as unknown as number;
  const { conn } = fakeSequence(2, [100, x, x, 200]);
  const ids = new IdAllocator(conn);
  await ids.init();
  ids.reserve(2);
  let failed = false;
  await Promise.resolve(ids.reserve(1)).catch(() => (failed = true));
  assert.ok(failed);
  assert.equal(await ids.reserve(1), [200]);
});

const order = suite('ReleaseOrder');
const ev = (id: number): PublishedEvent => ({ id, type: 't', payload: {}, userIds: null, persisted: true });

order('releases in id order when commits arrive out of order', () => {
  const released: number[] = [];
  const o = new ReleaseOrder(99, (es) => released.push(...es.map((e) => e.id)));
  const a = o.track(100);
  const b = o.track(102);
  const c = o.track(104);
  o.complete(c, [ev(104)]);
  o.complete(b, [ev(102), ev(103)]);
  assert.equal(released, []);
  assert.is(o.releasedThrough, 99);
  o.complete(a, [ev(100), ev(101)]);
  assert.equal(released, [100, 101, 102, 103, 104]);
  assert.is(o.releasedThrough, 104);
});

order('an aborted reservation unblocks later ones and never releases', () => {
  const released: number[] = [];
  const o = new ReleaseOrder(0, (es) => released.push(...es.map((e) => e.id)));
  const a = o.track(1);
  const b = o.track(3);
  o.complete(b, [ev(3)]);
  o.abort(a);
  assert.equal(released, [3]);
  assert.is(o.releasedThrough, 3);
});

const handout = suite('RealmEventStream: ids are registered as they are handed out');

handout('a reservation served after waiting is registered before anything resumes', async () => {
  // Blocks of 4. The first block is used up and the prefetch is slow, so the next append waits
  // for a fetch of its own. Serving it, the allocator also serves a second waiter whose code
  // appends at once, synchronously, with ids above the first's. The first append's tracking
  // used to run only when its await resumed: after that second append's. Its events were then
  // released after higher ids and skipped by every queue (a queue ignores ids it has passed).
  const { conn } = fakeSequence(4, [100, 104, 108], [0, 30, 0]);
  const fake = Object.assign(conn, { query: async () => ({ rows: [] }) });
  const ids = new IdAllocator(fake);
  const s = new RealmEventStream(1, ids, await ids.init());
  const released: number[] = [];
  s.subscribe((es) => released.push(...es.map((e) => e.id)));
  ids.reserve(4); // 100..103; the prefetch of 104..107 answers in 30 ms
  const spec = { type: 'custom', payload: {}, userIds: null };
  const first = s.append(fake, [spec]);
  let second: ReturnType<RealmEventStream['append']> | undefined;
  void ids.reserve(1, fake, () => (second = s.append(fake, [spec])));
  const a = await first;
  const b = await second!;
  assert.ok(b.events[0]!.id > a.events[0]!.id, `${b.events[0]!.id} after ${a.events[0]!.id}`);
  s.committed(b.ticket, b.events);
  assert.equal(released, [], 'the later reservation waits for the earlier one');
  s.committed(a.ticket, a.events);
  assert.equal(released, [a.events[0]!.id, b.events[0]!.id]);
});

let server: TestServer;
const stream = suite('writeWithEvents (with the database)');
stream.before(async () => {
  server = await startTestServer();
});
stream.after(() => server.close());

const countEvents = (realmId: number) =>
  server.app.db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events WHERE realm_id = ${realmId}`);

/** A stream of its own for a new organization, and what it releases (as `pick` shows it), in order. */
async function newStream<T>(pick: (e: PublishedEvent) => T): Promise<{ realm: TestRealm; s: RealmEventStream; got: T[] }> {
  const realm = await server.createRealm();
  const s = new RealmEventStream(realm.id, server.app.ids, realm.handle.events.releasedThrough);
  const got: T[] = [];
  s.subscribe((es) => got.push(...es.map(pick)));
  return { realm, s, got };
}

stream('events are logged in the transaction and released after commit', async () => {
  const { realm, s, got } = await newStream((e) => e);
  const before = await countEvents(realm.id);
  const result = await writeWithEvents(server.app.db, s, async (_tx, emit) => {
    emit({ type: 'custom', payload: { n: 1 }, userIds: [realm.owner.id] });
    emit({ type: 'custom', payload: { n: 2 }, userIds: null });
    assert.is(got.length, 0, 'nothing is released before commit');
    return 'done';
  });
  assert.is(result, 'done');
  assert.equal(got.map((e) => e.payload.n), [1, 2]);
  assert.ok(got[1]!.id > got[0]!.id);
  assert.is(await countEvents(realm.id), before + 2);
  assert.is(s.releasedThrough, got[1]!.id);
});

stream('a rolled-back transaction releases nothing and logs nothing', async () => {
  const { realm, s, got } = await newStream((e) => e);
  const before = await countEvents(realm.id);
  try {
    await writeWithEvents(server.app.db, s, async (tx, emit) => {
      emit({ type: 'custom', payload: {}, userIds: null });
      await tx.query(sql.unsafe`SELECT 1/0`);
    });
    assert.unreachable('should throw');
  } catch (e) {
    assert.match(String(e), /division by zero/);
  }
  assert.is(got.length, 0);
  assert.is(await countEvents(realm.id), before);
  // The stream is not stuck: the next write goes through.
  await writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'custom', payload: {}, userIds: null }));
  assert.is(got.length, 1);
});

// Pipelined batches (commit-order.ts): the later one's work may finish first, yet its events are
// logged and its transaction commits only after the earlier one's.
stream('a write that follows another logs its events and commits after it', async () => {
  const { s, got } = await newStream((e) => e);
  const first = new Turn(null);
  const second = new Turn(first);
  const finished: string[] = [];
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const a = writeWithEvents(
    server.app.db,
    s,
    async (_tx, emit) => {
      await slow;
      emit({ type: 'custom', payload: { n: 'a' }, userIds: null });
    },
    undefined,
    orderOf([first]),
  ).then(() => finished.push('a'));
  const b = writeWithEvents(
    server.app.db,
    s,
    async (tx, emit) => {
      await tx.query(sql.unsafe`SELECT 1`);
      emit({ type: 'custom', payload: { n: 'b' }, userIds: null });
    },
    undefined,
    orderOf([second]),
  ).then(() => finished.push('b'));
  await new Promise((r) => setTimeout(r, 100));
  // (The embedded database's one connection is the earlier write's meanwhile: no query here.)
  assert.equal(finished, [], 'the later write waits to commit, its work done');
  assert.equal(got, [], 'and releases nothing');
  release();
  await Promise.all([a, b]);
  assert.equal(finished, ['a', 'b']);
  assert.equal(got.map((e) => e.payload.n), ['a', 'b']);
  assert.ok(got[1]!.id > got[0]!.id, 'the later write took the later ids');
  assert.is(await second.passed('commit').then(() => true), true, 'settled');
});

stream('a write that follows another asks for its connection only once the other has its own', async () => {
  const { s } = await newStream((e) => e);
  let asked = 0;
  // Counts the transactions asked for, and runs them.
  const counting = new Proxy(server.app.db, {
    get(target, name) {
      if (name === 'transaction') return (handler: Parameters<typeof target.transaction>[0]) => (asked++, target.transaction(handler));
      return Reflect.get(target, name) as unknown;
    },
  });
  const first = new Turn(null);
  const later = writeWithEvents(counting, s, async () => 'later', undefined, orderOf([new Turn(first)]));
  await new Promise((r) => setTimeout(r, 20));
  assert.is(asked, 0, 'no connection is taken while the write before has none');
  first.pass('begun');
  await new Promise((r) => setTimeout(r, 20));
  assert.is(asked, 1);
  first.settle();
  assert.is(await later, 'later');
});

stream('a write that follows one that failed goes on once the failed one is settled', async () => {
  const { s, got } = await newStream((e) => e.payload.n);
  const first = new Turn(null);
  const failing = writeWithEvents(
    server.app.db,
    s,
    async (tx, emit) => {
      emit({ type: 'custom', payload: { n: 'a' }, userIds: null });
      await tx.query(sql.unsafe`SELECT 1/0`);
    },
    undefined,
    orderOf([first]),
  ).then(
    () => 'committed',
    (e: unknown) => String(e),
  );
  const later = writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'custom', payload: { n: 'b' }, userIds: null }), undefined, orderOf([new Turn(first)]));
  assert.match(await failing, /division by zero/);
  // The caller settles a failed write's order once it is done with it (send.ts retries first).
  assert.is(first.hasPassed('begun'), true, 'it began');
  assert.is(first.hasPassed('commit'), false, 'a failed write leaves its order to the caller');
  first.settle();
  await later;
  assert.equal(got, ['b']);
});

stream('ephemeral events wait behind reservations still in flight', async () => {
  const { s, got } = await newStream((e) => e.type);
  const appended = await server.app.db.transaction(async (tx) => {
    const a = await s.append(tx, [{ type: 'logged', payload: {}, userIds: null }]);
    await s.publishEphemeral([{ type: 'typing', payload: {}, userIds: null }]);
    assert.equal(got, [], 'typing waits for the uncommitted write reserved before it');
    return a;
  });
  s.committed(appended.ticket, appended.events);
  assert.equal(got, ['logged', 'typing']);
});

/** The driver's error when the connection drops (here: after the COMMIT was sent). */
const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

/**
 * The app's pool, except that every transaction fails with a lost connection once its handler
 * has run — after committing it, or instead of committing — and the first `downChecks` reads
 * fail as if the database were still unreachable.
 */
function flakyPool(o: { commits: boolean; downChecks: number }) {
  const real = server.app.db;
  let checks = 0;
  return new Proxy(real, {
    get(target, name) {
      if (name === 'transaction')
        return async (handler: Parameters<typeof real.transaction>[0]) => {
          if (o.commits) {
            await real.transaction(handler);
            throw connectionLost();
          }
          return real.transaction(async (tx) => {
            await handler(tx);
            throw connectionLost();
          });
        };
      if (name === 'exists') return (...args: Parameters<typeof real.exists>) => (checks++ < o.downChecks ? Promise.reject(connectionLost()) : real.exists(...args));
      return Reflect.get(target, name) as unknown;
    },
  });
}

/** Wait for the in-doubt resolution, which runs in the background (bounded). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
}

stream('a commit in doubt that did commit: its events are released, in order, once the log shows them', async () => {
  const { s, got } = await newStream((e) => e.type);
  try {
    await writeWithEvents(flakyPool({ commits: true, downChecks: 2 }), s, async (_tx, emit) => emit({ type: 'in-doubt', payload: {}, userIds: null }));
    assert.unreachable('the caller is told the write failed');
  } catch (e) {
    assert.match(String(e), /Connection terminated/);
  }
  // A later write commits meanwhile: its event waits behind the one in doubt.
  await writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'later', payload: {}, userIds: null }));
  assert.equal(got, [], 'nothing is released while the first commit is in doubt');
  await until(() => got.length === 2);
  assert.equal(got, ['in-doubt', 'later']);
});

stream('a commit in doubt that did not commit: nothing is released, and later events are not held', async () => {
  const { realm, s, got } = await newStream((e) => e.type);
  const before = await countEvents(realm.id);
  try {
    await writeWithEvents(flakyPool({ commits: false, downChecks: 1 }), s, async (_tx, emit) => emit({ type: 'lost', payload: {}, userIds: null }));
    assert.unreachable('should throw');
  } catch (e) {
    assert.match(String(e), /Connection terminated/);
  }
  await writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'later', payload: {}, userIds: null }));
  await until(() => got.length > 0);
  assert.equal(got, ['later']);
  assert.is(await countEvents(realm.id), before + 1);
});

/**
 * The app's pool, except that each transaction fails with a lost connection as soon as `lost`
 * resolves, while its handler still runs (or, `late`, before the handler has started), as slonik
 * fails one whose connection reports an error. The handler runs on regardless.
 */
function poolLosingConnectionUnderHandler(lost: Promise<void>, late = false) {
  const real = server.app.db;
  return new Proxy(real, {
    get(target, name) {
      if (name === 'transaction')
        return (handler: Parameters<typeof real.transaction>[0]) =>
          new Promise((_, reject) => {
            const run = () => void real.transaction(handler).catch(() => undefined);
            void lost.then(() => {
              reject(connectionLost());
              if (late) setTimeout(run, 10);
            });
            if (!late) run();
          });
      return Reflect.get(target, name) as unknown;
    },
  });
}

stream('a transaction that fails while its handler runs: its events are never released, and later ones are not held', async () => {
  const { realm, s, got } = await newStream((e) => e.type);
  const before = await countEvents(realm.id);
  let lose!: () => void;
  const lost = new Promise<void>((r) => (lose = r));
  let handlerDone!: () => void;
  const done = new Promise<void>((r) => (handlerDone = r));
  const failing = writeWithEvents(poolLosingConnectionUnderHandler(lost), s, async (tx, emit) => {
    lose();
    await tx.query(sql.unsafe`SELECT pg_sleep(0.05)`); // the transaction fails meanwhile
    emit({ type: 'lost', payload: {}, userIds: null });
    setTimeout(handlerDone, 100); // after the ids reserved on the way out
  });
  assert.match(await failing.then(() => 'committed', (e: Error) => e.message), /Connection terminated/);
  await done;
  // A later write commits: it used to wait for good behind the ids the failed handler reserved.
  await writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'later', payload: {}, userIds: null }));
  await until(() => got.length > 0);
  assert.equal(got, ['later']);
  assert.is(await countEvents(realm.id), before + 1, 'the failed transaction was rolled back');
});

stream('a transaction that fails before its handler starts: the handler reserves nothing', async () => {
  const { realm, s, got } = await newStream((e) => e.type);
  const before = await countEvents(realm.id);
  let ran = false;
  const failing = writeWithEvents(poolLosingConnectionUnderHandler(Promise.resolve(), true), s, async (_tx, emit) => {
    ran = true;
    emit({ type: 'lost', payload: {}, userIds: null });
  });
  assert.match(await failing.then(() => 'committed', (e: Error) => e.message), /Connection terminated/);
  await new Promise((r) => setTimeout(r, 100)); // the handler's turn comes and goes
  await writeWithEvents(server.app.db, s, async (_tx, emit) => emit({ type: 'later', payload: {}, userIds: null }));
  await until(() => got.length > 0);
  assert.equal(got, ['later']);
  assert.is(ran, false, 'the handler of a failed transaction does no work');
  assert.is(await countEvents(realm.id), before + 1);
});

alloc.run();
order.run();
handout.run();
stream.run();
