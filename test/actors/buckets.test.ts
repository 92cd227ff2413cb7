// bucketOf spreads keys over the hashed parents (direct-message buckets, channel buckets, queue
// buckets): similar keys must not crowd into a few of them.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketOf } from '../../src/actors/runtime.js';

const t = suite('bucketOf');

/** The largest bucket's share of keys, against an even share. */
function worstLoad(keys: ReadonlyArray<string | number>, buckets: number): number {
  const counts = new Array<number>(buckets).fill(0);
  for (const k of keys) counts[bucketOf(k, buckets)]!++;
  return Math.max(...counts) / (keys.length / buckets);
}

t('is deterministic and in range', () => {
  for (const k of ['1,2', 42, randomUUID()]) {
    const b = bucketOf(k, 16);
    assert.ok(b >= 0 && b < 16);
    assert.is(bucketOf(k, 16), b);
  }
});

t('direct-message keys use every bucket, odd ones too', () => {
  const keys = Array.from({ length: 4000 }, (_, i) => `${i + 1},${i + 11}`);
  for (const buckets of [16, 64]) {
    const used = new Set(keys.map((k) => bucketOf(k, buckets)));
    assert.is(used.size, buckets, `${buckets} buckets`);
    assert.ok(worstLoad(keys, buckets) < 1.5, `worst bucket ${worstLoad(keys, buckets).toFixed(2)} x an even share`);
  }
});

t('channel ids, user ids and queue ids spread evenly', () => {
  const ids = Array.from({ length: 6400 }, (_, i) => i + 1);
  const even = Array.from({ length: 6400 }, (_, i) => 2 * (i + 1));
  const uuids = Array.from({ length: 6400 }, () => randomUUID());
  for (const keys of [ids, even, uuids]) {
    for (const buckets of [16, 64]) assert.ok(worstLoad(keys, buckets) < 1.5, `worst bucket ${worstLoad(keys, buckets).toFixed(2)} x an even share`);
  }
});

t.run();
