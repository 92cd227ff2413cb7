// The pool keeps serving after a transaction fails. slonik destroys a connection whenever a
// pooled callback throws (every write refused inside its transaction); a client that asked for a
// connection while the pool was replacing it must get one without waiting for some other query
// to come along. On the embedded database (one connection) such a client used to wait for the
// queue-cursor flush, 2 s later, and forever without it.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { isDatabaseUnavailable, openDatabase } from '../../src/store/database.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

const one = sql.type(z.object({ n: z.number() }));
const test = suite('database pool');
let db: TestDatabase;

test.before(async () => {
  db = await openTestDatabase();
});
test.after(() => db.close());

/**
 * Nobody holds or is opening a connection, yet a client waits for one: only a later, unrelated
 * request for a connection would ever serve it.
 */
function stranded(pool: DatabasePool): boolean {
  const s = pool.state();
  return s.waitingClients > 0 && s.acquiredConnections === 0 && s.pendingConnections === 0 && s.pendingReleaseConnections === 0;
}

/** The query's result, or 'stranded' once it waits for a connection that no one will release. */
async function settle(pool: DatabasePool, query: Promise<number>): Promise<number | 'stranded'> {
  let result: number | null = null;
  const done = query.then((n) => (result = n));
  while (result === null) {
    if (stranded(pool)) return 'stranded';
    await Promise.race([done, nextTurn()]);
  }
  return result;
}

test('a query asked for while a failed transaction gives its connection up gets a connection', async () => {
  for (let round = 0; round < 10; round++) {
    let failed = false;
    const failing = db.pool
      .transaction(async (tx) => {
        await tx.query(one`SELECT 1 AS n`);
        throw new Error('refused');
      })
      .catch(() => (failed = true));
    // Ask at the moment the pool starts replacing the destroyed connection (if it does),
    // otherwise as soon as the transaction has failed.
    while (!failed && db.pool.state().pendingConnections === 0) await nextTurn();
    const answer = await settle(db.pool, db.pool.oneFirst(one`SELECT ${round}::int AS n`));
    assert.is(answer, round, `round ${round}`);
    await failing;
  }
});

test('queries queued behind a failing transaction all get a connection', async () => {
  const failing = db.pool.transaction(async (tx) => {
    await tx.query(one`SELECT 1 AS n`);
    throw new Error('refused');
  });
  const queued = [1, 2, 3].map((n) => settle(db.pool, db.pool.oneFirst(one`SELECT ${n}::int AS n`)));
  assert.is(await failing.then(() => 'committed', (e: Error) => e.message), 'refused');
  assert.equal(await Promise.all(queued), [1, 2, 3]);
});

// patches/slonik+47.3.2.patch: slonik's transaction context is an AsyncLocalStorage, and
// entering one installs a promise hook that then runs for every promise of the process.
test('a transaction leaves no promise hook behind', async () => {
  assert.is(await db.pool.transaction((tx) => tx.oneFirst(one`SELECT 7 AS n`)), 7);
  const promise = Promise.resolve();
  assert.equal(Object.getOwnPropertySymbols(promise).map(String), []);
});

// What the realm's group commit of sends counts on (its lanes are at most `connections`).
test('as many transactions run at once as the database says it has connections, and no more', async () => {
  assert.is(db.connections, db.kind === 'embedded' ? 1 : 4); // dbOptions.poolMax in the test helper
  let inside = 0;
  let most = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const running = Array.from({ length: db.connections + 2 }, () =>
    db.pool.transaction(async (tx) => {
      await tx.query(one`SELECT 1 AS n`);
      most = Math.max(most, ++inside);
      await gate;
      inside--;
    }),
  );
  for (let i = 0; i < 50 && most < db.connections; i++) await sleep(20);
  await sleep(50);
  assert.is(most, db.connections);
  release();
  await Promise.all(running);
});

test.run();

// The embedded database's socket serves one session at a time (PGlite is one session).
const socket = suite('embedded database socket');
let embedded: TestDatabase;

socket.before(async () => {
  embedded = await openTestDatabase(); // its pool opens no connection until asked for one
});
socket.after(() => embedded.close());

