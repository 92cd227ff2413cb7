// The benchmark's inspector client against a real child process started with the inspector on.
import { spawn, type ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Inspector } from '../../bench/inspector.js';
import { usage } from '../../bench/servers.js';

const t = suite('bench inspector');

/** The message of the error `p` rejects with (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  return assert.unreachable('expected a rejection') as never;
}

/** A child that holds garbage until asked to collect it, and its stderr so far. */
async function child(): Promise<{ proc: ChildProcess; output: () => string }> {
  // 64 MB of garbage, dropped at once: only a collection gives it back.
  const script = 'let junk = Array.from({ length: 64 }, () => Buffer.alloc(2 ** 20, 1).toString("latin1")); junk = null; setInterval(() => {}, 1000);';
  const proc = spawn(process.execPath, ['--inspect=127.0.0.1:0', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const t0 = Date.now();
  while (!out.includes('Debugger listening')) {
    if (Date.now() - t0 > 10_000) throw new Error(`no inspector: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 300)); // the script has run
  return { proc, output: () => out };
}

t('a full collection gives the garbage back, and protocol errors are rejections', async () => {
  const { proc, output } = await child();
  const inspector = await Inspector.connect({ output });
  try {
    const before = usage(proc.pid!).rssBytes;
    const after = await inspector.collectedRss({ usage: () => usage(proc.pid!) });
    assert.ok(before - after > 32 * 2 ** 20, `RSS ${before} before, ${after} after the collection`);
    assert.match(await rejection(inspector.call('NoSuchDomain.method')), /^inspector: /);
  } finally {
    inspector.close();
    proc.kill();
  }
});

t('connecting waits for the URL the process prints, and gives up without one', async () => {
  let printed = 'starting\n';
  setTimeout(() => (printed += 'Debugger listening on ws://127.0.0.1:1/not-listening\n'), 100);
  // The URL came late and names a closed port: the wait ended and the connection was tried.
  assert.match(await rejection(Inspector.connect({ output: () => printed })), /ECONNREFUSED/);
  assert.match(await rejection(Inspector.connect({ output: () => 'no inspector here' }, 200)), /^no inspector URL/);
});

t.run();
