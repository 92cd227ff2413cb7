// Smoke runs of the fan-out benchmark scenarios (long-poll and WebSocket).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Generators } from '../../bench/load/generators.js';
import { now } from '../../bench/load/protocol.js';
import { rounds } from '../../bench/scenarios/fanout.js';
import type { Server } from '../../bench/servers.js';
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

t('the warm-up rounds are not counted', async () => {
  // Deliveries come 300 ms after the first two sends, 5 ms after each later one.
  let fired = 0;
  let pending: number[] = [];
  const gens = {
    delivered: () => pending.length,
    collect: async () => {
      const times = pending;
      pending = [];
      return { times, events: {}, errors: 0, firstError: null };
    },
  } as unknown as Generators;
  const server = { usage: () => ({ cpuSeconds: fired, rssBytes: 0, anonBytes: 0, peakRssBytes: 0 }) } as unknown as Server;
  const fire = async () => {
    const at = now() + (fired < 2 ? 300 : 5);
    fired++;
    pending = [at, at];
  };
  const r = await rounds({ gens, progress: () => undefined }, 'test', server, 2, { warmUp: 2, count: 3 }, async () => 2, fire);
  assert.is(fired, 5);
  assert.is(r.last.length, 3);
  assert.is(r.each.length, 6);
  assert.ok(Math.max(...r.last) < 100, `last ${r.last.join(', ')}`);
  // CPU is counted from the first counted round.
  assert.is(r.cpuSeconds, 3);
});

t.run();
