// The start's phases (startup.ts): each phase is the time since the previous one ended, counted
// from the process's start; logged and kept in /metrics as parley_startup_seconds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metrics } from '../src/metrics.js';
import { StartupClock } from '../src/startup.js';

const t = suite('start-up phases');

/** A clock that reads the given times, one a call. */
function clockOf(...times: number[]): () => number {
  return () => {
    const next = times.shift();
    if (next === undefined) throw new Error('clock read once too often');
    return next;
  };
}

t('each phase is the time since the previous one ended, the first since the process started', () => {
  const s = new StartupClock(clockOf(240, 300, 610, 880, 890));
  s.end('load');
  s.end('database');
  s.end('organizations');
  s.end('queues');
  s.end('listen');
  assert.equal(s.phases(), [
    ['load', 240],
    ['database', 60],
    ['organizations', 310],
    ['queues', 270],
    ['listen', 10],
  ]);
});

t('phases not ended yet are left out; the log field rounds to whole milliseconds', () => {
  const s = new StartupClock(clockOf(100.4, 160.9), 0.2);
  s.end('load');
  s.end('database');
  assert.equal(s.phases(), [
    ['load', 100.2],
    ['database', 60.5],
  ]);
  assert.is(JSON.stringify({ startupMs: s }), '{"startupMs":{"load":100,"database":61}}');
});

t('phases are listed in their order, whatever order they were told in', () => {
  const s = new StartupClock(clockOf(10, 30));
  s.end('queues');
  s.end('load');
  assert.equal(
    s.phases().map(([p]) => p),
    ['load', 'queues'],
  );
});

t('a clock that steps back counts a phase as 0, not as negative', () => {
  const s = new StartupClock(clockOf(50, 40));
  s.end('load');
  s.end('database');
  assert.equal(s.phases(), [
    ['load', 50],
    ['database', 0],
  ]);
});

t('/metrics holds each phase in seconds', async () => {
  const m = new Metrics(() => ({ queues: 0, parked: 0, sockets: 0 }));
  m.started([
    ['load', 250],
    ['queues', 1500],
  ]);
  const text = await m.registry.metrics();
  assert.match(text, /^parley_startup_seconds\{phase="load"\} 0\.25$/m);
  assert.match(text, /^parley_startup_seconds\{phase="queues"\} 1\.5$/m);
});

t.run();
