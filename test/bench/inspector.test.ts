// The benchmark's inspector client against a real child process started with the inspector on.
import { spawn, type ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Inspector } from '../../bench/inspector.js';
import { diff, kinds } from '../../bench/heap-diff.js';
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

/**
 * A child that runs `script` under the inspector, once it printed `ready` on stdout: its stderr so
 * far (where the inspector's URL is), and `tell(done)`, which writes a line to its stdin and
 * resolves once it printed `done`.
 */
async function inspected(
  script: readonly string[],
  ready: string,
  flags: readonly string[] = [],
): Promise<{ proc: ChildProcess; output: () => string; tell: (done: string) => Promise<void> }> {
  const proc = spawn(process.execPath, [...flags, '--inspect=127.0.0.1:0', '-e', script.join('\n')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const until = async (word: string) => {
    for (const t0 = Date.now(); !stdout.includes(word); await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() - t0 > 10_000) throw new Error(`the child never printed ${word}: ${out}${stdout}`);
    }
  };
  try {
    await until(ready);
  } catch (e) {
    proc.kill();
    throw e;
  }
  const tell = async (done: string) => {
    proc.stdin!.write('go\n');
    await until(done);
  };
  return { proc, output: () => out, tell };
}

/**
 * A child that holds 64 MB of strings until told to drop them, and `drop`, which resolves once
 * the child has dropped them. Nothing frees them before a collection: the child allocates nothing
 * more, and the memory reducer, which would collect an idle heap on its own timer, is off.
 */
async function child(): Promise<{ proc: ChildProcess; output: () => string; drop: () => Promise<void> }> {
  const { proc, output, tell } = await inspected(
    [
      'let junk = Array.from({ length: 64 }, () => Buffer.alloc(2 ** 20, 1).toString("latin1"));',
      'process.stdin.once("data", () => { junk = null; process.stdout.write("dropped\\n"); });',
      'process.stdout.write("holding\\n");',
    ],
    'holding',
    ['--no-memory-reducer'],
  );
  return { proc, output, drop: () => tell('dropped') };
}

t('a full collection gives the garbage back, and protocol errors are rejections', async () => {
  const { proc, output, drop } = await child();
  // Connected while the garbage is still held: attaching may itself collect.
  const inspector = await Inspector.connect({ output });
  try {
    await drop();
    const before = usage(proc.pid!);
    const { usage: after, heapBytes } = await inspector.collectedUsage({ usage: () => usage(proc.pid!) });
    // The 64 MB of strings are gone from the heap; what is left is Node's own (a few MB).
    assert.ok(heapBytes > 1e6 && heapBytes < 16 * 2 ** 20, `heap ${heapBytes} bytes after the collection`);
    assert.ok(before.rssBytes - after.rssBytes > 32 * 2 ** 20, `RSS ${before.rssBytes} before, ${after.rssBytes} after the collection`);
    // The garbage was the process's own memory; Node's executable pages are RSS but not that.
    assert.ok(after.rssBytes - after.anonBytes > 8 * 2 ** 20, `RSS ${after.rssBytes}, anonymous ${after.anonBytes}`);
    assert.ok(before.anonBytes - after.anonBytes > 32 * 2 ** 20, `anonymous ${before.anonBytes} before, ${after.anonBytes} after`);
    assert.match(await rejection(inspector.call('NoSuchDomain.method')), /^inspector: /);
  } finally {
    inspector.close();
    proc.kill();
  }
});

t('two heap snapshots give what grew between them, by kind of object', async () => {
  // A child holding 1,000 Markers, and 3,000 more once told: the snapshots bracket the growth.
  const { proc, output, tell } = await inspected(
    [
      'class Marker { constructor(i) { this.i = i; this.next = null; } }',
      'const held = Array.from({ length: 1000 }, (_, i) => new Marker(i));',
      'process.stdin.once("data", () => { for (let i = 0; i < 3000; i++) held.push(new Marker(i)); process.stdout.write("grew\\n"); });',
      'process.stdout.write("holding\\n");',
    ],
    'holding',
  );
  const dir = mkdtempSync(join(tmpdir(), 'parley-snapshots-'));
  try {
    const inspector = await Inspector.connect({ output });
    try {
      await inspector.heapSnapshot(join(dir, 'a.heapsnapshot'));
      await tell('grew');
      await inspector.heapSnapshot(join(dir, 'b.heapsnapshot'));
    } finally {
      inspector.close();
    }
    const read = (f: string) => kinds(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Parameters<typeof kinds>[0]);
    const a = read('a.heapsnapshot');
    assert.is(a.get('Marker (object)')?.count, 1000);
    const grown = diff(a, read('b.heapsnapshot'));
    const marker = grown.find((r) => r.kind === 'Marker (object)');
    assert.is(marker?.count, 3000);
    // Each Marker is a header of three words and its two fields.
    assert.is(marker?.bytes, 3000 * a.get('Marker (object)')!.bytes / 1000);
    assert.ok(marker!.bytes >= 3000 * 40, `${marker!.bytes} bytes`);
    // Largest change in bytes first.
    const sizes = grown.map((r) => Math.abs(r.bytes));
    assert.equal(sizes, [...sizes].sort((x, y) => y - x));
  } finally {
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
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
