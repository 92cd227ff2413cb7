// Capacity: N parked long-polls, each on its own queue, in one Parley process, against R2's
// memory per parked request. Restart: N queues with unacknowledged events survive a restart and
// answer within 2 s of the process starting, against a bare uWS process's start.
import { join } from 'node:path';
import { usageOnly, type Comparison } from '../report.js';
import { Inspector } from '../inspector.js';
import { startReference, type Usage } from '../servers.js';
import { now } from '../load/protocol.js';
import { STARTUP_PHASES } from '../../src/startup.js';
import { apiPost, metric, metricByLabel, HOST, mbPer, registerQueues, startParleyOn, waitFor, type Context } from './common.js';

const settle = () => new Promise((r) => setTimeout(r, 1000));

/** A process's anonymous resident memory as N parks: after full collections, and right after parking. */
export interface Readings {
  /** Anonymous resident bytes held after a full collection (see held), at the baseline, a third of N and N. */
  readonly collected: [number, number, number];
  /** Anonymous resident bytes right after parking, at the baseline and N (no collection). */
  readonly atOnce: [number, number];
  /** Live bytes on V8's heap right after a full collection, at the points of `collected`: the least of the readings. */
  readonly heap: [number, number, number];
}

/**
 * Readings per point, each after a full collection; the least is the one kept. The process keeps
 * running between the collection and the reading: its timers allocate (Parley's queue flush,
 * every 2 s, writes the contact times of every queue a poll touched), and the young generation's
 * pages come back with the first allocation after the collection, 1.8 to 3.5 MB of them. That
 * lands in some readings and not others, at random; it only ever adds to one. A single reading
 * gave Parley's memory per parked poll as 1.3 to 1.7 KiB in three runs of the same code, the high
 * and the low one each with 2.7 MB of young generation in one of its two readings and none in the
 * other.
 */
const READINGS = 3;

/** Anonymous resident bytes held after a full collection, and the heap's live bytes: the least of READINGS readings of each. */
async function held(inspector: Pick<Inspector, 'collectedUsage'>, server: { usage(): Usage }): Promise<{ anon: number; heap: number }> {
  let anon = Infinity;
  let heap = Infinity;
  for (let i = 0; i < READINGS; i++) {
    const r = await inspector.collectedUsage(server);
    anon = Math.min(anon, r.usage.anonBytes);
    heap = Math.min(heap, r.heapBytes);
  }
  return { anon, heap };
}

/** The first of the two steps of parking: a third of N. */
const firstStep = (n: number) => Math.ceil(n / 3);

/**
 * Park N in two steps, the first third then the rest, and read memory before, between and after.
 * `park(from, to)` parks clients [from, to) and resolves once the server holds them; `read(point)`,
 * when given, runs after the readings at a third of N and at N.
 */
export async function readWhileParking(
  inspector: Pick<Inspector, 'collectedUsage'>,
  server: { usage(): Usage },
  n: number,
  park: (from: number, to: number) => Promise<void>,
  read?: (point: 'third' | 'all') => Promise<void>,
): Promise<Readings> {
  const third = firstStep(n);
  const before = server.usage().anonBytes;
  const collectedBefore = await held(inspector, server);
  await park(0, third);
  await settle();
  const collectedThird = await held(inspector, server);
  await read?.('third');
  await park(third, n);
  await settle();
  const atOnce = server.usage().anonBytes;
  const collectedAll = await held(inspector, server);
  await read?.('all');
  return {
    collected: [collectedBefore.anon, collectedThird.anon, collectedAll.anon],
    atOnce: [before, atOnce],
    heap: [collectedBefore.heap, collectedThird.heap, collectedAll.heap],
  };
}

/**
 * What one more parked request costs: the growth from a third of N to N, per request. The first
 * third pays what is paid once (code compiled or first run, tables grown for the first time, the
 * allocator's own memory), which the average over all N counted as if every request held it.
 */
export const marginal = (r: Readings, n: number) => (r.collected[2] - r.collected[1]) / (n - firstStep(n));
export const average = (r: Readings, n: number) => (r.collected[2] - r.collected[0]) / n;
/** Of the marginal cost, what is on V8's heap (the objects of a parked request, exactly). */
export const marginalHeap = (r: Readings, n: number) => (r.heap[2] - r.heap[1]) / (n - firstStep(n));
const rightAfter = (r: Readings, n: number) => (r.atOnce[1] - r.atOnce[0]) / n;

