// Closed-loop scenarios: presence and typing against R1, durable sends against R3.
import type { HttpRequest } from '../load/http-connection.js';
import type { Comparison, Measurement } from '../report.js';
import type { LoopSummary } from '../load/generators.js';
import { startReference, type Server } from '../servers.js';
import type { Workspace } from '../setup.js';
import { SEND_CONTENT } from '../refs/r3-send.js';
import { HOST, measureLoops, metric, r3Turns, registerQueues, startParleyOn, waitFor, withR3On, type Context, type LoopOutcome, type LoopSide, type TurnSide } from './common.js';

const R1_BODY = 'status=active&new_user_input=true&slim_presence=true&last_update_id=-1';

/** R1 under the same connections and request sizes as the Parley loop. */
function r1Side(label: string, server: Server, connections: number): LoopSide {
  return { label: `${label} R1`, server, connections: Array.from({ length: connections }, (): HttpRequest[] => [{ method: 'POST', path: '/api/v1/json', body: R1_BODY }]) };
}

/**
 * R1 and Parley (on `ws`) measured in alternating turns (measureLoops): `parleySide` prepares
 * Parley's side once R1 runs beside it, and `after` reads what it needs (while Parley still runs:
 * its metrics among them).
 */
async function againstR1<T>(
  ctx: Context,
  ws: Workspace,
  label: string,
  connections: number,
  parleySide: (server: Server) => Promise<LoopSide>,
  after: (outcome: LoopOutcome, server: Server) => Promise<T>,
): Promise<{ ref: Measurement; parley: LoopOutcome; more: T }> {
  const r1 = await startReference('r1-json');
  try {
    return await withParley(ctx, ws, async (server) => {
      const side = await parleySide(server);
      const [ref, parley] = await measureLoops(ctx, [r1Side(label, r1, connections), side], ctx.options.turns);
      return { ref: { who: 'R1 bare uWS JSON', ...ref!.measurement, extra: ref!.generators }, parley: parley!, more: await after(parley!, server) };
    });
  } finally {
    await r1.stop();
  }
}

async function withParley<T>(ctx: Context, ws: Workspace, f: (s: Server) => Promise<T>): Promise<T> {
  const server = await startParleyOn(ctx, ws, { profile: ctx.options.profile });
  try {
    return await f(server);
  } finally {
    await server.stop();
  }
}

export async function presence(ctx: Context): Promise<Comparison[]> {
  const users = ctx.options.smoke ? 20 : 1000;
  const clients = ctx.options.concurrency ?? (ctx.options.smoke ? 4 : 200);
  const ws = await ctx.workspace();
  ctx.progress(`presence: seeding ${users} users`);
  const seeded = await ws.seed({ users, channels: [] });
  const { ref, parley } = await againstR1(
    ctx,
    ws,
    'presence',
    clients,
    async (server) => ({
      label: 'presence Parley',
      server,
      // Each connection polls for its share of the organization's users, echoing the id it last saw.
      connections: Array.from({ length: clients }, (_, c): HttpRequest[] =>
        seeded.users
          .filter((_u, i) => i % clients === c)
          .map((u) => ({
            method: 'POST',
            path: '/api/v1/users/me/presence',
            headers: { authorization: u.auth },
            body: 'status=active&new_user_input=true&slim_presence=true&last_update_id={LAST}',
          })),
      ),
      chain: { field: 'presence_last_update_id', initial: '-1' },
    }),
    async () => undefined,
  );
  const ratio = parley.measurement.rate! / ref.rate!;
  return [
    {
      scenario: 'presence',
      variant: `${users} users, ${clients} clients`,
      reference: ref,
      parley: { who: 'Parley', ...parley.measurement, extra: parley.generators },
      ratio,
      ratioOf: 'req/s',
      target: '≥ 0.30 × R1 req/s, p99 ≤ 20 ms',
      met: ratio >= 0.3 && parley.measurement.p99Ms! <= 20,
      notes: [],
    },
  ];
}

