// The serial actor's batched commands (group commit of sends): inputs that arrive while a batch is
// running go together in the next one, each gets its own answer, and a command that is not
// batched runs only after every batch queued before it. A pipelined command (depth 2) starts its
// next batch while one runs, once that one has passed the pipeline's stage, each batch's turn
// following the one before.
import pino from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ask, fail, ok, startRuntime, type ActorRuntime, type Reply } from '../../src/actors/runtime.js';
import { Batched, spawnSerialActor, type SerialCommand } from '../../src/actors/conversations/serial-actor.js';
import type { Turn } from '../../src/actors/commit-order.js';

interface Log {
  readonly events: string[];
  /** The weight each `sum` batch was run with. */
  readonly weights: number[];
  /** Resolves the batch now running. */
  release: (() => void) | null;
  /** The `pipe` batches in the order they started: their turns, and what resolves each. */
  readonly turns: Turn[];
  readonly finish: Array<() => void>;
}

function commands(log: Log) {
  return {
    add: new Batched(async (_ctx: null, inputs: readonly number[]): Promise<Array<Reply<number>>> => {
      log.events.push(`batch ${inputs.join(',')}`);
      await new Promise<void>((r) => (log.release = r));
      return inputs.map((n) => (n < 0 ? fail(new Error(`negative ${n}`)) : ok(n * 10)));
    }, 3),
    // Weighs its input: a batch takes inputs while their sum stays within 10.
    sum: new Batched(
      async (_ctx: null, inputs: readonly number[], weight: number): Promise<Array<Reply<number>>> => {
        log.events.push(`sum ${inputs.join(',')}`);
        log.weights.push(weight);
        await new Promise<void>((r) => (log.release = r));
        return inputs.map((n) => ok(n));
      },
      10,
      (_ctx: null, n: number) => n,
    ),
    // Two batches at once, the next once the one before has passed 'messages'.
    pipe: new Batched(
      async (_ctx: null, inputs: readonly number[], _weight: number, turn: Turn): Promise<Array<Reply<number>>> => {
        log.events.push(`pipe ${inputs.join(',')}`);
        log.turns.push(turn);
        await new Promise<void>((r) => log.finish.push(r));
        return inputs.map((n) => ok(n));
      },
      10,
      () => 1,
      { depth: 2, startAfter: 'messages' },
    ),
    note: async (_ctx: null, text: string) => {
      log.events.push(`note ${text}`);
      return text;
    },
  };
}

let runtime: ActorRuntime;
const t = suite('serial actor: batched commands');
t.before(() => {
  runtime = startRuntime(pino({ level: 'silent' }), 5_000);
});
t.after(() => runtime.stop());

const tick = () => new Promise((r) => setTimeout(r, 10));

function start(name: string) {
  const log: Log = { events: [], weights: [], release: null, turns: [], finish: [] };
  const ref = spawnSerialActor<null>(runtime.system, name, null, commands(log), pino({ level: 'silent' }));
  const call = <T>(command: string, input: unknown) =>
    ask<SerialCommand<null>, T>(runtime, ref, (replyTo) => ({ kind: 'command', name: command, input, replyTo }));
  /** Let the running batch finish, and wait for the next to start (or for nothing). */
  const next = async () => {
    const release = log.release;
    log.release = null;
    release?.();
    await tick();
  };
  return { log, call, next };
}

t('inputs that arrive during a batch go together in the next, at most maxWeight at a time', async () => {
  const { log, call, next } = start('a');
  const answers = [1, 2, 3, 4, 5, 6].map((n) => call<number>('add', n));
  await tick();
  assert.equal(log.events, ['batch 1']);
  await next();
  assert.equal(log.events, ['batch 1', 'batch 2,3,4']);
  await next();
  await next();
  assert.equal(log.events, ['batch 1', 'batch 2,3,4', 'batch 5,6']);
  assert.equal(await Promise.all(answers), [10, 20, 30, 40, 50, 60]);
});

t('a batch takes inputs while their weight stays within the limit; a heavier one goes alone', async () => {
  const { log, call, next } = start('w');
  const answers = [1, 4, 5, 2, 20, 1].map((n) => call<number>('sum', n));
  await tick();
  for (let i = 0; i < 5; i++) await next();
  assert.equal(log.events, ['sum 1', 'sum 4,5', 'sum 2', 'sum 20', 'sum 1']);
  assert.equal(log.weights, [1, 9, 2, 20, 1], 'each batch is run with its own weight');
  assert.equal(await Promise.all(answers), [1, 4, 5, 2, 20, 1]);
});

