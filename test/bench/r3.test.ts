// R3's process (bench/refs/r3-send.ts): Parley's send SQL run on command, its connections kept
// between runs, its rows removed by itself, and a failure reported with what the process said.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'slonik';
import { R3_CLIENT, R3_EVENT_ID_BASE } from '../../bench/refs/r3-send.js';
import { R3Process, r3JobOn, withR3On } from '../../bench/scenarios/common.js';
import { Workspace } from '../../bench/setup.js';
import { serverUrl } from '../helpers/database.js';

const t = suite('bench: R3 in a process of its own');

const countRows = (ws: Workspace) =>
  ws.withApp(async (app) => ({
    messages: Number(await app.db.oneFirst(sql.unsafe`SELECT count(*) FROM messages WHERE client = ${R3_CLIENT}`)),
    recipients: Number(await app.db.oneFirst(sql.unsafe`SELECT count(*) FROM user_messages WHERE message_id IN (SELECT id FROM messages WHERE client = ${R3_CLIENT})`)),
    events: Number(await app.db.oneFirst(sql.unsafe`SELECT count(*) FROM events WHERE id >= ${R3_EVENT_ID_BASE}`)),
  }));

t('runs on command with its connections kept, and removes its rows when asked', async () => {
  const ws = await Workspace.create(serverUrl());
  try {
    const seeded = await ws.seed({ users: 4, channels: [{ name: 'r3', subscribers: 3 }] });
    const realmId = await ws.withApp(async (app) => (await app.realms.only()!).id);
    const job = { pool: 1, concurrency: 1, realmId, kind: 'channel' as const, channelId: seeded.channels.r3!, senders: [seeded.users[0]!.id], partners: [] };
    const r3 = await R3Process.start(r3JobOn(ws, job));
    let sent = 0;
    try {
      const first = await r3.run({ durationMs: 60_000, maxCount: 3 });
      assert.is(first.result.count, 3);
      assert.is(first.result.latencies.length, 3);
      const second = await r3.run({ durationMs: 60_000, maxCount: 2 });
      assert.is(second.result.count, 2);
      assert.ok(r3.peakRssBytes() > 10 * 2 ** 20, 'its memory is read while it runs');
      sent = first.result.count + second.result.count;
    } finally {
      await r3.close();
    }
    // The embedded database is one session: the rows are read once R3 has let it go.
    assert.equal(await countRows(ws), { messages: sent, recipients: sent * 3, events: sent });
    // R3 removes every row an R3 wrote when told (it numbers its events from the same base).
    const cleaner = await R3Process.start(r3JobOn(ws, job));
    await cleaner.removeRows();
    await cleaner.close();
    assert.equal(await countRows(ws), { messages: 0, recipients: 0, events: 0 });
    // withR3On has it do so after its function.
    const again = await withR3On(ws, job, (r) => r.run({ durationMs: 60_000, maxCount: 2 }));
    assert.is(again.result.count, 2);
    assert.equal(await countRows(ws), { messages: 0, recipients: 0, events: 0 });
  } finally {
    await ws.dispose();
  }
});

t('a run that fails rejects with what the process printed, and later commands are refused', async () => {
  const ws = await Workspace.create(serverUrl());
  try {
    const seeded = await ws.seed({ users: 2, channels: [] });
    // No organization has this id: the message row's foreign key refuses the first send.
    const r3 = await R3Process.start(r3JobOn(ws, { pool: 1, concurrency: 1, realmId: 987_654, kind: 'dm', channelId: null, senders: [seeded.users[0]!.id], partners: [seeded.users[1]!.id] }));
    try {
      await r3.run({ durationMs: 60_000, maxCount: 1 });
      assert.unreachable('a send into a missing organization succeeded');
    } catch (e) {
      assert.match((e as Error).message, /R3 exited \(1\): R3 failed: .*(foreign key|violates)/s);
    }
    try {
      await r3.run({ durationMs: 1000, maxCount: 1 });
      assert.unreachable('an exited R3 took a command');
    } catch (e) {
      assert.match((e as Error).message, /R3 exited/, (e as Error).message);
    }
  } finally {
    await ws.dispose();
  }
});

t.run();
