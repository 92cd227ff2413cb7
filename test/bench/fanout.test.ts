// Smoke runs of the fan-out benchmark scenarios (long-poll and WebSocket).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Generators } from '../../bench/load/generators.js';
import { now } from '../../bench/load/protocol.js';
import { alternatingRounds, rounds, type Transport } from '../../bench/scenarios/fanout.js';
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

/** Stand-in generators: their deliveries are the times a test puts in `state.pending`; closing calls `onClose`. */
function standInGenerators(onClose: () => void = () => undefined) {
  const state = { pending: [] as number[], errors: 0, firstError: null as string | null };
  const gens = {
    closeConnections: async () => onClose(),
    delivered: () => state.pending.length,
    collect: async () => {
      const times = state.pending;
      state.pending = [];
      return { times, events: {}, errors: state.errors, firstError: state.firstError };
    },
  } as unknown as Generators;
  return { gens, state };
}

t('the warm-up rounds are not counted', async () => {
  // Deliveries come 300 ms after the first two sends, 5 ms after each later one.
  let fired = 0;
  const { gens, state } = standInGenerators();
  const server = { usage: () => ({ cpuSeconds: fired, rssBytes: 0, anonBytes: 0, peakRssBytes: 0 }) } as unknown as Server;
  const fire = async () => {
    const at = now() + (fired < 2 ? 300 : 5);
    fired++;
    state.pending = [at, at];
  };
  const r = await rounds({ gens, progress: () => undefined }, 'test', server, 2, { warmUp: 2, count: 3 }, async () => 2, fire);
  assert.is(fired, 5);
  assert.is(r.last.length, 3);
  assert.is(r.each.length, 6);
  assert.ok(Math.max(...r.last) < 100, `last ${r.last.join(', ')}`);
  // CPU is counted from the first counted round.
  assert.is(r.cpuSeconds, 3);
});

t('transports warm up in series, then take their counted rounds in turn, each on clients connected for it', async () => {
  const log: string[] = [];
  let connected: string | null = null;
  let cpu = 0;
  const { gens, state } = standInGenerators(() => {
    log.push('close');
    connected = null;
  });
  const transport = (label: string, delayMs: number, cpuPerRound: number): Transport & { delayMs: number; cpuPerRound: number } => ({
    label,
    delayMs,
    cpuPerRound,
    connect: async () => {
      log.push(`connect ${label}`);
      connected = label;
      state.pending = [now()]; // a backlog that arrives as the clients connect: not the round's
    },
    held: async () => (connected === label ? 2 : 0),
  });
  const a = transport('A', 20, 1);
  const b = transport('B', 40, 10);
  const all = [a, b];
  const fire = async () => {
    const t = all.find((x) => x.label === connected)!;
    log.push(`fire ${t.label}`);
    cpu += t.cpuPerRound;
    const at = now() + t.delayMs;
    state.pending = [at - 5, at];
  };
  const server = { usage: () => ({ cpuSeconds: cpu, rssBytes: 0, anonBytes: 0, peakRssBytes: 7 }) } as unknown as Server;
  const [ra, rb] = await alternatingRounds({ gens, progress: () => undefined }, server, 2, { warmUp: 2, count: 2 }, [a, b], fire);
  const round = (x: string) => ['close', `connect ${x}`, `fire ${x}`];
  const warmUp = (x: string) => [...round(x), `fire ${x}`];
  assert.equal(log, [...warmUp('A'), ...warmUp('B'), ...round('A'), ...round('B'), ...round('A'), ...round('B'), 'close']);
  assert.is(ra!.last.length, 2);
  assert.is(rb!.each.length, 4);
  // Each round is timed from its own send: the backlog delivered on connecting is left out.
  for (const t of ra!.last) assert.ok(t >= 15 && t < 35, `A's round took ${t} ms`);
  for (const t of rb!.last) assert.ok(t >= 35 && t < 55, `B's round took ${t} ms`);
  // CPU from each counted round's send to its last delivery, per transport: not the warm-up's.
  assert.is(ra!.cpuSeconds, 2);
  assert.is(rb!.cpuSeconds, 20);
  assert.is(rb!.peakRssBytes, 7);
});

t('a wait for clients that never all arrive says how many came and what the clients met', async () => {
  const { gens, state } = standInGenerators();
  state.errors = 3;
  state.firstError = '400 {"result":"error","code":"BAD_EVENT_QUEUE_ID"}';
  const server = { usage: () => ({ cpuSeconds: 0, rssBytes: 0, anonBytes: 0, peakRssBytes: 0 }) } as unknown as Server;
  const stuck: Transport = { label: 'stuck', connect: async () => undefined, held: async () => 1 };
  const realNow = Date.now;
  let clock = realNow();
  Date.now = () => (clock += 60_000); // the 120 s wait is over at its second look
  try {
    await alternatingRounds({ gens, progress: () => undefined }, server, 2, { warmUp: 0, count: 1 }, [stuck], async () => undefined);
    assert.unreachable('the wait should time out');
  } catch (e) {
    assert.instance(e, Error);
    assert.match((e as Error).message, 'stuck: 2 held');
    assert.match((e as Error).message, 'held 1');
    assert.match((e as Error).message, '3 errors, the first: 400 {"result":"error","code":"BAD_EVENT_QUEUE_ID"}');
  } finally {
    Date.now = realNow;
  }
});

t.run();
