// measureLoops: the closed loops of a comparison taken in alternating turns, on stand-in
// generators and servers that record what was asked of them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Generators, LoopSummary } from '../../bench/load/generators.js';
import { measureLoops, mergeSummaries, type Context, type LoopSide, type TurnSide } from '../../bench/scenarios/common.js';
import type { Server, Usage } from '../../bench/servers.js';
import { smokeOptions } from './smoke.js';

/** A server whose CPU seconds grow by `cpuPerLoop` with every loop run on it. */
function fakeServer(port: number, cpuPerLoop: number): Server & { loops: number } {
  const s = {
    name: `s${port}`,
    port,
    loops: 0,
    startMs: 0,
    child: null as never,
    output: () => '',
    usage: (): Usage => ({ cpuSeconds: s.loops * cpuPerLoop, rssBytes: 0, anonBytes: 0, peakRssBytes: 1000 + port }),
    stop: async () => undefined,
  };
  return s;
}

/** Generators that answer each loop on port P with P × 10 requests over its duration, and note the calls. */
function fakeGenerators(servers: ReadonlyArray<Server & { loops: number }>) {
  const calls: Array<{ port: number; durationMs: number }> = [];
  let n = 0;
  const gens = {
    cpuSeconds: () => calls.length * 0.5,
    progress: () => 0,
    async loop(port: number, _host: string, _conns: unknown, durationMs: number): Promise<LoopSummary> {
      calls.push({ port, durationMs });
      servers.find((s) => s.port === port)!.loops++;
      n++;
      return { count: port * 10, errors: 0, firstError: null, latencies: [n, n + 0.5], byIndex: [port, 1], seconds: durationMs / 1000 };
    },
  };
  return { gens: gens as unknown as Generators, calls };
}

const t = suite('bench: closed loops in turns');

t('sides take alternating turns of duration / turns after one warm-up each, and each side adds up its own', async () => {
  const a = fakeServer(1, 0.25);
  const b = fakeServer(2, 1);
  const { gens, calls } = fakeGenerators([a, b]);
  const ctx: Context = {
    options: { ...smokeOptions, durationS: 6, warmupS: 1, turns: 3 },
    gens,
    progress: () => undefined,
    workspace: () => Promise.reject(new Error('not used')),
  };
  const side = (label: string, server: Server): LoopSide => ({ label, server, connections: [] });
  const [ra, rb] = await measureLoops(ctx, [side('A', a), side('B', b)], 3);
  assert.equal(
    calls.map((c) => `${c.port}:${c.durationMs}`),
    ['1:1000', '2:1000', '1:2000', '2:2000', '1:2000', '2:2000', '1:2000', '2:2000'],
  );
  assert.is(ra!.warmup!.seconds, 1);
  assert.is(ra!.summary.count, 30);
  assert.is(ra!.summary.seconds, 6);
  assert.is(ra!.measurement.rate, 5);
  assert.equal(ra!.summary.byIndex, [3, 3]);
  assert.equal(ra!.summary.latencies, [3, 3.5, 5, 5.5, 7, 7.5]);
  // CPU counted over the measured turns only, the warm-up's left out.
  assert.is(ra!.measurement.cpuSeconds, 0.75);
  assert.is(rb!.measurement.cpuSeconds, 3);
  assert.is(rb!.measurement.rate, 10);
  assert.is(rb!.measurement.peakRssBytes, 1002);
  assert.is(rb!.generators['load generators CPU'], '1.5 s');
});

t('a side of its own (R3) takes its turns between the loops, and is measured by what it reports', async () => {
  const a = fakeServer(1, 0.25);
  const { gens, calls } = fakeGenerators([a]);
  const taken: string[] = [];
  const r3: TurnSide = {
    label: 'R3',
    warmup: async (durationMs) => {
      taken.push(`warm-up ${durationMs}`);
      return { count: 1, errors: 0, firstError: null, latencies: [9], byIndex: [1], seconds: durationMs / 1000 };
    },
    turn: async (durationMs, label) => {
      taken.push(`${label}: ${durationMs} after ${calls.length} loops`);
      return { summary: { count: 7, errors: 0, firstError: null, latencies: [taken.length], byIndex: [7], seconds: 1 }, cpuSeconds: 0.1 };
    },
    peakRssBytes: () => 4242,
  };
  const ctx: Context = {
    options: { ...smokeOptions, durationS: 3, warmupS: 2, turns: 3 },
    gens,
    progress: () => undefined,
    workspace: () => Promise.reject(new Error('not used')),
  };
  const [ref, loop] = await measureLoops(ctx, [r3, { label: 'A', server: a, connections: [] }], 3);
  assert.equal(taken, ['warm-up 2000', 'R3 (turn 1 of 3): 1000 after 1 loops', 'R3 (turn 2 of 3): 1000 after 2 loops', 'R3 (turn 3 of 3): 1000 after 3 loops']);
  assert.equal(
    calls.map((c) => `${c.port}:${c.durationMs}`),
    ['1:2000', '1:1000', '1:1000', '1:1000'],
  );
  assert.is(ref!.warmup!.count, 1);
  assert.is(ref!.summary.count, 21);
  assert.is(ref!.measurement.rate, 7);
  assert.equal(ref!.summary.latencies, [2, 3, 4]);
  assert.ok(Math.abs(ref!.measurement.cpuSeconds - 0.3) < 1e-9, `R3's CPU is its turns' own: ${ref!.measurement.cpuSeconds}`);
  assert.is(ref!.measurement.peakRssBytes, 4242);
  assert.is(loop!.summary.count, 30);
  assert.is(loop!.measurement.cpuSeconds, 0.75);
});

t('a failed request in any turn fails the comparison', async () => {
  const a = fakeServer(1, 0);
  const { gens } = fakeGenerators([a]);
  let turn = 0;
  const failing = {
    ...gens,
    cpuSeconds: () => 0,
    progress: () => 0,
    loop: async (...args: Parameters<Generators['loop']>) => {
      const s = await gens.loop(...args);
      return ++turn === 2 ? { ...s, errors: 1, firstError: '500 boom' } : s;
    },
  } as unknown as Generators;
  const ctx: Context = { options: { ...smokeOptions, durationS: 2, warmupS: 0, turns: 2 }, gens: failing, progress: () => undefined, workspace: () => Promise.reject(new Error('not used')) };
  try {
    await measureLoops(ctx, [{ label: 'A', server: a, connections: [] }], 2);
    assert.unreachable('the failed turn passed');
  } catch (e) {
    assert.match((e as Error).message, /A: 1 failed requests; first: 500 boom/);
  }
});

t('merged summaries add counts, seconds and counts by request, and join latencies in order', () => {
  const s = (count: number, byIndex: number[], firstError: string | null = null): LoopSummary => ({ count, errors: firstError ? 1 : 0, firstError, latencies: [count], byIndex, seconds: 2 });
  const m = mergeSummaries([s(4, [1, 3]), s(5, [2, 2, 1], 'x'), s(6, [6], 'y')]);
  assert.equal(m, { count: 15, errors: 2, firstError: 'x', latencies: [4, 5, 6], byIndex: [9, 5, 1], seconds: 6 });
});

t.run();
