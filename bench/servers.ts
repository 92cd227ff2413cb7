// The processes under test: the reference servers and Parley, each a fresh child process, with
// their CPU time and memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, SERVER_BIN, SERVER_ENV, SERVER_NODE_OPTIONS, spawnUntilHealthy } from '../test/helpers/process.js';
import { encodeRequest, HttpConnection } from './load/http-connection.js';

const here = dirname(fileURLToPath(import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux

export interface Usage {
  /** User + system CPU seconds since the process started. */
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  /**
   * The resident memory the process allocated itself (RssAnon): RSS without the pages of its
   * executable and libraries, which a process maps in as its code first runs. A per-request
   * figure read from RSS counts the code a burst of requests ran for the first time.
   */
  readonly anonBytes: number;
  readonly peakRssBytes: number;
}

export function usage(pid: number): Usage {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds, rssBytes: kb('VmRSS'), anonBytes: kb('RssAnon'), peakRssBytes: kb('VmHWM') };
}

export interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  /** Milliseconds from spawn to ready (first answer). */
  readonly startMs: number;
  output(): string;
  usage(): Usage;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function track(name: string, child: ChildProcess, port: number, startMs: number, out: () => string): Server {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    port,
    startMs,
    output: out,
    usage: () => usage(child.pid!),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The inspector on a loopback port of the system's choosing (it prints the URL; see inspector.ts). */
const INSPECT = '--inspect=127.0.0.1:0';

/**
 * Start a reference server (bench/refs/<file>.js); it prints its port on its first line.
 * `inspect`: with the inspector listening (Inspector.connect(server)).
 */
export async function startReference(file: 'r1-json' | 'r2-park', o: { inspect?: boolean } = {}): Promise<Server> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(o.inspect ? [INSPECT] : []), join(here, 'refs', `${file}.js`)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}): ${out}`)));
  });
  return track(file, child, port, performance.now() - t0, () => out);
}

/** Where to write profiles of a Parley process (each unset: none of that kind). */
export interface Profiling {
  /** node --cpu-prof */
  readonly cpuDir?: string | undefined;
  /** node --heap-prof (sampled allocations still live or not, with their stacks) */
  readonly heapDir?: string | undefined;
  /** Heap snapshots of Parley, where a scenario takes them (capacity: at N / 3 and N parked). */
  readonly snapshotDir?: string | undefined;
}

export function profilingArgs(p: Profiling | undefined): string[] {
  const args: string[] = [];
  if (p?.cpuDir) args.push('--cpu-prof', `--cpu-prof-dir=${p.cpuDir}`);
  if (p?.heapDir) args.push('--heap-prof', `--heap-prof-dir=${p.heapDir}`);
  return args;
}

export interface ParleyOptions {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** Extra environment (e.g. a smaller HEARTBEAT_MS). */
  readonly env?: Readonly<Record<string, string>>;
  readonly profile?: Profiling | undefined;
  readonly port?: number;
  /** With the inspector listening (Inspector.connect(server)). */
  readonly inspect?: boolean;
}

const HEALTH = encodeRequest({ method: 'GET', path: '/health' }, '127.0.0.1');

/**
 * Whether GET /health answers 200 (a refused connection: not listening yet). A bare socket, as the
 * load generators use, so that the time to serving holds no machinery of the harness's own (fetch
 * sets up its dispatcher on its first request).
 */
async function healthy(port: number): Promise<boolean> {
  const c = new HttpConnection(port, '127.0.0.1');
  try {
    await c.ready;
    return (await c.send(HEALTH)).status === 200;
  } catch {
    return false;
  } finally {
    c.close();
  }
}

/**
 * Start Parley (dist/parley.mjs, as `npm start` does) and wait until GET /health answers 200.
 * Request logs and rate limits are off: the first would measure the log pipe, the second refuse
 * the load.
 */
export async function startParley(o: ParleyOptions): Promise<Server> {
  const port = o.port ?? (await freePort());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: o.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MINUTE: '0',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    ...SERVER_ENV,
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    ...o.env,
  };
  const t0 = performance.now();
  const { child, output } = await spawnUntilHealthy({
    what: 'Parley',
    args: [...(o.inspect ? [INSPECT] : []), ...profilingArgs(o.profile), ...SERVER_NODE_OPTIONS, SERVER_BIN],
    env,
    healthy: () => healthy(port),
    pollMs: 5,
    timeoutMs: 120_000,
  });
  return track('parley', child, port, performance.now() - t0, output);
}