export async function typing(ctx: Context): Promise<Comparison[]> {
  const members = ctx.options.smoke ? 6 : 50;
  const clients = ctx.options.concurrency ?? members;
  const ws = await ctx.workspace();
  ctx.progress(`typing: seeding ${members} users and a ${members}-subscriber channel`);
  const seeded = await ws.seed({ users: members, channels: [{ name: 'typing', subscribers: members }] });
  const channelId = seeded.channels.typing!;
  const fanout = [members, 2, members, 2];
  const expected = (s: LoopSummary | null) => (s?.byIndex ?? []).reduce((sum, n, i) => sum + (n ?? 0) * fanout[i]!, 0);
  const { ref, parley, more } = await againstR1(
    ctx,
    ws,
    'typing',
    clients,
    async (server) => {
      // Channel typing goes only to clients that declare they show it.
      const queues = await registerQueues(ctx, server.port, seeded.users, ['typing'], { stream_typing_notifications: true });
      const parked = await ctx.gens.park(
        server.port,
        HOST,
        'events',
        queues.map((q, i) => ({ path: `/api/v1/events?queue_id=${q.queueId}&last_event_id={LAST}`, headers: { authorization: seeded.users[i]!.auth }, last: q.lastEventId })),
        'typing',
      );
      if (parked.failed > 0) throw new Error(`typing: ${parked.failed} long-polls failed: ${parked.firstError}`);
      // Each client alternates a topic (all members are told) and a direct conversation (two are).
      const connections = Array.from({ length: clients }, (_, c): HttpRequest[] => {
        const me = seeded.users[c % members]!;
        const peer = seeded.users[(c + 1) % members]!;
        const post = (body: string): HttpRequest => ({ method: 'POST', path: '/api/v1/typing', headers: { authorization: me.auth }, body });
        return [
          post(`type=stream&stream_id=${channelId}&topic=bench&op=start`),
          post(`type=direct&to=${encodeURIComponent(JSON.stringify([peer.id]))}&op=start`),
          post(`type=stream&stream_id=${channelId}&topic=bench&op=stop`),
          post(`type=direct&to=${encodeURIComponent(JSON.stringify([peer.id]))}&op=stop`),
        ];
      });
      return { label: 'typing Parley', server, connections };
    },
    async (outcome, server) => {
      // Every event of the warm-up and the measured turns, as the parked clients counted them.
      const sent = expected(outcome.warmup) + expected(outcome.summary);
      let got = 0;
      await waitFor(
        'typing events',
        async () => {
          got += (await ctx.gens.collect()).events.typing ?? 0;
          return got >= sent;
        },
        10_000,
        250,
      ).catch(() => undefined);
      // How the events were batched: fewer, larger answers cost Parley less per event.
      const answers = await metric(server.port, 'parley_http_requests_total', 'route="/api/v1/events",method="GET",status="200"');
      return { sent, got, answers };
    },
  );
  const { sent, got, answers } = more;
  const ratio = parley.measurement.rate! / ref.rate!;
  return [
    {
      scenario: 'typing',
      variant: `${members}-subscriber topic + direct, ${clients} clients`,
      reference: ref,
      parley: {
        who: 'Parley',
        ...parley.measurement,
        extra: {
          'typing events delivered': `${got.toLocaleString('en-US')} of ${sent.toLocaleString('en-US')}`,
          'long-poll answers': `${answers.toLocaleString('en-US')} (${Math.round(got / answers).toLocaleString('en-US')} events each)`,
          ...parley.generators,
        },
      },
      ratio,
      ratioOf: 'req/s',
      target: '≥ 0.40 × R1 req/s; every typing event delivered',
      met: ratio >= 0.4 && got === sent,
      notes: got > sent ? ['more typing events than sent requests × recipients: check the count'] : [],
    },
  ];
}

/**
 * Durable sends against R3. On Postgres, R3 runs in its own process beside Parley and the two send
 * in alternating turns (measureLoops): measured one after the other they met different databases
 * (in one run a checkpoint that R3's writes brought on ran through Parley's measurement). The
 * embedded database serves one session at a time, so there R3 runs first, its rows are removed,
 * and Parley starts after it.
 */
