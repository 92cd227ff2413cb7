// The pool keeps serving after a transaction fails. slonik destroys a connection whenever a
// pooled callback throws (every write refused inside its transaction); a client that asked for a
// connection while the pool was replacing it must get one without waiting for some other query
// to come along. On the embedded database (one connection) such a client used to wait for the
// queue-cursor flush, 2 s later, and forever without it.
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
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
