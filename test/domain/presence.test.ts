// Presence rules: which reports move which timestamps, when a user counts as coming online, and
// the modern and legacy entry formats.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyPresenceReport,
  legacyPresence,
  modernPresence,
  modernPresenceJson,
  OFFLINE_THRESHOLD_MS,
  PresencesJson,
  PRESENCE_MIN_UPDATE_MS,
  withinHistory,
  type PresenceRecord,
} from '../../src/domain/presence.js';

const T = 1_800_000_000_000;
const rec = (lastActive: number | null, lastConnected: number | null): PresenceRecord => ({ userId: 1, lastActive, lastConnected, lastUpdateId: 5 });

const rules = suite('applyPresenceReport');

rules('the first report creates a record and is announced, active or idle', () => {
  assert.equal(applyPresenceReport(1, undefined, 'active', T), { next: { userId: 1, lastActive: T, lastConnected: T }, announce: true });
  assert.equal(applyPresenceReport(1, undefined, 'idle', T), { next: { userId: 1, lastActive: null, lastConnected: T }, announce: true });
});

rules('reports within the minimum interval change nothing', () => {
  const r = rec(T, T);
  assert.equal(applyPresenceReport(1, r, 'active', T + PRESENCE_MIN_UPDATE_MS - 1), { next: null, announce: false });
  assert.equal(applyPresenceReport(1, r, 'idle', T + 1000), { next: null, announce: false });
});

rules('idle moves only the connection time; active moves both', () => {
  const r = rec(T, T);
  const later = T + PRESENCE_MIN_UPDATE_MS;
  assert.equal(applyPresenceReport(1, r, 'idle', later).next, { userId: 1, lastActive: T, lastConnected: later });
  assert.equal(applyPresenceReport(1, r, 'active', later).next, { userId: 1, lastActive: later, lastConnected: later });
  assert.is(applyPresenceReport(1, r, 'active', later).announce, false);
});

rules('active after the offline threshold is announced; idle is not', () => {
  const r = rec(T, T + 60_000);
  const back = T + OFFLINE_THRESHOLD_MS + 1;
  assert.is(applyPresenceReport(1, r, 'active', back).announce, true);
  assert.is(applyPresenceReport(1, r, 'idle', back).announce, false);
  assert.is(applyPresenceReport(1, r, 'active', T + OFFLINE_THRESHOLD_MS).announce, false);
  // Never active before: the first active report announces.
  assert.is(applyPresenceReport(1, rec(null, T), 'active', T + PRESENCE_MIN_UPDATE_MS).announce, true);
});

const formats = suite('presence formats');

formats('modern: seconds; a missing time reads as the join date', () => {
  assert.equal(modernPresence(rec(T + 999, T + 61_000), 0), { active_timestamp: T / 1000, idle_timestamp: T / 1000 + 61 });
  assert.equal(modernPresence(rec(null, T), T - 5000), { active_timestamp: T / 1000 - 5, idle_timestamp: T / 1000 });
});

formats('legacy: exactly website and aggregated; active within 70 s of the last connection', () => {
  const active = legacyPresence(rec(T, T + 70_000), 0);
  assert.equal(active, {
    website: { client: 'website', status: 'active', timestamp: T / 1000, pushable: false },
    aggregated: { client: 'website', status: 'active', timestamp: T / 1000 },
  });
  const idle = legacyPresence(rec(T, T + 71_000), 0);
  assert.equal(idle.website, { client: 'website', status: 'idle', timestamp: T / 1000 + 71, pushable: false });
  assert.equal(Object.keys(idle).sort(), ['aggregated', 'website']);
});

formats('history limit by the last connection', () => {
  const r = rec(null, T - 3 * 86_400_000);
  assert.is(withinHistory(r, 0, 2, T), false);
  assert.is(withinHistory(r, 0, 3, T), true);
  assert.is(withinHistory(r, 0, null, T), true);
});

const json = suite('presence entries as JSON');

/** The bytes a PresencesJson writes at `at` into a buffer with room on both sides. */
function written(p: PresencesJson, at = 3): string {
  const out = Buffer.alloc(at + p.byteLength + 3, '#');
  p.write(out, at);
  const text = out.toString('latin1');
  assert.is(text.slice(0, at), '#'.repeat(at));
  assert.is(text.slice(at + p.byteLength), '###', 'writes exactly byteLength bytes');
  return text.slice(at, at + p.byteLength);
}

json('an entry is what JSON.stringify makes of the modern one, missing timestamps included', () => {
  const records = [rec(T, T), rec(T + 999, T + 61_000), rec(null, T), rec(null, null), rec(T - 1, T + 1)];
  for (const [i, r] of records.entries()) {
    const id = 7 + i * 1000;
    assert.is(`{${modernPresenceJson(id, r, T - 5000)}}`, JSON.stringify({ [id]: modernPresence(r, T - 5000) }));
  }
});

json('a set of entries is one object of them all, and none is {}', () => {
  assert.is(written(new PresencesJson([])), '{}');
  const entries = new Map([
    [3, modernPresence(rec(T, T + 5000), 0)],
    [12, modernPresence(rec(null, T), T - 60_000)],
    [1, modernPresence(rec(T, T), 0)],
  ]);
  const p = new PresencesJson([...entries].map(([id, e]) => modernPresenceJson(id, rec(e.active_timestamp * 1000, e.idle_timestamp * 1000), 0)));
  assert.equal(JSON.parse(written(p)), Object.fromEntries([...entries].map(([id, e]) => [String(id), e])));
  assert.is(written(new PresencesJson([modernPresenceJson(5, rec(T, T), 0)])), JSON.stringify({ 5: modernPresence(rec(T, T), 0) }));
});

rules.run();
formats.run();
json.run();
