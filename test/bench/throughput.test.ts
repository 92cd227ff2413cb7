// Smoke runs of the closed-loop benchmark scenarios (presence, typing, send) and of hostile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkComparisons, runSmoke } from './smoke.js';

const t = suite('bench smoke: closed loops');

t('presence polls a seeded organization and is compared with R1', async () => {
  const cs = await runSmoke('presence');
  checkComparisons(cs, 'presence', 1);
  assert.is(cs[0]!.reference.rateUnit, 'req/s');
});

t('typing reaches the parked queues of the topic and the direct conversation', async () => {
  const cs = await runSmoke('typing');
  checkComparisons(cs, 'typing', 1);
  const m = /^([\d,]+) of ([\d,]+)$/.exec(cs[0]!.parley.extra['typing events delivered'] ?? '');
  assert.ok(m, 'typing deliveries are reported');
  assert.ok(Number(m[1]!.replace(/,/g, '')) > 0, 'some typing events arrived');
  assert.ok(Number(m[2]!.replace(/,/g, '')) > 0, 'typing requests were counted');
  // Counted over both turns: what the requests of each turn should have reached, each event once.
  assert.is(m[1], m[2], 'every typing event of every turn arrived');
  // The parked clients' answers, read from Parley's metrics, and the events each carried.
  const a = /^([\d,]+) \(([\d,]+) events each\)$/.exec(cs[0]!.parley.extra['long-poll answers'] ?? '');
  assert.ok(a, `long-poll answers are reported: ${cs[0]!.parley.extra['long-poll answers']}`);
  const answers = Number(a[1]!.replace(/,/g, ''));
  assert.ok(answers > 0, 'some long-polls were answered');
  assert.is(Number(a[2]!.replace(/,/g, '')), Math.round(Number(m[1]!.replace(/,/g, '')) / answers));
});

t('send measures direct and channel sends against R3', async () => {
  const cs = await runSmoke('send');
  checkComparisons(cs, 'send', 2);
  assert.equal(
    cs.map((c) => c.reference.who),
    ['R3 pg send SQL', 'R3 pg send SQL'],
  );
});

t('hostile compares every hostile Markdown input with ordinary text of its size', async () => {
  const cs = await runSmoke('hostile');
  checkComparisons(cs, 'hostile', 1);
  assert.match(cs[0]!.notes[0] ?? '', /^slowest: /);
  assert.ok(cs[0]!.parley.extra['worst input'], 'the worst input is named');
});

t.run();
