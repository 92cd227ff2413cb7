// Hangup: the flag and single listener a parked long-poll waits on for its client to go away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Hangup } from '../../src/hangup.js';

const t = suite('hangup');

t('the listener runs once, when the client goes away', () => {
  const h = new Hangup();
  let calls = 0;
  h.listen({ hungUp: () => calls++ });
  assert.is(h.gone, false);
  assert.is(calls, 0);
  h.fire();
  h.fire();
  assert.is(h.gone, true);
  assert.is(calls, 1);
});

t('a listener removed with listen(null) is not called', () => {
  const h = new Hangup();
  let calls = 0;
  h.listen({ hungUp: () => calls++ });
  h.listen(null);
  h.fire();
  assert.is(calls, 0);
  assert.is(h.gone, true);
});

t('a listener set after the hang-up is not called: callers check gone first', () => {
  const h = new Hangup();
  h.fire();
  let calls = 0;
  h.listen({ hungUp: () => calls++ });
  h.fire();
  assert.is(calls, 0);
});

t('a later listener replaces the earlier one', () => {
  const h = new Hangup();
  const seen: string[] = [];
  h.listen({ hungUp: () => seen.push('first') });
  h.listen({ hungUp: () => seen.push('second') });
  h.fire();
  assert.equal(seen, ['second']);
});

t('an object listens through its hungUp method, once, with itself as this', () => {
  const h = new Hangup();
  const parked = {
    calls: 0,
    hungUp(this: { calls: number }) {
      this.calls++;
    },
  };
  h.listen(parked);
  h.fire();
  h.fire();
  assert.is(parked.calls, 1);
});

t.run();
