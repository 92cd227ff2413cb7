// A load-generator process (forked by generators.ts). It opens its connections from its own
// 127.0.0.x source address, so several of them together can hold more sockets than one process
// may open files, and runs closed loops or parked clients as the harness asks.
import WebSocket from 'ws';
import { countType, lastEventId } from './events-answer.js';
import { encodeRequest, HttpConnection, type HttpRequest } from './http-connection.js';
import { now, type Command, type Deliveries, type LoopJob, type OnceJob, type ParkJob, type Reply } from './protocol.js';

let localAddress = '127.0.0.1';
const reply = (r: Reply) => process.send!(r);
const closers: Array<() => void> = [];

let delivered: number[] = [];
let eventCounts: Record<string, number> = {};
let parkErrors = 0;
let parkFirstError: string | null = null;
let progressTimer: NodeJS.Timeout | null = null;

function noteError(e: unknown): void {
  parkErrors += 1;
  parkFirstError ??= e instanceof Error ? e.message : String(e);
}

/** The last chained value of each distinct request (method, path, credentials), across loops. */
const chained = new Map<string, string>();
const chainKey = (r: HttpRequest) => `${r.method} ${r.path} ${r.headers?.authorization ?? ''}`;

async function runLoop(job: LoopJob): Promise<void> {
  const latencies: number[] = [];
  const byIndex: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const deadline = Date.now() + job.durationMs;
  const progress = setInterval(() => reply({ op: 'progress', of: 'requests', count: latencies.length }), 1000);
  await Promise.all(
    job.connections.map(async (requests) => {
      const conn = new HttpConnection(job.port, localAddress);
      closers.push(() => conn.close());
      try {
        await conn.ready;
      } catch (e) {
        errors += 1;
        firstError ??= (e as Error).message;
        return;
      }
      const fixed = requests.map((r) => (r.body?.includes('{LAST}') ? null : encodeRequest(r, job.host)));
      // A client keeps the id it last saw from one loop to the next (warm-up, then measurement).
      const last = requests.map((r) => chained.get(chainKey(r)) ?? job.chain?.initial ?? '');
      for (let i = 0; Date.now() < deadline; i = (i + 1) % requests.length) {
        const r = requests[i]!;
        const encoded = fixed[i] ?? encodeRequest({ ...r, body: r.body!.replace('{LAST}', last[i]!) }, job.host);
        const t = now();
        try {
          const res = await conn.send(encoded);
          latencies.push(now() - t);
          if (res.status !== 200) {
            errors += 1;
            firstError ??= `${res.status} ${res.body.slice(0, 200)}`;
          } else {
            byIndex[i] = (byIndex[i] ?? 0) + 1;
          }
          if (res.status === 200 && job.chain) {
            const v = (JSON.parse(res.body) as Record<string, unknown>)[job.chain.field];
            if (v !== undefined) {
              last[i] = String(v);
              chained.set(chainKey(r), last[i]!);
            }
          }
        } catch (e) {
          errors += 1;
          firstError ??= (e as Error).message;
          return;
        }
      }
      conn.close();
    }),
  );
  clearInterval(progress);
  reply({ op: 'loop-done', result: { count: latencies.length, errors, firstError, latencies, byIndex } });
}

async function runOnce(job: OnceJob): Promise<void> {
  const answers: Array<{ status: number; fields: Record<string, unknown> }> = new Array(job.requests.length);
  let next = 0;
  let lastAt = 0;
  await Promise.all(
    Array.from({ length: Math.min(job.connections, job.requests.length) }, async () => {
      const conn = new HttpConnection(job.port, localAddress);
      closers.push(() => conn.close());
      await conn.ready;
      for (let i = next++; i < job.requests.length; i = next++) {
        const res = await conn.send(encodeRequest(job.requests[i]!, job.host));
        lastAt = now();
        const fields: Record<string, unknown> = {};
        if (job.fields.length > 0) {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(res.body) as Record<string, unknown>;
          } catch {
            fields.body = res.body.slice(0, 200);
          }
          for (const f of job.fields) {
            fields[f] = f === 'events' && Array.isArray(body.events) ? (body.events as Array<{ type: string }>).map((e) => e.type) : body[f];
          }
        }
        answers[i] = { status: res.status, fields };
      }
      conn.close();
    }),
  );
  reply({ op: 'once-done', result: { answers, lastAt } });
}

