// The actor runtime on the patched nact (patches/nact+7.6.2.patch): a handler that returns its
// next state is finished at once, one that returns a promise holds the actor's later messages
// until it settles, and a failure of either kind is logged and the actor resumes with its state.
// An idle actor holds no mailbox, no spent immediate and no child maps of its own (memory per queue).
import nact from 'nact';
import { createRequire } from 'node:module';
import pino from 'pino';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ask, dispatch, logAndResume, ok, SelfActor, spawnActor, startRuntime, type ActorRuntime, type Reply, type Ref } from '../../src/actors/runtime.js';

type Msg =
  | { readonly kind: 'add'; readonly n: number }
  | { readonly kind: 'slow'; readonly n: number; readonly wait: Promise<void> }
  | { readonly kind: 'throw' }
  | { readonly kind: 'reject' }
  | { readonly kind: 'get'; readonly replyTo: Ref<Reply<number[]>> };

/** The log lines a logger wrote, parsed. */
function capturingLogger(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'error' }, stream), lines };
}

/** State: the numbers added, in the order the actor handled them. */
function handler(st: number[], msg: Msg): number[] | Promise<number[]> {
  switch (msg.kind) {
    case 'add':
      return [...st, msg.n];
    case 'slow':
      return msg.wait.then(() => [...st, msg.n]);
    case 'throw':
      throw new Error('thrown');
    case 'reject':
      return Promise.reject(new Error('rejected'));
    case 'get':
      dispatch(msg.replyTo, ok(st));
      return st;
  }
}

let runtime: ActorRuntime;
const t = suite('actor runtime');
t.before(() => {
  runtime = startRuntime(pino({ level: 'silent' }), 5_000);
});
t.after(() => runtime.stop());

const get = (ref: Ref<Msg>) => ask<Msg, number[]>(runtime, ref, (replyTo) => ({ kind: 'get', replyTo }));

t('a synchronous handler handles every message in order, each on the state the last one left', async () => {
  const ref = spawnActor<number[], Msg>(runtime.system, 'sync', handler, [], runtime.log);
  for (let n = 0; n < 200; n++) dispatch(ref, { kind: 'add', n });
  assert.equal(await get(ref), Array.from({ length: 200 }, (_, n) => n));
});

t('a handler that returns a promise holds the messages after it until it settles', async () => {
  const ref = spawnActor<number[], Msg>(runtime.system, 'slow', handler, [], runtime.log);
  let release!: () => void;
  const wait = new Promise<void>((r) => (release = r));
  dispatch(ref, { kind: 'add', n: 1 });
  dispatch(ref, { kind: 'slow', n: 2, wait });
  dispatch(ref, { kind: 'add', n: 3 });
  const answer = get(ref);
  await new Promise((r) => setTimeout(r, 20));
  let answered = false;
  void answer.then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(answered, 'the query waited behind the unsettled message');
  release();
  assert.equal(await answer, [1, 2, 3]);
});

t('a synchronous throw and a rejected promise are each logged, and the actor resumes with its state', async () => {
  const { log, lines } = capturingLogger();
  const ref = spawnActor<number[], Msg>(runtime.system, 'failing', handler, [], log);
  dispatch(ref, { kind: 'add', n: 1 });
  dispatch(ref, { kind: 'throw' });
  dispatch(ref, { kind: 'add', n: 2 });
  dispatch(ref, { kind: 'reject' });
  dispatch(ref, { kind: 'add', n: 3 });
  assert.equal(await get(ref), [1, 2, 3]);
  assert.equal(
    lines.map((l) => [l.msg, l.kind, (l.err as { message?: string } | undefined)?.message]),
    [
      ['actor crashed; resuming', 'throw', 'thrown'],
      ['actor crashed; resuming', 'reject', 'rejected'],
    ],
  );
});

t("a context's children are the actor's children's references", async () => {
  let seen: Map<string, unknown> | null = null;
  const parent = nact.spawn(
    runtime.system as never,
    (state: number, _msg: unknown, ctx: { children: Map<string, unknown> }) => {
      seen = ctx.children;
      return state;
    },
    'with-children',
  );
  const child = spawnActor<number[], Msg>(parent, 'kid', handler, [], runtime.log);
  nact.dispatch(parent, 'look');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal([...seen!.keys()], ['kid']);
  assert.is(seen!.get('kid'), child);
  nact.stop(parent as never);
});

