// What every scenario shares: the run's options, the load generators, progress lines, and the
// measuring of a closed loop, of R3 and of parked clients.
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpRequest } from '../load/http-connection.js';
import type { Generators, LoopSummary } from '../load/generators.js';
import { latencyStats, type Measurement } from '../report.js';
import { type R3Answer, type R3Command, type R3Job, type R3Result, type R3Run } from '../refs/r3-send.js';
import { startParley, usage, type ParleyOptions, type Profiling, type Server } from '../servers.js';
import type { Account, Workspace } from '../setup.js';

export interface RunOptions {
  /** Seconds of each measured closed loop. */
  readonly durationS: number;
  /** Seconds of unmeasured load before it (JIT, caches, pools). */
  readonly warmupS: number;
  /** Turns in which a closed loop against R1 alternates between R1 and Parley (measureLoops). */
  readonly turns: number;
  /** Tiny sizes, for the test suite: proves the scenario runs, not how fast. */
  readonly smoke: boolean;
  /** postgres:// server on which each scenario creates its own database; unset: embedded. */
  readonly serverUrl: string | undefined;
  /** Profiles of Parley to write (node --cpu-prof, --heap-prof). */
  readonly profile: Profiling;
  /** Concurrency override for the closed-loop scenarios. */
  readonly concurrency: number | undefined;
  /** Size overrides (e.g. fanout N, capacity N). */
  readonly sizes: readonly number[] | undefined;
  /** Settings (environment variables) of every Parley the scenarios start, under each scenario's own (--server-env). */
  readonly serverEnv: Readonly<Record<string, string>>;
  readonly quiet: boolean;
}

export interface Context {
  readonly options: RunOptions;
  readonly gens: Generators;
  progress(text: string): void;
  /** A fresh data directory and database; the harness removes it once the scenario is over. */
  workspace(): Promise<Workspace>;
}

export const HOST = 'bench.localhost';

/**
 * The settings of a Parley a scenario starts: the run's --server-env, and over them the
 * scenario's own (such as capacity's long heartbeat), so that a setting can tune Parley but not
 * change what a scenario measures.
 */
export function parleyEnv(options: Pick<RunOptions, 'serverEnv'>, own: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...options.serverEnv, ...own };
}

/** Start Parley on a scenario's workspace, with parleyEnv's settings. */
export function startParleyOn(ctx: Context, ws: Workspace, o: Omit<ParleyOptions, 'dataDir' | 'databaseUrl'> = {}): Promise<Server> {
  return startParley({ ...o, dataDir: ws.dataDir, databaseUrl: ws.databaseUrl, env: parleyEnv(ctx.options, o.env) });
}

export function ms(n: number): number {
  return Math.round(n * 1000);
}

