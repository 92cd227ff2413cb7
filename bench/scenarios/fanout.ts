// Fan-out: one message to a channel whose N subscribers each hold a parked GET /events (or an
// events WebSocket), timed from the send to the last delivery; against R2 answering N parked
// requests at once plus R3's p99 for a send to N recipients.
import type { Comparison, Measurement } from '../report.js';
import { latencyStats } from '../report.js';
import { startParley, startReference, type Server } from '../servers.js';
import { now } from '../load/protocol.js';
import type { Seeded } from '../setup.js';
import { apiPost, gauge, HOST, registerQueues, waitFor, withR3On, type Context } from './common.js';

interface Rounds {
  /** Send → last delivery of each round, ms. */
  readonly last: number[];
  /** Send → each delivery, ms, all rounds. */
  readonly each: number[];
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

/** How many rounds a series runs uncounted, then how many it counts. */
export interface RoundCounts {
  readonly warmUp: number;
  readonly count: number;
}

/**
 * `warmUp` rounds uncounted, then `count` rounds: wait until n are parked, fire, wait for n
 * deliveries. A series is measured in its steady state, as the closed loops are after their
 * warm-up. At N = 1,000 the rounds of a series get faster for about fifteen rounds, both
 * transports alike: in two series of 35 rounds each, the median of each five rounds (send to last
 * delivery) went 62, 46, 41, 40 ms and then 33–38 for long-polls, 58, 48, 38 ms and then 32–35
 * for sockets. It is not only compilation (three uncounted rounds did not end it). With one
 * uncounted round the counted rounds were a transient: their slowest (the p99 of five) was mostly
 * the first, and the series measured second started from a warmer state.
 */
export async function rounds(
  ctx: Pick<Context, 'gens' | 'progress'>,
  label: string,
  server: Server,
  n: number,
  { warmUp, count }: RoundCounts,
  parkedNow: () => Promise<number>,
  fire: () => Promise<void>,
): Promise<Rounds> {
  const last: number[] = [];
  const each: number[] = [];
  // Deliveries before the first round (a socket's backlog) are not a round's.
  await ctx.gens.collect();
  let before = server.usage();
  for (let r = -warmUp; r < count; r++) {
    await waitFor(`${label}: ${n} parked`, async () => (await parkedNow()) >= n, 120_000, 50);
    ctx.progress(r < 0 ? `${label}: warm-up round ${r + warmUp + 1}/${warmUp}` : `${label}: round ${r + 1}/${count}`);
    if (r === 0) before = server.usage();
    const t0 = now();
    await fire();
    await waitFor(`${label}: ${n} deliveries`, () => ctx.gens.delivered() >= n, 120_000, 5);
    const d = await ctx.gens.collect();
    if (d.times.length < n) throw new Error(`${label}: ${d.times.length} of ${n} delivered`);
    if (r < 0) continue;
    const times = d.times.map((t) => t - t0);
    last.push(Math.max(...times));
    each.push(...times);
  }
  const after = server.usage();
  return { last, each, cpuSeconds: after.cpuSeconds - before.cpuSeconds, peakRssBytes: after.peakRssBytes };
}

function measurementOf(who: string, r: Rounds, extra: Record<string, string> = {}): Measurement {
  const l = latencyStats(r.last);
  const e = latencyStats(r.each);
  return {
    who,
    rate: null,
    rateUnit: '',
    p50Ms: l.p50,
    p99Ms: l.p99,
    cpuSeconds: r.cpuSeconds,
    peakRssBytes: r.peakRssBytes,
    extra: { 'each delivery p50/p99': `${e.p50.toFixed(1)}/${e.p99.toFixed(1)} ms`, rounds: String(r.last.length), ...extra },
  };
}

/** R2: N parked plain requests answered at once. */
async function r2Rounds(ctx: Context, n: number, counts: RoundCounts): Promise<Rounds> {
  const server = await startReference('r2-park');
  try {
    const parked = await ctx.gens.park(server.port, HOST, 'plain', Array.from({ length: n }, () => ({ path: '/park', headers: {}, last: 0 })));
    if (parked.failed > 0) throw new Error(`R2: ${parked.failed} connections failed: ${parked.firstError}`);
    const parkedNow = async () => Number(await (await fetch(`http://127.0.0.1:${server.port}/count`)).text());
    const fire = async () => void (await fetch(`http://127.0.0.1:${server.port}/fire`, { method: 'POST' }));
    return await rounds(ctx, `R2 N=${n}`, server, n, counts, parkedNow, fire);
  } finally {
    await ctx.gens.closeConnections();
    await server.stop();
  }
}

/** R3's p99 for a send to the channel (one at a time), then its rows removed. */
async function r3P99(ctx: Context, ws: Awaited<ReturnType<Context['workspace']>>, seeded: Seeded, channel: string, sends: number): Promise<number> {
  const realmId = await ws.withApp(async (app) => (await app.realms.only()!).id);
  const r = await withR3On(
    ws,
    { pool: 1, concurrency: 1, realmId, kind: 'channel', channelId: seeded.channels[channel]!, senders: [seeded.users[0]!.id], partners: [] },
    (r3) => r3.run({ durationMs: 60_000, maxCount: sends }),
  );
  return latencyStats(r.result.latencies).p99;
}

function sizes(ctx: Context): number[] {
  return [...(ctx.options.sizes ?? (ctx.options.smoke ? [5, 10] : [1000, 10_000]))].sort((a, b) => a - b);
}

/** Deliveries a series makes before it is counted: twenty rounds at N = 1,000, two at 10,000. */
const WARM_UP_DELIVERIES = 20_000;

const roundsFor = (ctx: Context, n: number): RoundCounts =>
  ctx.options.smoke ? { warmUp: 1, count: 2 } : { warmUp: Math.ceil(WARM_UP_DELIVERIES / n), count: n >= 10_000 ? 3 : 5 };

interface Phase {
  readonly n: number;
  readonly longPoll: Rounds;
  readonly socket: Rounds | null;
}

/**
 * Parley, every size in one process: queues for the first N subscribers are registered and their
 * long-polls parked (more join for the next size); with sockets, the same queues then move to
 * WebSockets for the same rounds.
 */
async function parleyPhases(ctx: Context, withSockets: boolean): Promise<{ phases: Phase[]; r3: Record<number, number> }> {
  const ns = sizes(ctx);
  const max = ns[ns.length - 1]!;
  const ws = await ctx.workspace();
  ctx.progress(`fanout: seeding ${max.toLocaleString('en-US')} users and channels of ${ns.join(', ')} subscribers`);
  const seeded = await ws.seed({ users: max, channels: ns.map((n) => ({ name: `fan${n}`, subscribers: n })) });
  const r3: Record<number, number> = {};
  for (const n of ns) {
    ctx.progress(`fanout R3: sends to ${n} recipients`);
    r3[n] = await r3P99(ctx, ws, seeded, `fan${n}`, ctx.options.smoke ? 5 : 30);
  }
  const server = await startParley({ dataDir: ws.dataDir, databaseUrl: ws.databaseUrl, profile: ctx.options.profile });
  const phases: Phase[] = [];
  try {
    const queues: Array<{ queueId: string; lastEventId: number }> = [];
    for (const n of ns) {
      queues.push(...(await registerQueues(ctx, server.port, seeded.users.slice(queues.length, n), ['message'])));
      const fire = async () => void (await apiPost(server.port, seeded.users[0]!, '/messages', { type: 'stream', to: String(seeded.channels[`fan${n}`]), topic: 'fanout', content: 'Fan-out!' }));
      const clients = (from: number) =>
        queues.slice(from, n).map((q, i) => ({ path: `/api/v1/events?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[from + i]!.auth }, last: q.lastEventId }));
      const parkedBefore = phases.length === 0 ? 0 : phases[phases.length - 1]!.n;
      const p = await ctx.gens.park(server.port, HOST, 'events', clients(withSockets ? 0 : parkedBefore), 'message');
      if (p.failed > 0) throw new Error(`fanout: ${p.failed} long-polls failed: ${p.firstError}`);
      const longPoll = await rounds(ctx, `Parley long-poll N=${n}`, server, n, roundsFor(ctx, n), () => gauge(server.port, 'parley_parked_long_polls'), fire);
      let socket: Rounds | null = null;
      if (withSockets) {
        await ctx.gens.closeConnections();
        await waitFor('long-polls to end', async () => (await gauge(server.port, 'parley_parked_long_polls')) === 0, 30_000, 50);
        const s = await ctx.gens.park(
          server.port,
          HOST,
          'ws',
          queues.slice(0, n).map((q, i) => ({ path: `/api/v1/events/socket?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[i]!.auth }, last: -1 })),
          'message',
        );
        if (s.failed > 0) throw new Error(`ws-fanout: ${s.failed} sockets failed: ${s.firstError}`);
        // Sockets first receive the queue's unacknowledged backlog: let it drain, then forget it.
        await new Promise((r) => setTimeout(r, 1000));
        socket = await rounds(ctx, `Parley WebSocket N=${n}`, server, n, roundsFor(ctx, n), () => gauge(server.port, 'parley_open_websockets'), fire);
        await ctx.gens.closeConnections();
      }
      phases.push({ n, longPoll, socket });
    }
  } finally {
    await ctx.gens.closeConnections();
    await server.stop();
  }
  return { phases, r3 };
}

