// Answers written at the end of the event loop's turn: together, in order, never to a client that
// went away meanwhile, at once when flushed (before the server closes its connections), and each
// even if another's write throws.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Outbox } from '../../src/http/outbox.js';

class Client {
  gone = false;
  constructor(readonly name: string) {}
}

function recording() {
  const written: string[] = [];
  const failures: unknown[] = [];
  const outbox = new Outbox<Client, string>(
    (to, answer, close) => {
      if (answer === 'bad') throw new Error(`cannot write to ${to.name}`);
      written.push(`${to.name}:${answer}${close ? ':close' : ''}`);
    },
    (err) => failures.push(err),
  );
  return { written, failures, outbox };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

test('answers wait for the end of the turn and are then written together, in order', async () => {
  const { written, outbox } = recording();
  const a = new Client('a');
  const b = new Client('b');
  outbox.add(a, '1', false);
  await Promise.resolve(); // microtasks (a handler's awaits) run before the turn ends
  outbox.add(b, '2', true);
  assert.equal(written, [], 'nothing written before the end of the turn');
  await turn();
  assert.equal(written, ['a:1', 'b:2:close']);
});

test('an answer given after the flush of its turn goes out in the next turn', async () => {
  const { written, outbox } = recording();
  const c = new Client('c');
  outbox.add(c, 'first', false);
  setImmediate(() => outbox.add(c, 'later', false)); // queued after the flush: runs after it
  await turn();
  assert.equal(written, ['c:first']);
  await turn();
  assert.equal(written, ['c:first', 'c:later']);
});

test('an answer to a client that went away before the end of the turn is dropped', async () => {
  const { written, outbox } = recording();
  const leaving = new Client('leaving');
  const staying = new Client('staying');
  outbox.add(leaving, 'x', false);
  outbox.add(staying, 'y', false);
  leaving.gone = true;
  await turn();
  assert.equal(written, ['staying:y']);
});

test('flush writes at once, and the scheduled end of the turn then has nothing left to write', async () => {
  const { written, outbox } = recording();
  const d = new Client('d');
  outbox.add(d, 'now', false);
  outbox.flush();
  assert.equal(written, ['d:now']);
  await turn();
  assert.equal(written, ['d:now'], 'not written twice');
  outbox.add(d, 'next', false);
  await turn();
  assert.equal(written, ['d:now', 'd:next'], 'a later answer is scheduled anew');
});

test('a write that throws is reported, and the answers after it are still written', async () => {
  const { written, failures, outbox } = recording();
  outbox.add(new Client('e'), 'bad', false);
  outbox.add(new Client('f'), 'good', false);
  await turn();
  assert.equal(written, ['f:good']);
  assert.is(failures.length, 1);
  assert.match(String(failures[0]), /cannot write to e/);
});

test.run();
