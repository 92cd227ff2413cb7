// Smoke runs of the fan-out benchmark scenarios (long-poll and WebSocket).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkComparisons, runSmoke } from './smoke.js';

const t = suite('bench smoke: fan-out');

t('fanout delivers every round to every parked poll, for each size', async () => {
  const cs = await runSmoke('fanout');
  checkComparisons(cs, 'fanout', 2);
  assert.equal(
    cs.map((c) => c.variant),
    ['N=5', 'N=10'],
  );
  for (const c of cs) assert.is(c.parley.extra.rounds, '2');
});

t('ws-fanout compares sockets with long-polls on the same queues', async () => {
  const cs = await runSmoke('ws-fanout');
  checkComparisons(cs, 'ws-fanout', 2);
  for (const c of cs) assert.is(c.reference.who, 'Parley long-poll');
});

t.run();