/** Poll until f() is true; throws with `what` after timeoutMs. */
export async function waitFor(what: string, f: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One side of a closed-loop comparison: a server and the requests of each of its connections. */
export interface LoopSide {
  readonly label: string;
  readonly server: Server;
  readonly connections: ReadonlyArray<readonly HttpRequest[]>;
  /** Each request carries a field of its connection's previous answer (presence's last_update_id). */
  readonly chain?: { field: string; initial: string } | undefined;
}

/**
 * A side of alternating turns that is not a closed loop of HTTP requests from the generators (R3:
 * SQL from a process of its own). Its turns are summarized like a loop's.
 */
export interface TurnSide {
  readonly label: string;
  /** Unmeasured load before the first turn. */
  warmup(durationMs: number): Promise<LoopSummary>;
  /** One measured turn, and the CPU seconds of the process measured over it; `label` names it in progress lines. */
  turn(durationMs: number, label: string): Promise<{ readonly summary: LoopSummary; readonly cpuSeconds: number }>;
  peakRssBytes(): number;
}

export interface LoopOutcome {
  /** The warm-up's requests (null without one). */
  readonly warmup: LoopSummary | null;
  /** The measured requests, every turn's together. */
  readonly summary: LoopSummary;
  readonly measurement: Omit<Measurement, 'who' | 'extra'>;
  readonly generators: Record<string, string>;
}

/** A closed loop of the generators as a side of turns, with a progress line every 2 s of a turn. */
function loopTurns(ctx: Context, side: LoopSide): TurnSide {
  const { gens } = ctx;
  return {
    label: side.label,
    warmup: (durationMs) => gens.loop(side.server.port, HOST, side.connections, durationMs, side.chain),
    async turn(durationMs, label) {
      const before = side.server.usage().cpuSeconds;
      const timer = setInterval(() => ctx.progress(`${label}: ${gens.progress().toLocaleString('en-US')} requests`), 2000);
      const summary = await gens.loop(side.server.port, HOST, side.connections, durationMs, side.chain).finally(() => clearInterval(timer));
      return { summary, cpuSeconds: side.server.usage().cpuSeconds - before };
    },
    peakRssBytes: () => side.server.usage().peakRssBytes,
  };
}

/**
 * Closed loops on several servers (or other sides, such as R3): each warmed up, then measured in
 * `turns` rounds in which every side runs durationS / turns seconds, one after the other. A
 * reference and Parley measured one after the other compare the machine of one moment with that
 * of the next: on a shared virtual machine R1 alone gave 29,000 and 53,000 requests/s a few
 * minutes apart, and a database's speed moves with what was written before (in one send run, a
 * checkpoint that R3's writes brought on ran through Parley's measurement). In alternating turns a
 * drift of the machine's speed moves both sides alike.
 */
export async function measureLoops(ctx: Context, given: ReadonlyArray<LoopSide | TurnSide>, turnsAsked: number): Promise<LoopOutcome[]> {
  const { options, gens } = ctx;
  const sides = given.map((s) => ('server' in s ? loopTurns(ctx, s) : s));
  const turns = Math.max(1, turnsAsked);
  const warmups: Array<LoopSummary | null> = [];
  for (const side of sides) {
    if (options.warmupS > 0) {
      ctx.progress(`${side.label}: warming up ${options.warmupS} s`);
      warmups.push(await side.warmup(ms(options.warmupS)));
    } else warmups.push(null);
  }
  const totals = sides.map(() => ({ summaries: [] as LoopSummary[], cpuSeconds: 0, gensCpu: 0 }));
  for (let turn = 1; turn <= turns; turn++) {
    for (const [i, side] of sides.entries()) {
      const gensBefore = gens.cpuSeconds();
      const of = turns > 1 ? ` (turn ${turn} of ${turns})` : '';
      if (turns === 1) ctx.progress(`${side.label}: ${options.durationS} s`);
      const { summary, cpuSeconds } = await side.turn(ms(options.durationS / turns), `${side.label}${of}`);
      if (summary.errors > 0) throw new Error(`${side.label}: ${summary.errors} failed requests; first: ${summary.firstError}`);
      totals[i]!.summaries.push(summary);
      totals[i]!.cpuSeconds += cpuSeconds;
      totals[i]!.gensCpu += gens.cpuSeconds() - gensBefore;
      if (turns > 1) ctx.progress(`${side.label}${of}: ${(summary.count / summary.seconds).toLocaleString('en-US', { maximumFractionDigits: 0 })} per second`);
    }
  }
  return sides.map((side, i) => {
    const summary = mergeSummaries(totals[i]!.summaries);
    const { p50, p99 } = latencyStats(summary.latencies);
    return {
      warmup: warmups[i]!,
      summary,
      measurement: {
        rate: summary.count / summary.seconds,
        rateUnit: 'req/s',
        p50Ms: p50,
        p99Ms: p99,
        cpuSeconds: totals[i]!.cpuSeconds,
        peakRssBytes: side.peakRssBytes(),
      },
      // An extra column: what the load itself cost, the parked clients' receiving included.
      generators: { 'load generators CPU': `${totals[i]!.gensCpu.toFixed(1)} s` },
    };
  });
}

/** Loops of the same connections as one: counts and seconds added, latencies joined. */
export function mergeSummaries(summaries: readonly LoopSummary[]): LoopSummary {
  const byIndex: number[] = [];
  for (const s of summaries) s.byIndex.forEach((n, i) => (byIndex[i] = (byIndex[i] ?? 0) + n));
  return {
    count: summaries.reduce((n, s) => n + s.count, 0),
    errors: summaries.reduce((n, s) => n + s.errors, 0),
    firstError: summaries.find((s) => s.firstError !== null)?.firstError ?? null,
    latencies: summaries.flatMap((s) => s.latencies),
    byIndex,
    seconds: summaries.reduce((n, s) => n + s.seconds, 0),
  };
}

const R3_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'refs', 'r3-send.js');

/** What R3 did in one run, with its process's CPU seconds over the run. */
export interface R3Measured {
  readonly result: R3Result;
  readonly cpuSeconds: number;
}

/**
 * R3 in a process of its own (bench/refs/r3-send.ts), its connections open between runs. It
 * answers one command at a time; a failure (its stderr) fails the command waiting, and any after.
 */
export class R3Process {
  private err = '';
  private exit: Error | null = null;
  private waiting: { op: R3Answer['op']; resolve: (a: R3Answer) => void; reject: (e: Error) => void } | null = null;

  private constructor(private readonly child: ChildProcess) {
    child.stderr!.on('data', (d: Buffer) => (this.err += d.toString()));
    child.on('message', (a: R3Answer) => {
      const w = this.waiting;
      if (w?.op !== a.op) return;
      this.waiting = null;
      w.resolve(a);
    });
    // 'close', not 'exit': by then its stderr has been read to the end.
    child.once('close', (code) => {
      this.exit = new Error(`R3 exited (${code}): ${this.err}`);
      const w = this.waiting;
      this.waiting = null;
      w?.reject(this.exit);
    });
  }

  /** Start the process on the job's database and wait until its pool is made. */
  static async start(job: R3Job): Promise<R3Process> {
    const r3 = new R3Process(fork(R3_BIN, [JSON.stringify(job)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }));
    await r3.answer('ready');
    return r3;
  }