socket('a client arriving while another session is open waits for it instead of being refused', async () => {
  if (embedded.kind !== 'embedded') return;
  const first = new pg.Client({ connectionString: embedded.url });
  first.on('error', () => undefined); // it is cut off below
  await first.connect();
  await first.query('BEGIN');
  await first.query('CREATE TABLE left_open (n int)');
  const second = new pg.Client({ connectionString: embedded.url });
  let connected = false;
  const connecting = second.connect().then(() => (connected = true));
  await first.query('INSERT INTO left_open VALUES (1)'); // a round trip: the second client has arrived by now
  assert.is(connected, false, 'the second session started while the first was open');
  // The first client vanishes inside its transaction: the next session must not inherit it.
  first.connection.stream.destroy();
  await connecting;
  const { rows } = await second.query<{ t: string | null }>("SELECT to_regclass('left_open')::text AS t");
  assert.equal(rows, [{ t: null }]);
  await second.end();
});

socket.run();

// A backend that dies while a COMMIT is in flight (`pg_ctl -m fast` under load): the COMMIT fails
// with 57P01, slonik sends a ROLLBACK, and the connection then closes under that ROLLBACK. slonik's
// driver used to abort the destroy of such a client, which then kept its pool slot for good: with
// every slot lost that way, every query waited forever. patches/@slonik+driver+*.patch fixes it.
const lost = suite('a backend lost during COMMIT');
let target: TestDatabase;

lost.before(async () => {
  target = await openTestDatabase(); // its own pool stays unused: the proxy connects to its URL
});
lost.after(() => target.close());

/** A Postgres ErrorResponse message: FATAL 57P01, as a backend sends when the server shuts down. */
function adminShutdown(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0');
  const head = Buffer.alloc(5);
  head.write('E');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * A TCP proxy to the database that answers the first COMMIT it sees with FATAL 57P01 instead of
 * passing it on, swallows what the client sends next, and cuts the connection 50 ms later.
 */
async function commitKillingProxy(upstream: string) {
  const to = new URL(upstream);
  const sockets = new Set<Socket>();
  let armed = true;
  const server = createServer((client) => {
    const backend = connect(Number(to.port || 5432), to.hostname);
    for (const s of [client, backend]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (client.destroy(), backend.destroy()));
    }
    backend.pipe(client);
    let pending = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    let cut = false;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (pending.length < 5) return;
        const length = started ? 1 + pending.readInt32BE(1) : pending.readInt32BE(0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const isCommit = started && message[0] === 0x51 && message.subarray(5, length - 1).toString() === 'COMMIT';
        started = true;
        if (cut) continue;
        if (isCommit && armed) {
          armed = false;
          cut = true;
          backend.unpipe(client);
          client.write(adminShutdown());
          setTimeout(() => client.destroy(), 50);
          continue;
        }
        backend.write(message);
      }
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}

lost('the connection gives its pool slot up, and the next query gets a new one', async () => {
  const proxy = await commitKillingProxy(target.url);
  const db = await openDatabase({ url: proxy.url, poolMax: 1, poolMin: 0, connectTimeoutMs: 5000, statementTimeoutMs: 30_000, log: pino({ level: 'silent' }) });
  try {
    const failure = await db.pool
      .transaction(async (tx) => {
        await tx.query(one`SELECT 1 AS n`);
      })
      .then(
        () => null,
        (e: Error) => e,
      );
    assert.match(String(failure?.message), /^Backend has been terminated/);
    assert.ok(isDatabaseUnavailable(failure), 'an outage (503 and a commit in doubt), not a bug');
    // One connection in the pool: if the broken one still held it, this would wait for good.
    const next = await Promise.race([db.pool.oneFirst(one`SELECT 2 AS n`), sleep(10_000).then(() => 'waited 10 s for a connection')]);
    assert.is(next, 2);
    assert.is(db.pool.state().pendingDestroyConnections, 0);
  } finally {
    await Promise.race([db.close(), sleep(10_000)]);
    await proxy.close();
  }
});

lost.run();
