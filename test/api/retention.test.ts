// Message retention: the organization's sweep deletes what is older than its retention period,
// a channel's own or (null) the organization's, which direct messages keep too; -1 keeps forever.
// Deleted as by hand: whoever had the messages hears of it, and a channel's first message moves on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { FIRST_SWEEP_DELAY_MS } from '../../src/actors/conversations/retention.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { castOf, createChannel, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;
const clock = new ManualClock(Date.now());
let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const t = suite('message retention');
t.before(async () => {
  server = await startTestServer({ clock });
  realm = await server.createRealm();
  cast = await castOf(realm);
});
t.after(() => server.close());

const TYPES = ['message', 'delete_message', 'update_message_flags', 'stream', 'subscription'];
const OBSERVED = { types: TYPES, registerParams: { client_capabilities: { bulk_message_deletion: true } } };
const exists = async (id: number) => (await cast.owner.get(`/api/v1/messages/${id}`)).status === 200;

t('the sweep is armed when the organization loads', async () => {
  assert.is(realm.handle.retention.nextSweep, clock.now() + FIRST_SWEEP_DELAY_MS);
});

t("a channel's period, then the organization's for channels that inherit it and for direct messages", async () => {
  const { owner, member, admin } = cast;
  const short = await createChannel(owner, 'ret-short', { others: [member], message_retention_days: 2 });
  const inherits = await createChannel(owner, 'ret-inherits', { others: [member] });
  const forever = await createChannel(owner, 'ret-forever', { others: [member], message_retention_days: 'unlimited' });
  assertError(await admin.patch(`/api/v1/streams/${short}`, { message_retention_days: 1 }), 'Must be an organization owner');
  const old = {
    short: await sendToChannel(member, short, 'old', 'three days old by the sweep'),
    inherits: await sendToChannel(member, inherits, 'old', 'three days old, inheriting'),
    forever: await sendToChannel(member, forever, 'old', 'kept forever'),
    direct: await sendDirect(member, [owner], 'an old direct message'),
  };
  clock.advance(DAY);
  const recent = await sendToChannel(owner, short, 'new', 'two days old by the sweep');
  clock.advance(2 * DAY);

  let listed = 0;
  const events = await expectConsistent(member, async () => (listed = await realm.handle.retention.sweep()), OBSERVED);
  assert.is(listed, 1);
  assert.equal(events.filter((e) => e.type === 'delete_message').map((e) => [e.message_ids, e.stream_id, e.topic]), [[[old.short], short, 'old']]);
  assert.equal(events.filter((e) => e.type === 'stream').map((e) => [e.property, e.value]), [['first_message_id', recent]], 'the channel starts at its next message');
  assert.equal([await exists(old.short), await exists(recent), await exists(old.inherits), await exists(old.forever), await exists(old.direct)], [false, true, true, true, true]);

  await realm.updateSettings({ message_retention_days: 2 });
  try {
    const more = await expectConsistent(member, async () => (listed = await realm.handle.retention.sweep()), OBSERVED);
    assert.is(listed, 2);
    assert.equal(more.filter((e) => e.type === 'delete_message').map((e) => e.message_ids), [[old.inherits], [old.direct]]);
    assert.equal([await exists(old.inherits), await exists(old.direct), await exists(old.forever), await exists(recent)], [false, false, true, true]);
    assert.is(await realm.handle.retention.sweep(), 0, 'nothing left to delete');
  } finally {
    await realm.updateSettings({ message_retention_days: -1 });
    assertSuccess(await owner.patch(`/api/v1/streams/${short}`, { message_retention_days: 'unlimited' }));
  }
});

t('messages beyond one listing are listed again until none is left', async () => {
  const { owner } = cast;
  const id = await createChannel(owner, 'ret-many', { message_retention_days: 1 });
  const sent: number[] = [];
  for (let i = 0; i < 30; i++) sent.push(await sendToChannel(owner, id, `t${i % 3}`, `message ${i}`));
  clock.advance(2 * DAY);
  assert.is(await realm.handle.retention.sweep(7), 30);
  const left = assertSuccess(await owner.get('/api/v1/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: id }] }));
  assert.equal(left.messages, []);
});

t.run();
