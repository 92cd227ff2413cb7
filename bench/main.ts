// `npm run bench -- <scenario|all> [options]`: each scenario measures its reference and then a
// freshly started Parley with the same load generators, and prints both and their ratio. `all`
// also writes the run into BENCHMARKS.md, above the records kept there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureFreshServerBin } from '../test/helpers/process.js';
import { Generators, MAX_CLIENTS_PER_GENERATOR } from './load/generators.js';
import { describe, type Comparison } from './report.js';
import { capacity, restart } from './scenarios/capacity.js';
import type { Context, RunOptions } from './scenarios/common.js';
import { fanout, wsFanout } from './scenarios/fanout.js';
import { hostile } from './scenarios/hostile.js';
import { presence, send, typing } from './scenarios/throughput.js';
import { Workspace } from './setup.js';
import { benchmarksMarkdown, withRecords } from './write-benchmarks.js';

export const SCENARIOS: Record<string, (ctx: Context) => Promise<Comparison[]>> = {
  presence,
  typing,
  send,
  fanout,
  'ws-fanout': wsFanout,
  capacity,
  restart,
  hostile,
};

const USAGE = `npm run bench -- <scenario|all> [options]

scenarios: ${Object.keys(SCENARIOS).join(', ')}, all (writes the table of BENCHMARKS.md, keeping the records below it)

options:
  --duration S       seconds of each measured closed loop (default 10)
  --warmup S         unmeasured seconds before it (default 2)
  --turns K          presence and typing (R1 and Parley), and the sends on Postgres (R3 and
                     Parley), take K alternating turns of duration/K seconds each (default 5)
  --concurrency C    clients of the closed-loop scenarios (default per scenario)
  --sizes N[,N]      fanout/ws-fanout subscriber counts (default 1000,10000); capacity/restart N
  --database-url U   run on this Postgres server (a fresh database per scenario); default: embedded,
                     or DATABASE_URL when set
  --generators G     load-generator processes (default: enough for 5,000 connections each, at least 2)
  --cpu-prof DIR     write Parley's CPU profile (node --cpu-prof) into DIR
  --heap-prof DIR    write Parley's sampled allocation profile (node --heap-prof) into DIR
  --heap-snapshots DIR
                     capacity: write Parley's heap snapshots at N / 3 and N parked into DIR,
                     after the readings, which they inflate (compare them with
                     node dist/bench/heap-diff.js A B N)
  --server-env K=V   a setting (environment variable) for every Parley the scenarios start,
                     e.g. QUEUE_ANSWER_INTERVAL_MS=10; repeatable; a scenario's own settings win
  --smoke            tiny sizes and 1-second loops: proves a scenario runs, measures nothing
  --out FILE         with all: where to write (default BENCHMARKS.md in the repository)`;

export interface Failure {
  readonly scenario: string;
  readonly error: string;
}

/**
 * Run the named scenarios (of `scenarios`) one after another, each on load generators of its own:
 * its reference and Parley share them, scenarios do not. Generators that had run the fan-out
 * scenario made the next one's WebSocket series slower: ws-fanout at N = 1,000 right after it gave
 * 0.99–1.53 × the long-polls in six runs (median 1.42), against 0.68–1.47 in eight on fresh ones
 * (median 0.95). A scenario's result depended on what ran before it.
 *
 * A scenario that throws fails the run, or, with `failures`, is recorded there and the run goes
 * on. Either way the workspaces it made (data directory, database) are removed here, and its
 * generators ended, once it is over (its servers stopped): scenarios leave that to the harness.
 */
export async function runScenarios(
  names: readonly string[],
  options: RunOptions,
  generators: number,
  failures: Failure[] | null = null,
  scenarios: Readonly<Record<string, (ctx: Context) => Promise<Comparison[]>>> = SCENARIOS,
): Promise<Comparison[]> {
  const started = Date.now();
  const out: Comparison[] = [];
  for (const name of names) {
    const t = Date.now();
    const workspaces: Workspace[] = [];
    const gens = await Generators.start(generators);
    const ctx: Context = {
      options,
      gens,
      progress: (text) => {
        if (!options.quiet) process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);
      },
      workspace: async () => {
        const w = await Workspace.create(options.serverUrl);
        workspaces.push(w);
        return w;
      },
    };
    ctx.progress(`── ${name}`);
    let cs: Comparison[];
    try {
      cs = await scenarios[name]!(ctx);
    } catch (e) {
      if (!failures) throw e;
      const error = e instanceof Error ? e.message : String(e);
      failures.push({ scenario: name, error });
      process.stdout.write(`── ${name} FAILED: ${error}\n\n`);
      cs = [];
    } finally {
      try {
        for (const w of workspaces) await w.dispose();
      } finally {
        await gens.close();
      }
    }
    out.push(...cs);
    if (!options.quiet) {
      for (const c of cs) process.stdout.write(describe(c) + '\n');
      process.stdout.write(`  (${name} took ${((Date.now() - t) / 1000).toFixed(0)} s)\n\n`);
    }
  }
  return out;
}