export async function capacity(ctx: Context): Promise<Comparison[]> {
  const n = ctx.options.sizes?.[0] ?? (ctx.options.smoke ? 20 : 15_000);
  // Memory is read after a full collection (the inspector's): a burst of work (Parley's start,
  // its registrations) grows V8's heap well beyond what stays alive, and the rest is given back
  // only when V8 next gets to it. Read right after parking, the growth shows the burst; after a
  // full collection (the least of three readings: see held), what the parked clients hold. R2 is
  // read the same way.
  // Both read anonymous resident memory (what a process allocated), not RSS: RSS also counts the
  // pages of Node's executable that run for the first time, and parking N requests first runs
  // much of it in R2 (about 4 MB at N = 15,000, which RSS counted as R2's per-request memory),
  // where Parley ran it while starting.
  // The target is about memory per parked request, so it is judged by the marginal cost (from a
  // third of N to N); the average over all N is reported beside it.
  // R2 first: memory per parked request, and the time to answer all of them.
  const r2 = await startReference('r2-park', { inspect: true });
  let r2Memory: Readings;
  let r2Answer: number;
  let r2Usage;
  const r2Inspector = await Inspector.connect(r2);
  try {
    await fetch(`http://127.0.0.1:${r2.port}/count`);
    ctx.progress(`capacity R2: parking ${n.toLocaleString('en-US')}`);
    r2Memory = await readWhileParking(r2Inspector, r2, n, async (from, to) => {
      const p = await ctx.gens.park(r2.port, HOST, 'plain', Array.from({ length: to - from }, () => ({ path: '/park', headers: {}, last: 0 })));
      if (p.failed > 0) throw new Error(`R2: ${p.failed} failed: ${p.firstError}`);
      await waitFor('R2 parked', async () => Number(await (await fetch(`http://127.0.0.1:${r2.port}/count`)).text()) >= to, 120_000, 50);
    });
    await ctx.gens.collect();
    const t0 = now();
    await fetch(`http://127.0.0.1:${r2.port}/fire`, { method: 'POST' });
    await waitFor('R2 answers', () => ctx.gens.delivered() >= n, 120_000, 5);
    r2Answer = Math.max(...(await ctx.gens.collect()).times) - t0;
    r2Usage = r2.usage();
  } finally {
    r2Inspector.close();
    await ctx.gens.closeConnections();
    await r2.stop();
  }

  const ws = await ctx.workspace();
  ctx.progress(`capacity: seeding ${n.toLocaleString('en-US')} users`);
  // N users park; one more warms the code paths first and holds no poll.
  const seeded = await ws.seed({ users: n + 1, channels: [] });
  // Held means held: no heartbeat answers a parked poll while the scenario runs (by default the
  // first would come 45 s after a poll parks, and a slow machine takes about that long to park N).
  const server = await startParleyOn(ctx, ws, {
    profile: ctx.options.profile,
    env: { HEARTBEAT_MS: String(10 * 60_000) },
    inspect: true,
  });
  const inspector = await Inspector.connect(server);
  const snapshotDir = ctx.options.profile.snapshotDir;
  let held: number;
  let memory: Readings;
  let usage;
  let registered = 0;
  let registerMs = 0;
  try {
    // A first queue and poll so the baseline includes the code paths, not just the idle process.
    const warm = await registerQueues(ctx, server.port, seeded.users.slice(n), ['message']);
    await fetch(`http://127.0.0.1:${server.port}/api/v1/events?queue_id=${warm[0]!.queueId}&dont_block=true`, { headers: { authorization: seeded.users[n]!.auth } });
    await settle();
    memory = await readWhileParking(inspector, server, n, async (from, to) => {
      const t = now();
      const queues = await registerQueues(ctx, server.port, seeded.users.slice(from, to), ['message']);
      registerMs += now() - t;
      registered += queues.length;
      ctx.progress(`capacity Parley: parking ${queues.length.toLocaleString('en-US')} long-polls`);
      const p = await ctx.gens.park(
        server.port,
        HOST,
        'events',
        queues.map((q, i) => ({ path: `/api/v1/events?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[from + i]!.auth }, last: q.lastEventId })),
        'message',
      );
      if (p.failed > 0) throw new Error(`capacity: ${p.failed} long-polls failed: ${p.firstError}\n${server.output().slice(-3000)}`);
      await waitFor('Parley parked', async () => (await metric(server.port, 'parley_parked_long_polls')) >= to, 120_000, 100);
    }, snapshotDir === undefined ? undefined : async (point) => {
      const file = join(snapshotDir, `capacity-${n}-${point}.heapsnapshot`);
      ctx.progress(`capacity Parley: heap snapshot ${file}`);
      await inspector.heapSnapshot(file);
    });
    held = await metric(server.port, 'parley_parked_long_polls');
    usage = server.usage();
    // Held means held: none answered early.
    const early = await ctx.gens.collect();
    if (early.errors > 0) throw new Error(`capacity: ${early.errors} long-polls failed: ${early.firstError}\n${server.output().slice(-3000)}`);
    // One message to a user proves the parked polls still answer.
    await apiPost(server.port, seeded.users[0]!, '/messages', { type: 'direct', to: JSON.stringify([seeded.users[0]!.id]), content: 'still there?' });
    await waitFor('a parked poll to answer', () => ctx.gens.delivered() >= 1, 10_000, 10);
  } finally {
    inspector.close();
    await ctx.gens.closeConnections();
    await server.stop();
  }
  const per = marginal(memory, n);
  const r2Per = marginal(r2Memory, n);
  return [
    {
      scenario: 'capacity',
      variant: `N=${n.toLocaleString('en-US')}`,
      reference: usageOnly('R2 parked requests', r2Usage, {
        'memory per parked request': mbPer(r2Per),
        'average over all N': mbPer(average(r2Memory, n)),
        'right after parking': mbPer(rightAfter(r2Memory, n)),
        'time to answer N': `${r2Answer.toFixed(1)} ms`,
      }),
      parley: usageOnly('Parley', usage, {
        held: `${held.toLocaleString('en-US')} of ${n.toLocaleString('en-US')}`,
        'memory per queue + parked poll': mbPer(per),
        'average over all N': mbPer(average(memory, n)),
        'right after parking': mbPer(rightAfter(memory, n)),
        'POST /register': `${(registered / (registerMs / 1000)).toFixed(0)}/s`,
      }),
      ratio: per / r2Per,
      ratioOf: 'memory per parked, Parley ÷ R2',
      target: `${n.toLocaleString('en-US')} held; memory per (queue + parked request) ≤ 2 × R2's`,
      met: held >= n && per <= 2 * r2Per,
      notes: [
        `memory per parked request: anonymous resident memory after a full collection (the least of ${READINGS} readings), from N/3 to N parked; over all N, Parley ÷ R2 was ${(average(memory, n) / average(r2Memory, n)).toFixed(2)}, and right after parking (no collection) ${(rightAfter(memory, n) / rightAfter(r2Memory, n)).toFixed(2)}`,
        `of it on V8's heap (live objects right after the collection, from N/3 to N): Parley ${marginalHeap(memory, n).toFixed(0)} bytes, R2 ${marginalHeap(r2Memory, n).toFixed(0)}`,
      ],
    },
  ];
}

/** The server's own account of its start (parley_startup_seconds, in seconds), in milliseconds, in the phases' order. */
export function startupPhases(seconds: ReadonlyMap<string, number>): string {
  const known = STARTUP_PHASES.filter((p) => seconds.has(p));
  if (known.length === 0) return 'not reported';
  return `${known.map((p) => `${p} ${(seconds.get(p)! * 1000).toFixed(0)}`).join(', ')} ms`;
}

export async function restart(ctx: Context): Promise<Comparison[]> {
  const n = ctx.options.sizes?.[0] ?? (ctx.options.smoke ? 20 : 10_000);
  const messages = 3;
  // The reference: a bare uWS process from spawn to its first answer.
  const ref = await startReference('r1-json');
  const refReady = ref.startMs;
  const refUsage = ref.usage();
  await ref.stop();

  const ws = await ctx.workspace();
  ctx.progress(`restart: seeding ${n.toLocaleString('en-US')} users and a channel they all follow`);
  const seeded = await ws.seed({ users: n, channels: [{ name: 'restart', subscribers: n }] });
  const first = await startParleyOn(ctx, ws);
  let queues;
  try {
    queues = await registerQueues(ctx, first.port, seeded.users, ['message']);
    for (let i = 0; i < messages; i++) {
      await apiPost(first.port, seeded.users[0]!, '/messages', { type: 'stream', to: String(seeded.channels.restart), topic: 'restart', content: `before restart ${i}` });
    }
  } finally {
    await first.stop();
  }
  ctx.progress('restart: starting Parley again');
  const t0 = now();
  const second = await startParleyOn(ctx, ws, { port: first.port, profile: ctx.options.profile });
  const serving = now() - t0;
  let valid: number;
  let bad: number;
  let usage;
  let phases: Map<string, number>;
  try {
    const r = await ctx.gens.once(
      second.port,
      HOST,
      queues.map((q, i) => ({ method: 'GET', path: `/api/v1/events?queue_id=${q.queueId}&last_event_id=${q.lastEventId}&dont_block=true`, headers: { authorization: seeded.users[i]!.auth } })),
      200,
      ['events'],
    );
    valid = r.lastAt - t0;
    bad = r.answers.filter((a) => a.status !== 200 || (a.fields.events as string[]).filter((t) => t === 'message').length !== messages).length;
    usage = second.usage();
    phases = await metricByLabel(second.port, 'parley_startup_seconds', 'phase');
  } finally {
    await second.stop();
  }
  return [
    {
      scenario: 'restart',
      variant: `${n.toLocaleString('en-US')} queues × ${messages} unacknowledged events`,
      reference: usageOnly('bare uWS process start', refUsage, { 'spawn → listening': `${refReady.toFixed(0)} ms` }),
      parley: usageOnly('Parley', usage, {
        'spawn → serving': `${serving.toFixed(0)} ms`,
        'spawn → every queue answered': `${valid.toFixed(0)} ms`,
        'queues wrong or lost': String(bad),
        'its start, by phase': startupPhases(phases),
      }),
      ratio: valid / refReady,
      ratioOf: 'time to every queue valid ÷ bare process start',
      target: 'serving again and every queue valid within 2 s of start',
      met: bad === 0 && serving <= 2000 && valid <= 2000,
      notes: [],
    },
  ];
}