/**
 * Record one answer of events (read as bytes: see events-answer.ts); returns the id of its last
 * event (-Infinity: none).
 */
function record(job: ParkJob, body: Buffer, at: number): number {
  if (job.countType === undefined) delivered.push(at);
  else {
    const n = countType(body, job.countType);
    if (n > 0) {
      eventCounts[job.countType] = (eventCounts[job.countType] ?? 0) + n;
      delivered.push(at);
    }
  }
  return lastEventId(body);
}

/**
 * Connect every client with `connect` (true when it connected), in slices: thousands of
 * simultaneous SYNs overflow the listen backlog.
 */
async function connectInSlices(clients: ParkJob['clients'], connect: (c: ParkJob['clients'][number]) => Promise<boolean>): Promise<{ connected: number; failed: number }> {
  const SLICE = 500;
  let connected = 0;
  for (let s = 0; s < clients.length; s += SLICE) {
    const results = await Promise.all(clients.slice(s, s + SLICE).map(connect));
    connected += results.filter(Boolean).length;
  }
  return { connected, failed: clients.length - connected };
}

function parkHttp(job: ParkJob): Promise<{ connected: number; failed: number }> {
  return connectInSlices(job.clients, async (c) => {
    const conn = new HttpConnection(job.port, localAddress);
    closers.push(() => conn.close());
    try {
      await conn.ready;
    } catch (e) {
      noteError(e);
      return false;
    }
    let last = c.last;
    const loop = async () => {
      for (;;) {
        const res = await conn.send(encodeRequest({ method: 'GET', path: c.path.replace('{LAST}', String(last)), headers: c.headers }, job.host));
        const at = now();
        if (res.status !== 200) {
          noteError(`${res.status} ${res.body.slice(0, 200)}`);
          return;
        }
        if (job.mode === 'plain') {
          delivered.push(at);
          continue;
        }
        const max = record(job, res.bytes, at);
        if (max > last) last = max;
      }
    };
    loop().catch((e: unknown) => {
      if ((e as Error).message !== 'connection closed') noteError(e);
    });
    return true;
  });
}

function parkSockets(job: ParkJob): Promise<{ connected: number; failed: number }> {
  return connectInSlices(
    job.clients,
    (c) =>
      new Promise<boolean>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${job.port}${c.path.replace('{LAST}', String(c.last))}`, {
          headers: { host: job.host, ...c.headers },
          localAddress,
          perMessageDeflate: false,
        });
        closers.push(() => ws.terminate());
        ws.once('open', () => resolve(true));
        ws.once('error', (e) => {
          noteError(e);
          resolve(false);
        });
        ws.on('message', (data: Buffer) => {
          const at = now();
          const max = record(job, data, at);
          if (Number.isFinite(max)) ws.send(JSON.stringify({ ack: max }));
        });
      }),
  );
}

async function handle(cmd: Command): Promise<void> {
  switch (cmd.op) {
    case 'init':
      localAddress = cmd.localAddress;
      reply({ op: 'ready' });
      return;
    case 'loop':
      await runLoop(cmd);
      return;
    case 'once':
      await runOnce(cmd);
      return;
    case 'park': {
      progressTimer ??= setInterval(() => reply({ op: 'progress', of: 'deliveries', count: delivered.length }), 100);
      const r = cmd.mode === 'ws' ? await parkSockets(cmd) : await parkHttp(cmd);
      reply({ op: 'parked', ...r, firstError: parkFirstError });
      return;
    }
    case 'collect': {
      const deliveries: Deliveries = { times: delivered, events: eventCounts, errors: parkErrors, firstError: parkFirstError };
      delivered = [];
      eventCounts = {};
      reply({ op: 'collected', deliveries });
      return;
    }
    case 'reset':
      for (const c of closers.splice(0)) c();
      chained.clear();
      delivered = [];
      eventCounts = {};
      // Polls answered while a server shut down fail their next request: not the next phase's errors.
      parkErrors = 0;
      parkFirstError = null;
      reply({ op: 'reset-done' });
      return;
    case 'close':
      if (progressTimer) clearInterval(progressTimer);
      for (const c of closers.splice(0)) c();
      reply({ op: 'closed' });
      setTimeout(() => process.exit(0), 50);
      return;
  }
}

process.on('message', (m: Command) => {
  handle(m).catch((e: unknown) => {
    process.stderr.write(`load generator failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
});
