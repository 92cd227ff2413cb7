// Smoke runs of the capacity and restart benchmark scenarios.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkComparisons, runSmoke } from './smoke.js';

const t = suite('bench smoke: capacity and restart');

t('capacity holds every parked poll and reports memory per poll', async () => {
  const cs = await runSmoke('capacity');
  checkComparisons(cs, 'capacity', 1, { memoryRatio: true });
  assert.is(cs[0]!.parley.extra.held, '20 of 20');
  assert.match(cs[0]!.parley.extra['memory per queue + parked poll'] ?? '', /KiB$/);
  assert.match(cs[0]!.parley.extra['right after parking'] ?? '', /KiB$/);
  assert.match(cs[0]!.reference.extra['right after parking'] ?? '', /KiB$/);
  assert.match(cs[0]!.notes[0] ?? '', /^memory per parked request read after a full collection; right after parking, Parley ÷ R2 was /);
});

t('restart brings back every queue with its unacknowledged events', async () => {
  const cs = await runSmoke('restart');
  checkComparisons(cs, 'restart', 1);
  assert.is(cs[0]!.parley.extra['queues wrong or lost'], '0');
});

t.run();
