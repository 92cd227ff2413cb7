// The rows of ended queues (queue-rows.ts): when deleting them fails, every id is kept for the
// next write, however many there are.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { QueueRows } from '../../src/actors/queues/queue-rows.js';
import type { Services } from '../../src/services.js';

const t = suite('queue rows');

/** Services with a database whose queries fail while `down`, and which notes the ids each DELETE names. */
function servicesWithDatabase() {
  const db = {
    down: true,
    deletes: [] as string[][],
    async query(q: { sql: string; values: readonly unknown[] }) {
      if (db.down) throw new Error('connection refused');
      if (q.sql.startsWith('DELETE FROM event_queues')) db.deletes.push(q.values[0] as string[]);
      return { rows: [], rowCount: 0 };
    },
  };
  const warnings: unknown[] = [];
  const services = {
    db,
    log: { warn: (o: unknown) => warnings.push(o) },
    config: { queues: { flushIntervalMs: 1000, saveIntervalMs: 10_000 } },
  } as unknown as Services;
  return { services, db, warnings };
}

t('300,000 ended queues whose delete failed are all deleted by the next one', async () => {
  const { services, db, warnings } = servicesWithDatabase();
  const rows = new QueueRows(services, 1, { epochMs: 0 }, () => []);
  const n = 300_000;
  for (let i = 0; i < n; i++) rows.ended(`q${i}`);
  await rows.deleteEnded();
  assert.is(warnings.length, 1, 'the failure is logged, not thrown');
  db.down = false;
  await rows.deleteEnded();
  assert.is(db.deletes.length, 1);
  assert.is(db.deletes[0]!.length, n);
  assert.is(db.deletes[0]![0], 'q0');
  assert.is(db.deletes[0]![n - 1], `q${n - 1}`);
});

t.run();