/** What the harness sets itself for each Parley it starts (bench/servers.ts): where it listens and keeps its data. */
const HARNESS_OWNED = new Set(['HOST', 'PORT', 'DATA_DIR', 'DATABASE_URL']);

/** `--server-env` values (`NAME=VALUE`, the value may be empty or hold `=`) as an environment; a later NAME wins. */
export function parseServerEnv(items: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of items) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(item);
    if (!m) throw new Error(`--server-env wants NAME=VALUE, with NAME in capitals as in README's configuration: ${JSON.stringify(item)}`);
    if (HARNESS_OWNED.has(m[1]!)) throw new Error(`--server-env cannot set ${m[1]}: the harness sets it for each Parley it starts`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    strict: true,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      turns: { type: 'string' },
      concurrency: { type: 'string' },
      sizes: { type: 'string' },
      'database-url': { type: 'string' },
      generators: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'heap-prof': { type: 'string' },
      'heap-snapshots': { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      smoke: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [what] = positionals;
  if (values.help || !what || (what !== 'all' && !SCENARIOS[what])) {
    process.stderr.write(USAGE + '\n');
    return values.help ? 0 : 2;
  }
  const num = (v: string | undefined, d: number) => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`not a number: ${v}`);
    return n;
  };
  const smoke = values.smoke ?? false;
  const sizes = values.sizes?.split(',').map((s) => num(s, 0));
  const options: RunOptions = {
    durationS: num(values.duration, smoke ? 1 : 10),
    warmupS: num(values.warmup, smoke ? 0 : 2),
    turns: Math.max(1, Math.round(num(values.turns, smoke ? 2 : 5))),
    smoke,
    serverUrl: values['database-url'] ?? (process.env.DATABASE_URL || undefined),
    profile: { cpuDir: values['cpu-prof'], heapDir: values['heap-prof'], snapshotDir: values['heap-snapshots'] },
    concurrency: values.concurrency === undefined ? undefined : num(values.concurrency, 1),
    sizes,
    serverEnv: parseServerEnv(values['server-env'] ?? []),
    quiet: false,
  };
  for (const dir of [options.profile.cpuDir, options.profile.heapDir, options.profile.snapshotDir]) if (dir) mkdirSync(dir, { recursive: true });
  const largest = Math.max(15_000, ...(sizes ?? [0]));
  const generators = num(values.generators, Math.max(2, Math.ceil(largest / MAX_CLIENTS_PER_GENERATOR)));
  const names = what === 'all' ? Object.keys(SCENARIOS) : [what];
  const started = new Date();
  const load = loadavg();
  const measuredCommit = commit();
  const settings = Object.entries(options.serverEnv)
    .map(([k, v]) => `, Parley with ${k}=${v}`)
    .join('');
  process.stderr.write(
    `Parley benchmarks: ${names.join(', ')} on ${options.serverUrl ? 'Postgres' : 'embedded PGlite'}, ${generators} load generators, load average ${load.map((l) => l.toFixed(2)).join(' ')}${settings}\n`,
  );
  ensureFreshServerBin();
  const failures: Failure[] = [];
  const results = await runScenarios(names, options, generators, failures);
  const minutes = (Date.now() - started.getTime()) / 60_000;
  process.stdout.write(`${results.filter((r) => r.met).length} of ${results.length} targets met in ${minutes.toFixed(1)} min\n`);
  if (what === 'all') {
    const file = values.out ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'BENCHMARKS.md');
    const generated = benchmarksMarkdown(results, failures, {
      date: started.toISOString(),
      commit: measuredCommit,
      machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`,
      database: options.serverUrl ? 'Postgres (a fresh database per scenario on the given server)' : 'embedded PGlite (a fresh data directory per scenario)',
      loadBefore: load,
      loadAfter: loadavg(),
      minutes,
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
    });
    writeFileSync(file, withRecords(generated, existsSync(file) ? readFileSync(file, 'utf8') : null));
    process.stdout.write(`wrote ${file}\n`);
  }
  return failures.length > 0 ? 1 : 0;
}

if (process.argv[1]?.endsWith('main.js') && process.argv[1].includes('bench')) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
