// The order of an owner's pipelined batches (src/actors/commit-order.ts): a batch passes each
// stage only after the batch it follows did, or failed; a transaction that holds several batches
// waits only for batches outside it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { orderOf, Turn, UNORDERED, type Stage } from '../../src/actors/commit-order.js';

const t = suite('commit order');

/** Whether the promise has settled once pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

t('a turn has passed a stage only once it says so', async () => {
  const a = new Turn(null);
  assert.is(await settled(a.passed('messages')), false);
  a.pass('messages');
  assert.is(await settled(a.passed('messages')), true);
  assert.is(await settled(a.passed('events')), false, 'each stage on its own');
  a.pass('messages'); // again: nothing changes
  assert.is(await settled(a.passed('messages')), true);
});

t('the batch after waits for each stage of the one before', async () => {
  const a = new Turn(null);
  const b = new Turn(a);
  const order = orderOf([b]);
  for (const stage of ['begun', 'messages', 'events', 'commit'] as Stage[]) {
    const waiting = order.wait(stage);
    assert.is(await settled(waiting), false, `${stage}: waits`);
    a.pass(stage);
    assert.is(await settled(waiting), true, `${stage}: goes once the batch before passed it`);
  }
});

t('a batch that fails releases the one after it at every stage; a settled turn forgets its predecessor', async () => {
  const a = new Turn(null);
  const b = new Turn(a);
  const order = orderOf([b]);
  const waits = (['begun', 'messages', 'events', 'commit'] as Stage[]).map((s) => order.wait(s));
  a.settle();
  for (const w of waits) assert.is(await settled(w), true);
  assert.is(b.follows, a);
  b.settle();
  assert.is(b.follows, null, 'a settled turn holds no earlier one');
  assert.is(await settled(b.passed('commit')), true);
});

t('a transaction passes and settles the stages of every batch it holds', async () => {
  const x = new Turn(null);
  const y = new Turn(null);
  const order = orderOf([x, null, y]);
  order.pass('events');
  assert.is(await settled(x.passed('events')), true);
  assert.is(await settled(y.passed('events')), true);
  assert.is(await settled(y.passed('commit')), false);
  order.settle();
  assert.is(await settled(x.passed('commit')), true);
  assert.is(await settled(y.passed('messages')), true);
});

t('a transaction waits for the batches outside it, never for its own', async () => {
  const outside = new Turn(null);
  const first = new Turn(outside);
  const second = new Turn(first); // the same owner's next batch, merged into the same transaction
  const other = new Turn(null);
  const order = orderOf([first, second, other]);
  const w = order.wait('commit');
  assert.is(await settled(w), false, 'waits for the batch outside');
  outside.pass('commit');
  // Waiting for `first` here as well would wait for this very transaction: for ever.
  assert.is(await settled(w), true);
});

t('batches that follow nothing, or no batches at all, wait for nothing', async () => {
  assert.is(orderOf([null, null]), UNORDERED);
  assert.is(await settled(orderOf([new Turn(null)]).wait('messages')), true);
  assert.is(await settled(UNORDERED.wait('commit')), true);
});

t.run();
