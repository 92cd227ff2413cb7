// Hangup: the flag and single listener a parked long-poll waits on for its client to go away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Hangup, HANGUP_FREE_BIT } from '../../src/hangup.js';

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

t("a subclass's flags share the field and leave the hang-up alone", () => {
  const MINE = HANGUP_FREE_BIT;
  class Flagged extends Hangup {
    get mine(): boolean {
      return (this.bits & MINE) !== 0;
    }
    mark(): void {
      this.bits |= MINE;
    }
  }
  const h = new Flagged();
  let calls = 0;
  h.listen({ hungUp: () => calls++ });
  h.mark();
  assert.is(h.gone, false);
  assert.is(h.mine, true);
  h.fire();
  assert.is(h.gone, true);
  assert.is(calls, 1);
  assert.is(h.mine, true);
  const fresh = new Flagged();
  fresh.fire();
  assert.is(fresh.mine, false);
});

t.run();
