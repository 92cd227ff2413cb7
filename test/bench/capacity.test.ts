// Smoke runs of the capacity and restart benchmark scenarios.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { average, marginal, marginalHeap, readWhileParking, startupPhases } from '../../bench/scenarios/capacity.js';
import { checkComparisons, runSmoke } from './smoke.js';

const t = suite('bench smoke: capacity and restart');

t('capacity holds every parked poll and reports memory per poll', async () => {
  const cs = await runSmoke('capacity');
  checkComparisons(cs, 'capacity', 1, { memoryRatio: true });
  assert.is(cs[0]!.parley.extra.held, '20 of 20');
  assert.match(cs[0]!.parley.extra['memory per queue + parked poll'] ?? '', /KiB$/);
  assert.match(cs[0]!.parley.extra['right after parking'] ?? '', /KiB$/);
  assert.match(cs[0]!.reference.extra['right after parking'] ?? '', /KiB$/);
  assert.match(cs[0]!.parley.extra['average over all N'] ?? '', /KiB$/);
  assert.match(cs[0]!.reference.extra['average over all N'] ?? '', /KiB$/);
  assert.match(cs[0]!.notes[0] ?? '', /^memory per parked request: anonymous resident memory after a full collection \(the least of 3 readings\), from N\/3 to N parked; over all N, Parley ÷ R2 was /);
  // A queue and its parked poll are objects on the heap; R2's parked request is mostly uWS's own.
  const heap = /^of it on V8's heap \(live objects right after the collection, from N\/3 to N\): Parley (-?\d+) bytes, R2 (-?\d+)$/.exec(cs[0]!.notes[1] ?? '');
  assert.ok(heap, cs[0]!.notes[1]);
  assert.ok(Number(heap[1]) > 200, `Parley's heap per parked poll: ${heap[1]} bytes`);
});

t('memory per parked request is the growth from a third of N to N', async () => {
  // A process that pays 5 MB once, with its first request, then 1,000 bytes a request; a
  // collection gives back 300 bytes a request of garbage, which the reading right after keeps.
  // Two of the readings after a collection (the first at a third of N, the second at N) come
  // after the process allocated again (3 MB of young generation): the least of each three is kept.
  // The heap holds 600 bytes a request, and 1 MB more in the first reading at N.
  const n = 30;
  let parked = 0;
  let collected = false;
  let readings = 0;
  const server = {
    usage: () => ({
      cpuSeconds: 0,
      rssBytes: 0,
      peakRssBytes: 0,
      anonBytes: 50e6 + (parked > 0 ? 5e6 : 0) + parked * (collected ? 1000 : 1300) + (readings === 4 || readings === 8 ? 3e6 : 0),
    }),
  };
  const inspector = {
    async collectedUsage<U>(s: { usage(): U }): Promise<{ usage: U; heapBytes: number }> {
      collected = true;
      readings++;
      return { usage: s.usage(), heapBytes: 20e6 + parked * 600 + (readings === 7 ? 1e6 : 0) };
    },
  };
  const calls: Array<[number, number]> = [];
  const r = await readWhileParking(inspector, server, n, async (from, to) => {
    calls.push([from, to]);
    collected = false;
    parked = to;
  });
  assert.equal(calls, [
    [0, 10],
    [10, 30],
  ]);
  assert.is(readings, 9);
  assert.is(marginal(r, n), 1000);
  assert.is(marginalHeap(r, n), 600);
  assert.equal(r.heap, [20e6, 20e6 + 10 * 600, 20e6 + 30 * 600]);
  assert.is(average(r, n), 1000 + 5e6 / n);
  assert.equal(r.atOnce, [50e6, 50e6 + 5e6 + 30 * 1300]);
});

t('restart brings back every queue with its unacknowledged events', async () => {
  const cs = await runSmoke('restart');
  checkComparisons(cs, 'restart', 1);
  assert.is(cs[0]!.parley.extra['queues wrong or lost'], '0');
  assert.match(cs[0]!.parley.extra['its start, by phase']!, /^load \d+, database \d+, organizations \d+, queues \d+, listen \d+ ms$/);
});

t("the restart's start-up phases are shown in their order, in milliseconds", () => {
  const seconds = new Map([
    ['queues', 0.2704],
    ['load', 0.25],
    ['listen', 0.008],
  ]);
  assert.is(startupPhases(seconds), 'load 250, queues 270, listen 8 ms');
  assert.is(startupPhases(new Map()), 'not reported');
});

t.run();