t('the contexts of an actor without children share one children map (no map per message)', async () => {
  const seen: unknown[] = [];
  const ref = nact.spawn(
    runtime.system as never,
    (state: number, _msg: unknown, ctx: { children: Map<string, unknown> }) => {
      seen.push(ctx.children);
      return state + 1;
    },
    'childless',
  );
  nact.dispatch(ref, 'a');
  nact.dispatch(ref, 'b');
  await new Promise((r) => setTimeout(r, 20));
  assert.is(seen.length, 2);
  assert.is(seen[0], seen[1]);
  assert.is((seen[0] as Map<string, unknown>).size, 0);
});

/** nact's actor object behind a reference (its fields are what the patch is about). */
interface ActorInternals {
  mailbox: unknown;
  immediate: unknown;
  children: Map<string, unknown>;
  childReferences?: Map<string, unknown>;
  setTimeout: unknown;
  path: { parent: unknown; name: string; parts: string[]; toString(): string };
  name: string;
}
const systemMap = createRequire(import.meta.url)('nact/lib/system-map') as { find(system: string, ref: unknown): unknown };
const internals = (ref: Ref<unknown>) => systemMap.find((ref as unknown as { system: { name: string } }).system.name, ref) as ActorInternals;

t('an idle actor keeps no mailbox, no spent immediate and no maps of its own for children it has not got', async () => {
  const ref = spawnActor<number[], Msg>(runtime.system, 'idle', handler, [], runtime.log);
  const sibling = spawnActor<number[], Msg>(runtime.system, 'idle-sibling', handler, [], runtime.log);
  for (let n = 0; n < 50; n++) dispatch(ref, { kind: 'add', n });
  assert.ok(internals(ref).mailbox, 'messages wait in a mailbox while the actor is busy');
  assert.ok((internals(ref) as unknown as { busy: boolean }).busy);
  assert.is((await get(ref)).length, 50);
  await new Promise((r) => setTimeout(r, 10));
  const idle = internals(ref);
  assert.is(idle.mailbox, null);
  assert.not.ok((idle as unknown as { busy: boolean }).busy);
  assert.is(idle.immediate, undefined);
  assert.is(idle.children, internals(sibling).children, 'childless actors share one empty map');
  assert.is(idle.children.size, 0);
});

t('an actor that spawns a child gets a map of its own; the shared empty one is never written', async () => {
  const parent = spawnActor<number[], Msg>(runtime.system, 'parent', handler, [], runtime.log);
  const childless = spawnActor<number[], Msg>(runtime.system, 'childless-2', handler, [], runtime.log);
  const child = spawnActor<number[], Msg>(parent, 'child', handler, [], runtime.log);
  dispatch(child, { kind: 'add', n: 7 });
  assert.equal(await get(child), [7]);
  assert.equal([...internals(parent).children.keys()], ['child']);
  // One map per parent: a second one, of the children's references, cost an entry per queue actor.
  assert.is(internals(parent).childReferences, undefined);
  assert.not.ok(Object.hasOwn(internals(parent), 'setTimeout'), 'no no-op of its own for a shutdown it has not got');
  assert.is(internals(childless).children.size, 0);
  nact.stop(parent as never);
  await new Promise((r) => setTimeout(r, 10));
  assert.is(internals(child), undefined, 'the child stopped with its parent');
  assert.is(internals(childless).children.size, 0);
});

t('an actor is its own reference, reached until it stops; paths are made when asked', async () => {
  const top = spawnActor<number[], Msg>(runtime.system, 'top', handler, [], runtime.log);
  const middle = spawnActor<number[], Msg>(top, 'middle', handler, [], runtime.log);
  const leaf = spawnActor<number[], Msg>(middle, 'leaf', handler, [], runtime.log);
  dispatch(leaf, { kind: 'add', n: 3 });
  assert.equal(await get(leaf), [3]);
  const ref = leaf as unknown as { actor: unknown; name: string; type: string; parent: unknown; path: ActorInternals['path'] };
  assert.is(internals(leaf), ref, 'a message reaches the actor without a walk from the root');
  assert.is(ref.parent, middle);
  // No reference or path object per actor: a path is made when asked, from the names.
  // Nor a flag of its own for being busy: its mailbox says so (null while it idles).
  for (const k of ['reference', 'path', 'type', 'actor', 'log', 'afterStop', 'initialStateFunc', 'busy']) assert.not.ok(Object.hasOwn(ref, k), k);
  assert.equal(ref.path.parts, ['top', 'middle', 'leaf']);
  assert.match(ref.path.toString(), /:\/\/top\/middle\/leaf$/);
  assert.is(ref.name, 'leaf');
  assert.is(ref.type, 'actor');
  assert.throws(() => spawnActor<number[], Msg>(top, 'no spaces', handler, [], runtime.log), /path may only contain/);
  nact.stop(middle as never);
  await new Promise((r) => setTimeout(r, 10));
  assert.is(internals(leaf), undefined, 'a stopped actor is not found through its reference');
  assert.is(ref.actor, null);
  dispatch(leaf, { kind: 'add', n: 4 }); // to a stopped actor: nothing, as before
  assert.match(ref.path.toString(), /:\/\/top\/middle\/leaf$/, 'a stopped actor\'s reference still names it');
  assert.equal(await get(top), []);
});

