// Fan-out: one message to a channel whose N subscribers each hold a parked GET /events (or an
// events WebSocket), timed from the send to the last delivery; against R2 answering N parked
// requests at once plus R3's p99 for a send to N recipients.
import type { Comparison, Measurement } from '../report.js';
import { latencyStats } from '../report.js';
import { startReference, type Server } from '../servers.js';
import { now } from '../load/protocol.js';
import type { Seeded } from '../setup.js';
import { apiPost, metric, HOST, registerQueues, startParleyOn, waitFor, withR3On, type Context } from './common.js';

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

type Gens = Pick<Context['gens'], 'collect' | 'delivered' | 'closeConnections'>;

/**
 * Wait until the server holds `n` clients. On a timeout the error says how many it held and what
 * the generators' clients met: a client whose poll was refused stops polling, and the wait would
 * otherwise end in a bare "timed out".
 */
async function waitHeld(gens: Gens, label: string, n: number, held: () => Promise<number>): Promise<void> {
  let last = 0;
  try {
    await waitFor(`${label}: ${n} held`, async () => (last = await held()) >= n, 120_000, 20);
  } catch (e) {
    const d = await gens.collect();
    throw new Error(`${(e as Error).message} (held ${last}; the generators' clients met ${d.errors} errors${d.firstError ? `, the first: ${d.firstError}` : ''})`);
  }
}

/** One round, once the caller saw all `n` held: fire, and wait for `n` deliveries; each one's time from the send, ms. */
async function round(gens: Gens, label: string, n: number, fire: () => Promise<void>): Promise<number[]> {
  const t0 = now();
  await fire();
  await waitFor(`${label}: ${n} deliveries`, () => gens.delivered() >= n, 120_000, 5);
  const d = await gens.collect();
  if (d.times.length < n) throw new Error(`${label}: ${d.times.length} of ${n} delivered`);
  return d.times.map((t) => t - t0);
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
  server: Pick<Server, 'usage'>,
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
    await waitHeld(ctx.gens, label, n, parkedNow);
    ctx.progress(r < 0 ? `${label}: warm-up round ${r + warmUp + 1}/${warmUp}` : `${label}: round ${r + 1}/${count}`);
    if (r === 0) before = server.usage();
    const times = await round(ctx.gens, label, n, fire);
    if (r < 0) continue;
    last.push(Math.max(...times));
    each.push(...times);
  }
  const after = server.usage();
  return { last, each, cpuSeconds: after.cpuSeconds - before.cpuSeconds, peakRssBytes: after.peakRssBytes };
}

/** One transport of a comparison on the same queues: how its N clients connect, and how many the server holds. */
export interface Transport {
  readonly label: string;
  connect(): Promise<void>;
  held(): Promise<number>;
}

/** Close every connection, wait until no other transport holds a client, and connect `to`. */
async function reconnect(gens: Gens, transports: readonly Transport[], to: Transport): Promise<void> {
  await gens.closeConnections();
  for (const other of transports) if (other !== to) await waitFor(`${other.label}: closed`, async () => (await other.held()) === 0, 30_000, 20);
  await to.connect();
}

/** After the clients connect: a socket first receives what its queue has not had acknowledged. */
const SETTLE_MS = 250;

/**
 * Rounds of several transports in turn on the same queues (ws-fanout: long-polls, sockets,
 * long-polls, …). Each transport first takes its `warmUp` rounds in a series of its own; then
 * each counted round is preceded by a switch: every connection is closed, the round's transport
 * connects its N clients, they settle, and what arrived meanwhile is dropped. CPU is counted from
 * each counted send to its last delivery.
 *
 * Measured one series after the other, two near-equal transports compared the machine's state
 * during each series as much as themselves: in one stop-30 run the whole socket series was slower
 * (p50 55 ms against 43), and its ratio read 1.33. In turns both meet the same moments.
 */