t('batched commands keep their order of arrival: a batch is a run of one command', async () => {
  const { log, call, next } = start('o');
  const answers = [call<number>('add', 1), call<number>('add', 2), call<number>('sum', 3), call<number>('add', 4)];
  await tick();
  for (let i = 0; i < 4; i++) await next();
  assert.equal(log.events, ['batch 1', 'batch 2', 'sum 3', 'batch 4']);
  assert.equal(await Promise.all(answers), [10, 20, 3, 40]);
});

t('each input gets its own answer, failures included', async () => {
  const { call, next } = start('b');
  const first = call<number>('add', 1);
  await tick();
  const answers = [2, -3, 4].map((n) => call<number>('add', n).then(String, (e: Error) => e.message));
  await tick();
  await next();
  await next();
  assert.is(await first, 10);
  assert.equal(await Promise.all(answers), ['20', 'negative -3', '40']);
});

t('a command that is not batched waits for the batches queued before it', async () => {
  const { log, call, next } = start('c');
  const sends = [call<number>('add', 1), call<number>('add', 2)];
  const note = call<string>('note', 'after 2');
  const later = call<number>('add', 3);
  await tick();
  assert.equal(log.events, ['batch 1']);
  await next();
  assert.equal(log.events, ['batch 1', 'batch 2']);
  await next();
  // The note ran once batch 2 was done; the send after it started a batch of its own.
  assert.equal(log.events, ['batch 1', 'batch 2', 'note after 2', 'batch 3']);
  await next();
  assert.equal(await Promise.all([...sends, note, later]), [10, 20, 'after 2', 30]);
});

t('a pipelined command starts its next batch once the one running has passed its stage, at most its depth at once, each following the one before', async () => {
  const { log, call } = start('p');
  const answers = [call<number>('pipe', 1)];
  await tick();
  answers.push(call<number>('pipe', 2), call<number>('pipe', 3));
  await tick();
  assert.equal(log.events, ['pipe 1'], 'the next batch waits for the stage');
  log.turns[0]!.pass('messages');
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2,3'], 'what arrived meanwhile goes together');
  assert.is(log.turns[0]!.follows, null);
  assert.is(log.turns[1]!.follows, log.turns[0]);
  answers.push(call<number>('pipe', 4));
  await tick();
  log.turns[1]!.pass('messages');
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2,3'], 'two already run');
  log.finish[0]!();
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2,3', 'pipe 4']);
  assert.is(log.turns[2]!.follows, log.turns[1], 'follows the batch still running');
  assert.is(log.turns[0]!.follows, null, 'a finished batch is settled');
  log.finish[2]!(); // the later batch finishes first: its answers do not wait
  assert.is(await answers[3], 4);
  log.finish[1]!();
  assert.equal(await Promise.all(answers), [1, 2, 3, 4]);
  await tick();
  void call<number>('pipe', 5);
  await tick();
  assert.is(log.turns[3]!.follows, null, 'once nothing runs, a batch follows nothing');
  log.finish[3]!();
});

t('a batch whose stage never came starts the next when it is over', async () => {
  const { log, call } = start('s');
  const answers = [call<number>('pipe', 1)];
  await tick();
  answers.push(call<number>('pipe', 2));
  await tick();
  log.finish[0]!(); // never passed 'messages' (all its sends were duplicates, say)
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2']);
  log.finish[1]!();
  assert.equal(await Promise.all(answers), [1, 2]);
});

t('a command that is not batched, or another batched one, waits for every running batch', async () => {
  const { log, call, next } = start('q');
  const piped = [call<number>('pipe', 1)];
  await tick();
  piped.push(call<number>('pipe', 2));
  const note = call<string>('note', 'after the pipe');
  const added = call<number>('add', 3);
  log.turns[0]!.pass('messages');
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2']);
  log.finish[1]!();
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2'], 'the first batch still runs');
  log.finish[0]!();
  await tick();
  assert.equal(log.events, ['pipe 1', 'pipe 2', 'note after the pipe', 'batch 3']);
  await next();
  assert.equal(await Promise.all([...piped, note, added]), [1, 2, 'after the pipe', 30]);
});

t('another batched command waits for the running batches; batches of depth 1 never overlap', async () => {
  const { log, call, next } = start('r');
  const piped = call<number>('pipe', 1);
  await tick();
  const added = [call<number>('add', 2), call<number>('add', 3)];
  const more = call<number>('pipe', 4);
  await tick();
  assert.equal(log.events, ['pipe 1'], 'add waits for the pipe batch, and the pipe input waits behind add');
  log.finish[0]!();
  await tick();
  assert.equal(log.events, ['pipe 1', 'batch 2,3']);
  await next();
  assert.equal(log.events, ['pipe 1', 'batch 2,3', 'pipe 4']);
  assert.is(log.turns[1]!.follows, null);
  log.finish[1]!();
  assert.equal(await Promise.all([piped, ...added, more]), [1, 20, 30, 4]);
});

t.run();