export async function fanout(ctx: Context): Promise<Comparison[]> {
  const refs = new Map<number, Rounds>();
  for (const n of sizes(ctx)) refs.set(n, await r2Rounds(ctx, n, roundsFor(ctx, n)));
  const { phases, r3 } = await parleyPhases(ctx, false);
  return phases.map((p) => {
    const ref = refs.get(p.n)!;
    const r2Time = latencyStats(ref.last).p50;
    const budget = 3 * r2Time + r3[p.n]!;
    const parley = measurementOf('Parley long-poll', p.longPoll);
    return {
      scenario: 'fanout',
      variant: `N=${p.n.toLocaleString('en-US')}`,
      reference: measurementOf('R2 answer N at once', ref, { 'R3 p99 (send to N)': `${r3[p.n]!.toFixed(1)} ms` }),
      parley,
      ratio: parley.p99Ms! / budget,
      ratioOf: 'last-delivery p99 ÷ (3 × R2 + R3 p99)',
      target: `p99 of last delivery ≤ 3 × R2 + R3 p99 = ${budget.toFixed(1)} ms`,
      met: parley.p99Ms! <= budget,
      notes: [],
    };
  });
}

export async function wsFanout(ctx: Context): Promise<Comparison[]> {
  const { phases } = await parleyPhases(ctx, true);
  return phases.map((p) => {
    const ref = measurementOf('Parley long-poll', p.longPoll);
    const sock = measurementOf('Parley WebSocket', p.socket!);
    return {
      scenario: 'ws-fanout',
      variant: `N=${p.n.toLocaleString('en-US')}`,
      reference: ref,
      parley: sock,
      ratio: sock.p99Ms! / ref.p99Ms!,
      ratioOf: 'last-delivery p99, socket ÷ long-poll',
      target: '≤ the long-poll fan-out time',
      met: sock.p99Ms! <= ref.p99Ms!,
      notes: [],
    };
  });
}
