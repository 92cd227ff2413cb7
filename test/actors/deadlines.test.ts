// Deadlines: the queues' ticks on one timer. Items come due in deadline order, each once; an
// earlier deadline wins over a later one; a deleted item never comes due; the timer fires for
// the moment it was armed for, whatever a test's clock says.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Deadlines, type Scheduled } from '../../src/actors/queues/deadlines.js';

interface Item extends Scheduled {
  readonly name: string;
}
const item = (name: string): Item => ({ name, heapIndex: -1 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait (up to 5 s on a busy machine) until `done`. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 10) await sleep(10);
}

/** Deadlines on a clock that starts at 1,000,000 and moves with real time; `at` has each item's deadline as it came due. */
function make(): { d: Deadlines<Item>; fired: string[]; at: Map<string, number> } {
  const origin = Date.now();
  const fired: string[] = [];
  const at = new Map<string, number>();
  const d = new Deadlines<Item>(
    () => 1_000_000 + (Date.now() - origin),
    (i, when) => {
      fired.push(i.name);
      at.set(i.name, when);
    },
  );
  return { d, fired, at };
}

const t = suite('deadlines');

t('items come due in deadline order, each once, and leave the heap', async () => {
  const { d, fired, at: when } = make();
  const items = ['c', 'a', 'd', 'b'].map(item);
  const at = { a: 10, b: 20, c: 30, d: 40 } as Record<string, number>;
  for (const i of items) d.setEarliest(i, 1_000_000 + at[i.name]!);
  assert.is(d.size, 4);
  assert.is(d.deadlineOf(items[0]!), 1_000_000 + 30);
  await until(() => fired.length === 4);
  assert.equal(fired, ['a', 'b', 'c', 'd']);
  assert.equal([...when.values()], [10, 20, 30, 40].map((ms) => 1_000_000 + ms), 'each with its deadline');
  assert.is(d.deadlineOf(items[0]!), undefined);
  assert.is(d.size, 0);
  assert.ok(items.every((i) => i.heapIndex === -1));
});

t('a later deadline does not move an earlier one; an earlier one does', async () => {
  const { d, fired } = make();
  const x = item('x');
  const y = item('y');
  d.setEarliest(x, 1_000_000 + 30);
  d.setEarliest(y, 1_000_000 + 40);
  d.setEarliest(x, 1_000_000 + 10_000); // later: kept at +30
  d.setEarliest(y, 1_000_000 + 5); // earlier: moved before x
  assert.is(d.deadlineOf(x), 1_000_000 + 30);
  await until(() => fired.length === 2);
  assert.equal(fired, ['y', 'x']);
});

t('a deleted item never comes due, wherever it was in the heap', async () => {
  const { d, fired, at } = make();
  const items = Array.from({ length: 40 }, (_, n) => item(`i${n}`));
  items.forEach((i, n) => d.setEarliest(i, 1_000_000 + 5 + ((n * 7) % 40)));
  const gone = new Set(['i0', 'i13', 'i39', 'i20']);
  for (const i of items) if (gone.has(i.name)) d.delete(i);
  d.delete(items[0]!); // twice: nothing happens
  assert.is(d.size, 36);
  await until(() => fired.length >= 36);
  await sleep(20);
  assert.is(fired.length, 36);
  assert.ok(fired.every((n) => !gone.has(n)));
  const order = fired.map((n) => at.get(n)!);
  assert.equal(order, [...order].sort((a, b) => a - b));
});

t('many random deadlines, moved and deleted, come due in order', async () => {
  const { d, fired, at } = make();
  const items = Array.from({ length: 500 }, (_, n) => item(String(n)));
  const set = new Map<string, number>();
  const earliest = (i: Item, when: number) => {
    d.setEarliest(i, when);
    set.set(i.name, Math.min(when, set.get(i.name) ?? Infinity));
  };
  for (const i of items) earliest(i, 1_000_000 + 20 + Math.random() * 60);
  for (const i of items.slice(0, 100)) earliest(i, 1_000_000 + 10 + Math.random() * 10);
  for (const i of items.slice(200, 300)) earliest(i, 1_000_000 + 90 + Math.random() * 10); // later: kept
  for (const i of items.slice(400)) d.delete(i);
  assert.ok(items.slice(0, 400).every((i) => d.deadlineOf(i) === set.get(i.name)));
  await until(() => fired.length >= 400);
  await sleep(20);
  assert.is(fired.length, 400);
  const order = fired.map((n) => at.get(n)!);
  assert.equal(order, [...order].sort((a, b) => a - b));
  assert.ok(fired.every((n) => at.get(n) === set.get(n)), 'each at the earliest deadline it was given');
  assert.ok(items.slice(400).every((i) => !at.has(i.name)));
});

t('the timer fires for the moment it was armed for, even if the clock stood still', async () => {
  const fired: string[] = [];
  const d = new Deadlines<Item>(() => 5_000, (i) => fired.push(i.name));
  d.setEarliest(item('soon'), 5_020);
  d.setEarliest(item('later'), 60_000);
  await until(() => fired.length > 0);
  await sleep(50);
  assert.equal(fired, ['soon'], 'due at the armed moment; the next is re-armed, not fired early');
});

t('an item set again from its own callback comes due again', async () => {
  let n = 0;
  const origin = Date.now();
  const now = () => Date.now() - origin;
  const d: Deadlines<Item> = new Deadlines<Item>(now, (i) => {
    if (++n < 3) d.setEarliest(i, now() + 10);
  });
  d.setEarliest(item('again'), 10);
  await until(() => n >= 3);
  await sleep(30);
  assert.is(n, 3);
  assert.is(d.size, 0);
});

t.run();