export async function alternatingRounds(
  ctx: Pick<Context, 'gens' | 'progress'>,
  server: Pick<Server, 'usage'>,
  n: number,
  { warmUp, count }: RoundCounts,
  transports: readonly Transport[],
  fire: () => Promise<void>,
): Promise<Rounds[]> {
  const switchTo = async (t: Transport) => {
    await reconnect(ctx.gens, transports, t);
    await waitHeld(ctx.gens, t.label, n, () => t.held());
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await ctx.gens.collect();
  };
  for (const t of transports) {
    await switchTo(t);
    for (let r = 0; r < warmUp; r++) {
      // switchTo saw them all held; after a round, long-polls park again.
      if (r > 0) await waitHeld(ctx.gens, t.label, n, () => t.held());
      ctx.progress(`${t.label}: warm-up round ${r + 1}/${warmUp}`);
      await round(ctx.gens, t.label, n, fire);
    }
  }
  const out = transports.map(() => ({ last: [] as number[], each: [] as number[], cpuSeconds: 0 }));
  for (let r = 0; r < count; r++) {
    for (const [i, t] of transports.entries()) {
      await switchTo(t);
      ctx.progress(`${t.label}: round ${r + 1}/${count}`);
      const before = server.usage().cpuSeconds;
      const times = await round(ctx.gens, t.label, n, fire);
      out[i]!.cpuSeconds += server.usage().cpuSeconds - before;
      out[i]!.last.push(Math.max(...times));
      out[i]!.each.push(...times);
    }
  }
  await ctx.gens.closeConnections();
  const peakRssBytes = server.usage().peakRssBytes;
  return out.map((o) => ({ ...o, peakRssBytes }));
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

/**
 * ws-fanout takes its transports in turn (alternatingRounds) up to this many clients. Above it
 * each switch connects every client anew, 11–14 s at N = 10,000, and the two series run one after
 * the other.
 */
const MAX_CLIENTS_IN_TURN = 2_000;
/** The smoke run's sizes are 5 and 10: the first takes turns and the second runs in series, so both ways run. */
const maxClientsInTurn = (ctx: Context) => (ctx.options.smoke ? 5 : MAX_CLIENTS_IN_TURN);

interface Phase {
  readonly n: number;
  readonly longPoll: Rounds;
  readonly socket: Rounds | null;
}

/**
 * Parley, every size in one process: queues for the first N subscribers are registered and their
 * long-polls parked (more join for the next size); with sockets, the same queues take their rounds
 * over long-polls and over WebSockets: in turn up to MAX_CLIENTS_IN_TURN, else one series after
 * the other.
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
  const server = await startParleyOn(ctx, ws, { profile: ctx.options.profile });
  const phases: Phase[] = [];
  try {
    const queues: Array<{ queueId: string; lastEventId: number }> = [];
    for (const n of ns) {
      queues.push(...(await registerQueues(ctx, server.port, seeded.users.slice(queues.length, n), ['message'])));
      const fire = async () => void (await apiPost(server.port, seeded.users[0]!, '/messages', { type: 'stream', to: String(seeded.channels[`fan${n}`]), topic: 'fanout', content: 'Fan-out!' }));
      const clients = (from: number) =>
        queues.slice(from, n).map((q, i) => ({ path: `/api/v1/events?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[from + i]!.auth }, last: q.lastEventId }));
      const longPolls: Transport = {
        label: `Parley long-poll N=${n}`,
        connect: async () => {
          const parkedBefore = withSockets || phases.length === 0 ? 0 : phases[phases.length - 1]!.n;
          const p = await ctx.gens.park(server.port, HOST, 'events', clients(parkedBefore), 'message');
          if (p.failed > 0) throw new Error(`${longPolls.label}: ${p.failed} long-polls failed: ${p.firstError}`);
        },
        held: () => metric(server.port, 'parley_parked_long_polls'),
      };
      const sockets: Transport = {
        label: `Parley WebSocket N=${n}`,
        connect: async () => {
          const socketClients = queues
            .slice(0, n)
            .map((q, i) => ({ path: `/api/v1/events/socket?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[i]!.auth }, last: -1 }));
          const p = await ctx.gens.park(server.port, HOST, 'ws', socketClients, 'message');
          if (p.failed > 0) throw new Error(`${sockets.label}: ${p.failed} sockets failed: ${p.firstError}`);
        },
        held: () => metric(server.port, 'parley_open_websockets'),
      };
      if (withSockets && n <= maxClientsInTurn(ctx)) {
        const [longPoll, socket] = await alternatingRounds(ctx, server, n, roundsFor(ctx, n), [longPolls, sockets], fire);
        phases.push({ n, longPoll: longPoll!, socket: socket! });
        continue;
      }
      // One series after the other (or long-polls alone).
      await longPolls.connect();
      const longPoll = await rounds(ctx, longPolls.label, server, n, roundsFor(ctx, n), () => longPolls.held(), fire);
      let socket: Rounds | null = null;
      if (withSockets) {
        await reconnect(ctx.gens, [longPolls], sockets);
        // Sockets first receive the queue's unacknowledged backlog: let it drain, then forget it.
        await new Promise((r) => setTimeout(r, 1000));
        socket = await rounds(ctx, sockets.label, server, n, roundsFor(ctx, n), () => sockets.held(), fire);
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
