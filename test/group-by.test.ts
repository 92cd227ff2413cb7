// groupBy (group-by.ts), Map.groupBy for Node 20.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { groupBy } from '../src/group-by.js';

const t = suite('groupBy');

t('groups keep their items in order, and come in the order of their first item', () => {
  const groups = groupBy([3, 10, 4, 21, 13, 7], (n) => n % 3);
  assert.equal([...groups], [
    [0, [3, 21]],
    [1, [10, 4, 13, 7]],
  ]);
});

t('keys compare as a Map compares them; nothing gives no groups', () => {
  assert.equal([...groupBy(['a', 'A', 'a'], (s) => s)], [['a', ['a', 'a']], ['A', ['A']]]);
  assert.is(groupBy([], () => 1).size, 0);
});

t.run();
