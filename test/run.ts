// `npm test [-- pattern…]`: prepares one migrated database template, runs every compiled test
// file (dist/test/**/*.test.js) in its own process, TEST_CONCURRENCY at a time, and ends with the
// line `N passed, N failed` that CI reads. A file that crashes counts as a failure.
// `npm run test:crash` (`--crash`): the process-level crash tests (dist/test/**/*.crash.js) instead,
// one at a time (they measure restart times) and with their reports printed.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareTemplate, serverUrl } from './helpers/database.js';
import { ensureFreshServerBin } from './helpers/process.js';

const here = dirname(fileURLToPath(import.meta.url));

function findTests(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out;
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  output: string;
  code: number | null;
}

function runFile(file: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[runner] killed after ${timeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label: string) => {
        const m = new RegExp(`${label}:\\s+(\\d+)`).exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
        return m ? Number(m[1]) : null;
      };
      const total = num('Total');
      const passed = num('Passed') ?? 0;
      const skipped = num('Skipped') ?? 0;
      // uvu counts skipped tests apart from Total (the tests that ran).
      let failed = total === null ? 1 : total - passed;
      if (code !== 0 && failed === 0) failed = 1; // crashed after its tests, or exited non-zero
      resolve({ file, passed, failed, skipped, ms: Date.now() - started, output, code });
    });
  });
}

async function main(): Promise<number> {
  const crash = process.argv.includes('--crash');
  const patterns = process.argv.slice(2).filter((a) => a !== '--crash');
  const files = findTests(here, crash ? '.crash.js' : '.test.js').filter((f) => patterns.length === 0 || patterns.some((p) => f.includes(p)));
  if (files.length === 0) {
    process.stdout.write('No test files matched.\n0 passed, 0 failed\n');
    return 1;
  }
  ensureFreshServerBin();
  const concurrency = crash ? 1 : Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2));
  const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 600_000);
  const backend = serverUrl() ? 'postgres' : 'embedded PGlite';
  process.stdout.write(
    crash ? `Running ${files.length} crash test files, one at a time\n` : `Running ${files.length} test files on ${backend}, ${concurrency} at a time\n`,
  );
  // Crash tests start the server binary on empty databases of their own: no template needed.
  const template = crash ? { env: {}, cleanup: async () => undefined } : await prepareTemplate();
  const env = { ...process.env, ...template.env };
  const results: FileResult[] = [];
  const queue = [...files];
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
          const r = await runFile(f, env, timeoutMs);
          results.push(r);
          const name = relative(here, f);
          const mark = r.failed > 0 ? 'FAIL' : 'ok  ';
          process.stdout.write(`${mark} ${name}  ${r.passed} passed, ${r.failed} failed (${(r.ms / 1000).toFixed(1)} s)\n`);
          if (r.failed > 0 || crash) process.stdout.write(indent(r.output) + '\n');
        }
      }),
    );
  } finally {
    await template.cleanup();
  }
  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

const indent = (s: string) =>
  s
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stdout.write(`Test runner failed: ${e instanceof Error ? e.stack : String(e)}\n0 passed, 1 failed\n`);
    process.exit(1);
  },
);
