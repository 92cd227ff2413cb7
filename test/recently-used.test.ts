// A bounded cache keeping what is in use (verified Authorization headers, Host headers).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentlyUsed } from '../src/recently-used.js';

const t = suite('recently used');

t('holds at most two generations, whatever is added', () => {
  const c = new RecentlyUsed<number, string>(3);
  for (let i = 0; i < 100; i++) c.set(i, `v${i}`);
  assert.ok(c.size <= 6, `size ${c.size}`);
  assert.is(c.get(99), 'v99');
  assert.is(c.get(0), undefined);
});

t('an entry in use stays however many others pass through', () => {
  const c = new RecentlyUsed<string, number>(4);
  c.set('busy', 1);
  for (let i = 0; i < 1000; i++) {
    c.set(`once-${i}`, i);
    // Used at least once per generation: each use in the older map moves it into the newer.
    if (i % 3 === 0) assert.is(c.get('busy'), 1, `lost after ${i}`);
  }
  assert.is(c.get('once-0'), undefined);
});

t('a hit in the older generation moves the entry, not copies it', () => {
  const c = new RecentlyUsed<string, number>(2);
  c.set('a', 1);
  c.set('b', 2);
  c.set('c', 3); // older: a, b; newer: c
  assert.is(c.size, 3);
  assert.is(c.get('a'), 1);
  assert.is(c.size, 3); // older: b; newer: c, a
  c.set('d', 4); // older: c, a; newer: d ('b', unused, is gone)
  assert.is(c.get('b'), undefined);
  assert.is(c.get('a'), 1);
  assert.is(c.size, 3);
});

t('an entry not used for two generations is dropped', () => {
  const c = new RecentlyUsed<string, number>(2);
  c.set('idle', 1);
  c.set('a', 2); // the newer map is full: 'idle' and 'a'
  c.set('b', 3); // they became the older map
  assert.is(c.get('idle'), 1); // a hit there moves it into the newer, with 'b'
  c.set('c', 4); // the newer ('b', 'idle') became the older
  c.set('d', 5);
  c.set('e', 6); // ('c', 'd') older: 'idle' unused since is gone
  assert.is(c.get('idle'), undefined);
  assert.is(c.get('a'), undefined);
  assert.is(c.get('d'), 5);
});

t('clear forgets both generations', () => {
  const c = new RecentlyUsed<string, number>(2);
  c.set('a', 1);
  c.set('b', 2);
  c.set('c', 3); // older: a, b; newer: c
  c.clear();
  assert.is(c.size, 0);
  assert.is(c.get('a'), undefined);
  assert.is(c.get('c'), undefined);
});

t.run();
