// Moments kept as small integers (small-time.ts): differences across the wrap at 2^30 units.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { smallMoment, smallSince } from '../src/small-time.js';

const t = suite('small moments');

const WRAP = 2 ** 30;

t('a moment is its whole units modulo 2^30, a small integer', () => {
  assert.is(smallMoment(0), 0);
  assert.is(smallMoment(1234.9), 1234);
  assert.is(smallMoment(WRAP + 5.5), 5);
  // performance.now() × 64 of a process up for a year: past 2^32, and still modulo 2^30.
  const year = 365 * 24 * 3600 * 1000 * 64;
  assert.is(smallMoment(year), year % WRAP);
  assert.ok(Number.isSafeInteger(smallMoment(year)) && smallMoment(year) < WRAP);
});

t('the time between two moments is right across the wrap, up to 2^30 units', () => {
  assert.is(smallSince(smallMoment(100), smallMoment(350)), 250);
  const before = smallMoment(WRAP - 10);
  const after = smallMoment(WRAP + 15);
  assert.ok(after < before, 'the later moment wrapped');
  assert.is(smallSince(before, after), 25);
  assert.is(smallSince(smallMoment(3 * WRAP - 1), smallMoment(3 * WRAP + WRAP - 2)), WRAP - 1);
});

t.run();