export async function send(ctx: Context): Promise<Comparison[]> {
  const clients = ctx.options.concurrency ?? (ctx.options.smoke ? 2 : 10);
  const subscribers = ctx.options.smoke ? 10 : 100;
  const ws = await ctx.workspace();
  ctx.progress(`send: seeding ${Math.max(subscribers, 2 * clients)} users and a ${subscribers}-subscriber channel`);
  const seeded = await ws.seed({ users: Math.max(subscribers, 2 * clients), channels: [{ name: 'send', subscribers }] });
  const realmId = await ws.withApp(async (app) => (await app.realms.only()!).id);
  // R3 has as many connections as Parley: the pool of DB_POOL_MAX (10), or the embedded one.
  const pool = ws.databaseUrl ? 10 : 1;
  const senders = seeded.users.slice(0, clients).map((u) => u.id);
  const partners = seeded.users.slice(clients, 2 * clients).map((u) => u.id);
  const byId = new Map(seeded.users.map((u) => [u.id, u]));
  const parleySide = (server: Server, kind: SendKind): LoopSide => ({
    label: `send Parley (${kind})`,
    server,
    connections: senders.map((id, c): HttpRequest[] => [
      {
        method: 'POST',
        path: '/api/v1/messages',
        headers: { authorization: byId.get(id)!.auth },
        body:
          kind === 'dm'
            ? `type=direct&to=${encodeURIComponent(JSON.stringify([partners[c]]))}&content=${encodeURIComponent(SEND_CONTENT)}`
            : `type=stream&to=${seeded.channels.send}&topic=bench&content=${encodeURIComponent(SEND_CONTENT)}`,
      },
    ]),
  });
  /** R3 for one kind of send, as a side of measureLoops. */
  const withR3 = <T>(kind: SendKind, f: (r3: TurnSide) => Promise<T>): Promise<T> =>
    withR3On(ws, { pool, concurrency: clients, realmId, kind, channelId: seeded.channels.send!, senders, partners }, (r3) => f(r3Turns(`send R3 (${kind})`, r3)));
  const measured = {} as Record<SendKind, { ref: Measurement; parley: LoopOutcome['measurement'] }>;
  if (ws.databaseUrl) {
    await withParley(ctx, ws, async (server) => {
      for (const kind of SEND_KINDS) {
        const [ref, parley] = await withR3(kind, (r3) => measureLoops(ctx, [r3, parleySide(server, kind)], ctx.options.turns));
        measured[kind] = { ref: r3Measurement(ref!), parley: parley!.measurement };
      }
    });
  } else {
    const refs = {} as Record<SendKind, Measurement>;
    for (const kind of SEND_KINDS) refs[kind] = r3Measurement((await withR3(kind, (r3) => measureLoops(ctx, [r3], 1)))[0]!);
    await withParley(ctx, ws, async (server) => {
      for (const kind of SEND_KINDS) measured[kind] = { ref: refs[kind], parley: (await measureLoops(ctx, [parleySide(server, kind)], 1))[0]!.measurement };
    });
  }
  return SEND_KINDS.map((kind) => {
    const { ref, parley: m } = measured[kind];
    const ratio = m.rate! / ref.rate!;
    return {
      scenario: 'send',
      variant: kind === 'dm' ? `direct, ${clients} clients` : `${subscribers}-subscriber channel, ${clients} clients`,
      reference: ref,
      parley: { who: 'Parley', ...m, rateUnit: 'msg/s', extra: {} },
      ratio,
      ratioOf: 'msg/s ÷ tx/s',
      target: '≥ 0.8 × R3 tx/s, p99 ≤ 2 × R3 p99',
      met: ratio >= 0.8 && m.p99Ms! <= 2 * ref.p99Ms!,
      notes: [],
    };
  });
}

type SendKind = 'dm' | 'channel';
const SEND_KINDS: readonly SendKind[] = ['dm', 'channel'];

const r3Measurement = (o: LoopOutcome): Measurement => ({ who: 'R3 pg send SQL', ...o.measurement, rateUnit: 'tx/s', extra: {} });
