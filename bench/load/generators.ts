// The harness's side of the load generators: a few forked processes, each on its own 127.0.0.x
// source address, sharing out connections and parked clients. The same generators drive the
// reference and Parley in one scenario.
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usage } from '../servers.js';
import type { HttpRequest } from './http-connection.js';
import type { Command, Deliveries, LoopResult, OnceResult, ParkClient, Reply } from './protocol.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'worker.js');

/** Open files one generator process may use (the limit is 20,000 per process). */
export const MAX_CLIENTS_PER_GENERATOR = 5000;

class Generator {
  private readonly waiters: Array<{ op: Reply['op']; resolve: (r: Reply) => void }> = [];
  progress = 0;
  deliveries = 0;

  constructor(
    readonly child: ChildProcess,
    readonly localAddress: string,
  ) {
    child.on('message', (r: Reply) => {
      if (r.op === 'progress') {
        if (r.of === 'requests') this.progress = r.count;
        else this.deliveries = r.count;
        return;
      }
      const i = this.waiters.findIndex((w) => w.op === r.op);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(r);
    });
  }

  request<T extends Reply['op']>(cmd: Command, answer: T): Promise<Extract<Reply, { op: T }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator ${this.localAddress} exited (${code})`));
      this.child.once('exit', onExit);
      this.waiters.push({
        op: answer,
        resolve: (r) => {
          this.child.off('exit', onExit);
          resolve(r as Extract<Reply, { op: T }>);
        },
      });
      this.child.send(cmd);
    });
  }
}

export interface LoopSummary {
  readonly count: number;
  readonly errors: number;
  readonly firstError: string | null;
  readonly latencies: number[];
  readonly byIndex: number[];
  readonly seconds: number;
}

/** Split items into n nearly equal consecutive parts. */
export function split<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = Array.from({ length: n }, () => []);
  items.forEach((item, i) => out[i % n]!.push(item));
  return out;
}

export class Generators {
  private constructor(private readonly gens: Generator[]) {}

  static async start(count: number): Promise<Generators> {
    const gens = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const child = fork(WORKER, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        const g = new Generator(child, `127.0.0.${10 + i}`);
        await g.request({ op: 'init', localAddress: g.localAddress }, 'ready');
        return g;
      }),
    );
    return new Generators(gens);
  }

  get size(): number {
    return this.gens.length;
  }

  /** The generator processes' ids. */
  pids(): number[] {
    return this.gens.map((g) => g.child.pid!);
  }

  /**
   * CPU seconds used so far by all generator processes. They share the machine with the server
   * they drive: a loop whose generators use a core's worth is bounded by them as much as by it.
   */
  cpuSeconds(): number {
    return this.gens.reduce((s, g) => s + usage(g.child.pid!).cpuSeconds, 0);
  }

  /** Requests done by the running closed loop, all generators. */
  progress(): number {
    return this.gens.reduce((s, g) => s + g.progress, 0);
  }

  /** A closed loop over `connections`, spread over the generators, for durationMs. */
  async loop(
    port: number,
    host: string,
    connections: ReadonlyArray<readonly HttpRequest[]>,
    durationMs: number,
    chain?: { field: string; initial: string },
  ): Promise<LoopSummary> {
    const parts = split(connections, this.gens.length);
    const started = Date.now();
    const results: LoopResult[] = await Promise.all(
      this.gens.map(async (g, i) => {
        g.progress = 0;
        if (parts[i]!.length === 0) return { count: 0, errors: 0, firstError: null, latencies: [], byIndex: [] };
        return (await g.request({ op: 'loop', port, host, connections: parts[i]!, durationMs, chain }, 'loop-done')).result;
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    return {
      count: results.reduce((s, r) => s + r.count, 0),
      errors: results.reduce((s, r) => s + r.errors, 0),
      firstError: results.find((r) => r.firstError !== null)?.firstError ?? null,
      latencies: results.flatMap((r) => r.latencies),
      byIndex: results.reduce<number[]>((acc, r) => {
        r.byIndex.forEach((n, i) => (acc[i] = (acc[i] ?? 0) + (n ?? 0)));
        return acc;
      }, []),
      seconds,
    };
  }

  /** Every request once, `connections` at a time in all, spread over the generators; answers in order. */
  async once(port: number, host: string, requests: readonly HttpRequest[], connections: number, fields: readonly string[]): Promise<OnceResult> {
    const n = this.gens.length;
    const parts = this.gens.map((_, g) => requests.filter((_r, i) => i % n === g));
    const rs = await Promise.all(
      this.gens.map((g, i) =>
        parts[i]!.length === 0
          ? { answers: [], lastAt: 0 }
          : g.request({ op: 'once', port, host, requests: parts[i]!, connections: Math.max(1, Math.ceil(connections / n)), fields }, 'once-done').then((r) => r.result),
      ),
    );
    const answers: OnceResult['answers'] = new Array(requests.length);
    rs.forEach((r, g) => r.answers.forEach((a, j) => (answers[j * n + g] = a)));
    return { answers, lastAt: Math.max(...rs.map((r) => r.lastAt)) };
  }

  /** Connect parked clients, spread over the generators; resolves when every request is sent. */
  async park(
    port: number,
    host: string,
    mode: 'events' | 'plain' | 'ws',
    clients: readonly ParkClient[],
    countType?: string,
  ): Promise<{ connected: number; failed: number; firstError: string | null }> {
    if (clients.length > MAX_CLIENTS_PER_GENERATOR * this.gens.length) {
      throw new Error(`${clients.length} clients need more than ${this.gens.length} load generators`);
    }
    const parts = split(clients, this.gens.length);
    const rs = await Promise.all(
      this.gens.map((g, i) => (parts[i]!.length === 0 ? null : g.request({ op: 'park', port, host, mode, clients: parts[i]!, countType }, 'parked'))),
    );
    const done = rs.filter((r) => r !== null);
    return {
      connected: done.reduce((s, r) => s + r.connected, 0),
      failed: done.reduce((s, r) => s + r.failed, 0),
      firstError: done.find((r) => r.firstError !== null)?.firstError ?? null,
    };
  }

  /** Deliveries to parked clients since the last collect (reported every 100 ms). */
  delivered(): number {
    return this.gens.reduce((s, g) => s + g.deliveries, 0);
  }

  /** Every delivery since the last collect, merged. */
  async collect(): Promise<Deliveries> {
    const rs = await Promise.all(this.gens.map((g) => g.request({ op: 'collect' }, 'collected')));
    for (const g of this.gens) g.deliveries = 0;
    const events: Record<string, number> = {};
    for (const r of rs) for (const [k, v] of Object.entries(r.deliveries.events)) events[k] = (events[k] ?? 0) + v;
    return {
      times: rs.flatMap((r) => r.deliveries.times),
      events,
      errors: rs.reduce((s, r) => s + r.deliveries.errors, 0),
      firstError: rs.find((r) => r.deliveries.firstError !== null)?.deliveries.firstError ?? null,
    };
  }

  /** Close every connection (the processes stay). */
  async closeConnections(): Promise<void> {
    await Promise.all(this.gens.map((g) => g.request({ op: 'reset' }, 'reset-done')));
    for (const g of this.gens) g.deliveries = 0;
  }

  /** Close every connection and stop the processes. */
  async close(): Promise<void> {
    await Promise.all(
      this.gens.map(async (g) => {
        if (g.child.exitCode !== null) return;
        const exited = new Promise((r) => g.child.once('exit', r));
        g.child.send({ op: 'close' } satisfies Command);
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
        if (g.child.exitCode === null) g.child.kill('SIGKILL');
      }),
    );
  }
}
