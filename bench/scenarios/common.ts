// What every scenario shares: the run's options, the load generators, progress lines, and the
// measuring of a closed loop, of R3 and of parked clients.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpRequest } from '../load/http-connection.js';
import type { Generators, LoopSummary } from '../load/generators.js';
import { latencyStats, type Measurement } from '../report.js';
import { sql } from 'slonik';
import { R3_CLIENT, R3_EVENT_ID_BASE, type R3Job, type R3Result } from '../refs/r3-send.js';
import { usage, type Profiling, type Server } from '../servers.js';
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

export interface LoopOutcome {
  /** The warm-up's requests (null without one). */
  readonly warmup: LoopSummary | null;
  /** The measured requests, every turn's together. */
  readonly summary: LoopSummary;
  readonly measurement: Omit<Measurement, 'who' | 'extra'>;
  readonly generators: Record<string, string>;
}

/** A closed loop: warm-up, then the measured run with its server's CPU and peak memory. */
export async function measureLoop(
  ctx: Context,
  label: string,
  server: Server,
  connections: ReadonlyArray<readonly HttpRequest[]>,
  chain?: { field: string; initial: string },
): Promise<LoopOutcome> {
  const [outcome] = await measureLoops(ctx, [{ label, server, connections, chain }], 1);
  return outcome!;
}

/**
 * Closed loops on several servers: each warmed up, then measured in `turns` rounds in which every
 * side runs durationS / turns seconds, one after the other. A reference and Parley measured one
 * after the other compare the machine of one moment with that of the next: on a shared virtual
 * machine R1 alone gave 29,000 and 53,000 requests/s a few minutes apart. In alternating turns a
 * drift of the machine's speed moves both sides alike.
 */
export async function measureLoops(ctx: Context, sides: readonly LoopSide[], turnsAsked: number): Promise<LoopOutcome[]> {
  const { options, gens } = ctx;
  const turns = Math.max(1, turnsAsked);
  const warmups: Array<LoopSummary | null> = [];
  for (const side of sides) {
    if (options.warmupS > 0) {
      ctx.progress(`${side.label}: warming up ${options.warmupS} s`);
      warmups.push(await gens.loop(side.server.port, HOST, side.connections, ms(options.warmupS), side.chain));
    } else warmups.push(null);
  }
  const totals = sides.map(() => ({ summaries: [] as LoopSummary[], cpuSeconds: 0, gensCpu: 0 }));
  for (let turn = 1; turn <= turns; turn++) {
    for (const [i, side] of sides.entries()) {
      const before = side.server.usage();
      const gensBefore = gens.cpuSeconds();
      const of = turns > 1 ? ` (turn ${turn} of ${turns})` : '';
      const timer = setInterval(() => ctx.progress(`${side.label}${of}: ${gens.progress().toLocaleString('en-US')} requests`), 2000);
      const summary = await gens.loop(side.server.port, HOST, side.connections, ms(options.durationS / turns), side.chain).finally(() => clearInterval(timer));
      if (summary.errors > 0) throw new Error(`${side.label}: ${summary.errors} failed requests; first: ${summary.firstError}`);
      totals[i]!.summaries.push(summary);
      totals[i]!.cpuSeconds += side.server.usage().cpuSeconds - before.cpuSeconds;
      totals[i]!.gensCpu += gens.cpuSeconds() - gensBefore;
      if (turns > 1) ctx.progress(`${side.label}${of}: ${(summary.count / summary.seconds).toLocaleString('en-US', { maximumFractionDigits: 0 })} req/s`);
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
        peakRssBytes: side.server.usage().peakRssBytes,
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

/** Run R3 in its own process; its CPU and peak memory are sampled from /proc while it runs. */
async function runR3Process(job: R3Job): Promise<{ result: R3Result; cpuSeconds: number; peakRssBytes: number }> {
  const child = spawn(process.execPath, [R3_BIN, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let last = { cpuSeconds: 0, peakRssBytes: 0 };
  const sample = () => {
    try {
      const u = usage(child.pid!);
      // An exited (zombie) process reports no memory: keep the last real sample.
      if (u.peakRssBytes > 0) last = u;
    } catch {
      // exited
    }
  };
  const timer = setInterval(sample, 100);
  child.stdout.on('data', (d: Buffer) => {
    sample();
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  if (code !== 0) throw new Error(`R3 failed (${code}): ${err}`);
  return { result: JSON.parse(out) as R3Result, ...last };
}

/** Run R3 on a workspace's database, then delete its rows so Parley starts on the seed alone. */
export async function runR3On(ws: Workspace, job: Omit<R3Job, 'url' | 'dataDir'>): Promise<{ result: R3Result; cpuSeconds: number; peakRssBytes: number }> {
  const r = await runR3Process({ ...job, url: ws.databaseUrl ?? null, dataDir: ws.databaseUrl ? null : join(ws.dataDir, 'pg') });
  await ws.withApp(async (app) => {
    await app.db.query(sql.unsafe`DELETE FROM events WHERE id >= ${R3_EVENT_ID_BASE}`);
    await app.db.query(sql.unsafe`DELETE FROM user_messages WHERE message_id IN (SELECT id FROM messages WHERE client = ${R3_CLIENT})`);
    await app.db.query(sql.unsafe`DELETE FROM messages WHERE client = ${R3_CLIENT}`);
  });
  return r;
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

/** A gauge from Parley's GET /metrics (loopback may scrape it). */
export async function gauge(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
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