t('an actor stops once: stopped again, it does nothing', async () => {
  let stops = 0;
  const ref = nact.spawn(runtime.system as never, (state: number) => state, 'stops-once', { initialState: 0, afterStop: () => stops++ } as never);
  nact.stop(ref);
  (ref as unknown as { stop(): void }).stop(); // the actor itself: its reference
  await new Promise((r) => setTimeout(r, 20));
  assert.is(stops, 1);
});

/** An actor that is its own state: it counts what it is sent, and a 'throw' is a bug. */
class Counter extends SelfActor {
  count = 0;
  readonly seen: unknown[] = [];

  constructor(
    parent: Ref<never>,
    name: string,
    private readonly logger: pino.Logger,
  ) {
    super(parent, name);
  }

  f(self: Counter, msg: Msg): Counter {
    self.seen.push(this); // nact calls f with the message's context as `this`
    if (msg.kind === 'throw') throw new Error('thrown');
    if (msg.kind === 'add') self.count += msg.n;
    if (msg.kind === 'get') dispatch(msg.replyTo, ok([self.count]));
    return self;
  }

  onCrash(msg: unknown, err: unknown, ctx: { resume: symbol; path: { toString(): string } }): symbol {
    return logAndResume(this.logger, msg, err, ctx);
  }
}

t('an actor that is its own state: one object, which handles its messages, resumes after a bug and stops with its parent', async () => {
  const { log, lines } = capturingLogger();
  const parent = spawnActor<number[], Msg>(runtime.system, 'self-parent', handler, [], runtime.log);
  const counter = new Counter(parent, 'counter', log);
  const ref = counter as unknown as Ref<Msg>;
  for (const n of [1, 2, 3]) dispatch(ref, { kind: 'add', n });
  dispatch(ref, { kind: 'throw' });
  dispatch(ref, { kind: 'add', n: 4 });
  assert.equal(await get(ref), [10]);
  assert.is(internals(parent).children.get('counter'), counter, 'the instance is the child actor');
  assert.is(internals(ref), counter, 'and its own reference');
  // What the prototype gives is not copied into the object: nact's fields are the actor's own.
  for (const k of ['f', 'onCrash', 'state', 'initialState']) assert.not.ok(Object.hasOwn(counter, k), k);
  assert.ok(counter.seen.every((ctx) => ctx !== counter && (ctx as { self?: unknown }).self === counter));
  assert.equal(
    lines.map((l) => [l.msg, l.kind, l.actor]),
    [['actor crashed; resuming', 'throw', (counter as unknown as ActorInternals).path.toString()]],
  );
  assert.throws(() => new Counter(parent, 'counter', log), /already exists/);
  assert.throws(() => new Counter(runtime.system, 'under-the-system', log), /running actor/);
  nact.stop(parent as never);
  await new Promise((r) => setTimeout(r, 10));
  assert.is((counter as unknown as { actor: unknown }).actor, null, 'stopped with its parent');
  assert.throws(() => new Counter(parent, 'late', log), /running actor/);
});

t('stopping the system stops every actor, children included', () => {
  const system = nact.start();
  const parent = spawnActor<number[], Msg>(system as never, 'parent', handler, [], runtime.log);
  const child = spawnActor<number[], Msg>(parent, 'child', handler, [], runtime.log);
  nact.stop(system);
  for (const ref of [parent, child]) assert.is((ref as unknown as { actor: unknown }).actor, null);
});

t.run();