  private answer(op: R3Answer['op'], command?: R3Command): Promise<R3Answer> {
    if (this.exit) return Promise.reject(this.exit);
    return new Promise((resolve, reject) => {
      this.waiting = { op, resolve, reject };
      if (command) this.child.send(command);
    });
  }

  async run(run: R3Run): Promise<R3Measured> {
    if (this.exit) throw this.exit; // before reading the usage of a process that is gone
    const before = usage(this.child.pid!).cpuSeconds;
    const a = await this.answer('result', { op: 'run', run });
    return { result: (a as Extract<R3Answer, { op: 'result' }>).result, cpuSeconds: usage(this.child.pid!).cpuSeconds - before };
  }

  /** Remove the rows it wrote, through its own connections. */
  async removeRows(): Promise<void> {
    await this.answer('removed', { op: 'remove' });
  }

  /** Its peak resident memory so far (read while it runs: an exited process reports none). */
  peakRssBytes(): number {
    return usage(this.child.pid!).peakRssBytes;
  }

  /** Close its connections and let it end. */
  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once('close', r));
    await this.answer('closed', { op: 'close' });
    await exited;
  }
}

/** An R3 job on a workspace's database. */
export const r3JobOn = (ws: Workspace, job: Omit<R3Job, 'url' | 'dataDir'>): R3Job => ({
  ...job,
  url: ws.databaseUrl ?? null,
  dataDir: ws.databaseUrl ? null : join(ws.dataDir, 'pg'),
});

/**
 * R3 on a workspace's database (its own connections, or the embedded database's directory) for
 * the length of f; then it removes its rows, so that Parley starts on the seed alone and a later
 * R3 numbers its events from the same base. R3 deletes them itself: on Postgres Parley may be
 * running, and a second application opened on its database would restore and credit its queues.
 */
export async function withR3On<T>(ws: Workspace, job: Omit<R3Job, 'url' | 'dataDir'>, f: (r3: R3Process) => Promise<T>): Promise<T> {
  const r3 = await R3Process.start(r3JobOn(ws, job));
  try {
    const out = await f(r3);
    await r3.removeRows();
    return out;
  } finally {
    await r3.close();
  }
}

/** R3's runs as a side of alternating turns (measureLoops): one summary per run. */
export function r3Turns(label: string, r3: R3Process): TurnSide {
  const summary = (r: R3Result): LoopSummary => ({ count: r.count, errors: 0, firstError: null, latencies: r.latencies, byIndex: [r.count], seconds: r.seconds });
  return {
    label,
    warmup: async (durationMs) => summary((await r3.run({ durationMs, maxCount: 0 })).result),
    async turn(durationMs) {
      const m = await r3.run({ durationMs, maxCount: 0 });
      return { summary: summary(m.result), cpuSeconds: m.cpuSeconds };
    },
    peakRssBytes: () => r3.peakRssBytes(),
  };
}

/** Register one queue per account (POST /register), `connections` at a time. */
export async function registerQueues(
  ctx: Context,
  port: number,
  accounts: readonly Account[],
  eventTypes: readonly string[],
  capabilities: Readonly<Record<string, boolean>> = {},
): Promise<Array<{ queueId: string; lastEventId: number }>> {
  ctx.progress(`registering ${accounts.length.toLocaleString('en-US')} event queues`);
  const requests: HttpRequest[] = accounts.map((a) => ({
    method: 'POST',
    path: '/api/v1/register',
    headers: { authorization: a.auth },
    body: new URLSearchParams({
      event_types: JSON.stringify(eventTypes),
      fetch_event_types: JSON.stringify(['realm']),
      client_capabilities: JSON.stringify(capabilities),
    }).toString(),
  }));
  const r = await ctx.gens.once(port, HOST, requests, 64, ['queue_id', 'last_event_id', 'msg']);
  return r.answers.map((a, i) => {
    if (a.status !== 200) throw new Error(`register for ${accounts[i]!.email} failed: ${a.status} ${String(a.fields.msg ?? a.fields.body)}`);
    return { queueId: String(a.fields.queue_id), lastEventId: Number(a.fields.last_event_id) };
  });
}

/** Parley's GET /metrics as text (loopback may scrape it). */
async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/**
 * A series of Parley's metrics: the first of that name, or the one with exactly these labels (as
 * Prometheus's text writes them: `a="1",b="2"`). NaN if none.
 */
export async function metric(port: number, name: string, labels?: string): Promise<number> {
  const text = await scrape(port);
  const series = labels === undefined ? '(?:\\{[^}]*\\})?' : `\\{${labels.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\}`;
  const m = new RegExp(`^${name}${series} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** Every series of a metric with one label, by that label's value. */
export async function metricByLabel(port: number, name: string, label: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await scrape(port)).matchAll(new RegExp(`^${name}\\{${label}="([^"]*)"\\} (\\S+)$`, 'gm'))) out.set(m[1]!, Number(m[2]));
  return out;
}

/** POST a form as an account; returns the parsed answer (throws unless 200). */
export async function apiPost(port: number, account: Account, path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: account.auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  const body = (await r.json()) as Record<string, unknown>;
  if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}

export const mbPer = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
