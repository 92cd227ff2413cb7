// Running Parley's real binaries (server and CLI) as child processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequestRaw, type Agent } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The server as `npm start` runs it: the bundle of scripts/bundle.mjs. */
export const SERVER_BIN = join(dist, 'parley.mjs');
/**
 * The V8 options `npm start` gives the server (package.json's start script; a test holds the two
 * equal), which the tests and benchmarks that spawn it give it too: V8 sizes a young generation
 * only at start. Semi-spaces of 32 MB instead of 16 halve the scavenges of a busy server: typing
 * notifications to a 50-subscriber topic went from 0.28-0.38 × R1 to 0.32-0.40 (BENCHMARKS.md,
 * stop 26), for at most 48 MB more memory.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=32'];
/**
 * The environment `npm start` sets for the server beyond the operator's (the start script's
 * assignments; a test holds the two equal), which the tests and benchmarks that spawn it set too:
 * glibc reads it only as the process starts. One malloc arena instead of one per thread (up to
 * eight per core): V8's helper threads and the main thread allocate and free native memory in
 * their own arenas, whose free space no other thread reuses. With 15,000 parked polls the
 * server's memory per queue and parked poll was 1.3-1.5 KiB on average instead of 1.9-2.0
 * (BENCHMARKS.md, stop 27). Elsewhere than glibc it is ignored.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };
export const CLI_BIN = join(dist, 'src', 'cli', 'main.js');

/** Whether `bundle` is missing or older than a module of tsc's output under `srcDir`. */
export function bundleIsStale(bundle: string, srcDir: string): boolean {
  if (!existsSync(bundle)) return true;
  const built = statSync(bundle).mtimeMs;
  return readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.js') && statSync(join(srcDir, f)).mtimeMs > built);
}

/**
 * Rebuild SERVER_BIN if tsc's output is newer: after a bare `tsc -b` (not `npm run build`), the
 * tests and benchmarks would otherwise run an older build of the server. Call it once, before
 * anything starts the server (test/run.ts, bench/main.ts): a rebuild while a server starts would
 * tear it.
 */
export function ensureFreshServerBin(): void {
  if (!bundleIsStale(SERVER_BIN, join(dist, 'src'))) return;
  process.stderr.write('dist/parley.mjs is older than tsc\'s output: bundling it again\n');
  const r = spawnSync(process.execPath, [join(dist, '..', 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`scripts/bundle.mjs failed (${r.status ?? r.signal})`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `slowPipeSeconds`: stdout goes through a shell pipe (an OS pipe, as in `parley … | jq`; Node's
 * own child pipes are socket pairs, which behave otherwise) read only after that long, so that
 * the pipe fills up. The exit code is then the reader's.
 */
export function runCli(args: string[], env: Record<string, string>, o: { slowPipeSeconds?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = o.slowPipeSeconds
      ? spawn('sh', ['-c', `"$0" "$@" | (sleep ${o.slowPipeSeconds}; cat)`, process.execPath, CLI_BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } })
      : spawn(process.execPath, [CLI_BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export interface RunningServer {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything printed on stdout so far. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Whether `child` has ended: with an exit code, or killed by a signal (then exitCode stays null). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export interface HealthyProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
}

/**
 * Run `node <args>` with exactly `env`, collecting what it prints, and ask `healthy` every `pollMs`
 * until it says yes. Fails if the process exits first, or (killing it) after `timeoutMs`. The
 * server of the tests and of the benchmarks both start this way.
 */
export async function spawnUntilHealthy(o: {
  readonly what: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly healthy: () => Promise<boolean>;
  readonly pollMs: number;
  readonly timeoutMs: number;
}): Promise<HealthyProcess> {
  const child = spawn(process.execPath, o.args, { env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = performance.now() + o.timeoutMs;
  for (;;) {
    if (hasExited(child)) throw new Error(`${o.what} exited early (${child.exitCode ?? child.signalCode}):\n${out}`);
    if (await o.healthy()) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${o.what} did not become healthy:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
  return { child, output: () => out };
}

/** Start the server binary and wait until /health answers. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningServer> {
  const port = Number(env.PORT ?? (await freePort()));
  const url = `http://127.0.0.1:${port}`;
  const { child, output } = await spawnUntilHealthy({
    what: 'server',
    args: [...SERVER_NODE_OPTIONS, SERVER_BIN],
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...SERVER_ENV, ...env, PORT: String(port) },
    healthy: () => fetch(`${url}/health`).then((r) => r.status === 200, () => false), // refused: not listening yet
    pollMs: 100,
    timeoutMs,
  });
  const exited = new Promise<number | null>((resolve) => {
    if (hasExited(child)) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
  return {
    child,
    url,
    output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** An HTTP request that may set Host (fetch silently drops it); fails after timeoutMs when given. */
export function httpRequest(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; agent?: Agent } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: () => any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(url, { method: o.method ?? 'GET', headers: o.headers, agent: o.agent }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }));
      res.on('error', reject);
      res.on('close', () => res.complete || reject(new Error('response cut off')));
    });
    req.on('error', reject);
    if (o.timeoutMs !== undefined) req.setTimeout(o.timeoutMs, () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}
