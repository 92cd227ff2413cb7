// The realm's group commit of sends: batches submitted while every lane is busy are stored
// together by the next free lane, within the weight limit, and each submitter gets exactly the
// replies to its own inputs, failures included. A transaction is handed the order of the batches
// it holds (commit-order.ts) and settles it when it is over.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GroupCommit } from '../../src/actors/conversations/group-commit.js';
import { fail, ok, type Reply } from '../../src/actors/runtime.js';
import { Turn, type CommitOrder } from '../../src/actors/commit-order.js';

interface Run {
  readonly inputs: readonly number[];
  readonly order: CommitOrder;
  readonly finish: (how?: 'throw') => void;
}

/** A group commit whose transactions finish when the test says; an input weighs its absolute value. */
function start(lanes: number, maxWeight: number, soloWeight = Infinity) {
  const runs: Run[] = [];
  const group = new GroupCommit<number, number>(
    (inputs, order) =>
      new Promise<Array<Reply<number>>>((resolve, reject) => {
        runs.push({
          inputs,
          order,
          finish: (how) => (how === 'throw' ? reject(new Error('connection lost')) : resolve(inputs.map((n) => (n < 0 ? fail(new Error(`negative ${n}`)) : ok(n * 10))))),
        });
      }),
    { lanes, maxWeight, soloWeight },
  );
  /** Submit a batch weighing the sum of its inputs' absolute values. */
  const submit = (inputs: number[], turn: Turn | null = null) => group.submit(inputs, inputs.reduce((w, n) => w + Math.abs(n), 0), turn);
  const answers = (replies: Promise<Array<Reply<number>>>) => replies.then((rs) => rs.map((r) => (r.ok ? r.value : (r.error as Error).message)));
  return { runs, submit, answers };
}

const settle = () => new Promise((r) => setImmediate(r));

const t = suite('group commit');

t('a batch starts at once while a lane is free', async () => {
  const { runs, submit, answers } = start(2, 100);
  const a = answers(submit([1, 2]));
  const b = answers(submit([3]));
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1, 2], [3]]);
  runs[1]!.finish();
  runs[0]!.finish();
  assert.equal(await a, [10, 20]);
  assert.equal(await b, [30]);
});

t('batches that wait for a lane are stored together, each answered with its own replies', async () => {
  const { runs, submit, answers } = start(1, 100);
  const first = answers(submit([1]));
  const waiting = [answers(submit([2, 3])), answers(submit([4])), answers(submit([5, 6]))];
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1]]);
  runs[0]!.finish();
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [2, 3, 4, 5, 6]]);
  runs[1]!.finish();
  assert.equal(await first, [10]);
  assert.equal(await Promise.all(waiting), [[20, 30], [40], [50, 60]]);
});

t('a transaction takes waiting batches while their weight stays within the limit; a heavier one goes alone', async () => {
  const { runs, submit } = start(1, 10);
  void submit([1]);
  for (const batch of [[4, 5], [2], [20], [1]]) void submit(batch);
  await settle();
  for (let i = 0; i < 4; i++) {
    runs[i]!.finish();
    await settle();
  }
  assert.equal(runs.map((r) => r.inputs), [[1], [4, 5], [2], [20], [1]]);
});

t('never more transactions at once than lanes', async () => {
  const { runs, submit } = start(2, 100);
  for (let i = 1; i <= 5; i++) void submit([i]);
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [2]]);
  runs[0]!.finish();
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [2], [3, 4, 5]]);
});

t('a batch of the solo weight or more runs at once, alone and outside the lanes', async () => {
  const { runs, submit, answers } = start(1, 100, 50);
  void submit([1]);
  void submit([2]);
  const heavy = answers(submit([30, 30]));
  void submit([3]);
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [30, 30]]);
  runs[1]!.finish();
  assert.equal(await heavy, [300, 300]);
  await settle();
  // The lane was not released by the solo transaction: the others still wait for the first.
  assert.equal(runs.length, 2);
  runs[0]!.finish();
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [30, 30], [2, 3]]);
});

t("one input's failure is its own reply; a transaction that throws fails each of its inputs, and the next one runs", async () => {
  const { runs, submit, answers } = start(1, 100);
  const first = answers(submit([1]));
  const a = answers(submit([2, -3]));
  const b = answers(submit([4]));
  await settle();
  runs[0]!.finish('throw');
  assert.equal(await first, ['connection lost']);
  await settle();
  runs[1]!.finish();
  assert.equal(await a, [20, 'negative -3']);
  assert.equal(await b, [40]);
});

/** Whether the promise has settled once pending callbacks ran. */
async function done(p: Promise<unknown>): Promise<boolean> {
  let over = false;
  void p.then(() => (over = true));
  await settle();
  return over;
}

t("a transaction follows the batch before its own in another transaction, and settles its batches' turns when it is over", async () => {
  const { runs, submit } = start(2, 100);
  const first = new Turn(null);
  const second = new Turn(first);
  void submit([1], first);
  void submit([2], second);
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[1], [2]], 'the next batch runs at once in the other lane');
  const commit = runs[1]!.order.wait('commit');
  assert.is(await done(commit), false, 'its commit waits for the batch before');
  assert.is(await done(runs[0]!.order.wait('commit')), true, 'the first follows nothing');
  runs[0]!.finish('throw'); // over, though it never passed a stage itself
  assert.is(await done(commit), true);
  assert.is(await done(first.passed('messages')), true);
  runs[1]!.finish();
  await settle();
  assert.is(await done(second.passed('commit')), true);
});

t('batches of one owner stored in one transaction do not wait for each other', async () => {
  const { runs, submit } = start(1, 100);
  void submit([9]);
  const first = new Turn(null);
  void submit([1], first);
  void submit([2], new Turn(first));
  await settle();
  runs[0]!.finish();
  await settle();
  assert.equal(runs.map((r) => r.inputs), [[9], [1, 2]]);
  assert.is(await done(runs[1]!.order.wait('messages')), true);
  runs[1]!.finish();
});

t.run();
