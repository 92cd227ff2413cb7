// Reactions (endpoint 15 and adding), personal flags (endpoint 17, over a narrow, mark as read)
// and typing notifications (composing, and editing: endpoint 18), with access rules and events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { PNG, uploadFile } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const FLAG_TYPES = ['message', 'update_message_flags', 'starred_messages', 'subscription', 'realm_user'];
const THUMBS_UP = '1f44d';

const message = async (u: TestUser, id: number) => assertSuccess(await u.get(`/api/v1/messages/${id}`)).message;

const reactions = suite('reactions');
reactions.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  await createChannel(cast.owner, 'react', { others: [cast.member, cast.guest, cast.bot] });
});

reactions('add and remove, by name, by code, custom and extra emoji', async () => {
  const { owner, member } = cast;
  const id = await sendToChannel(owner, 'react', 't', 'react to me');
  const events = await expectConsistent(owner, () => member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'thumbs_up' }), {
    types: ['reaction', 'message'],
  });
  assert.equal(events.map((e) => [e.type, e.op, e.message_id, e.user_id, e.emoji_name, e.emoji_code, e.reaction_type]), [
    ['reaction', 'add', id, member.id, 'thumbs_up', THUMBS_UP, 'unicode_emoji'],
  ]);
  assert.equal((await message(owner, id)).reactions, [{ emoji_name: 'thumbs_up', emoji_code: THUMBS_UP, reaction_type: 'unicode_emoji', user_id: member.id }]);
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'thumbs_up' }), 'Reaction already exists.', 400, 'REACTION_ALREADY_EXISTS');
  assertSuccess(await owner.post(`/api/v1/messages/${id}/reactions`, { emoji_name: '+1', emoji_code: THUMBS_UP, reaction_type: 'unicode_emoji' }));
  assertSuccess(await uploadFile(owner, '/api/v1/realm/emoji/party_parrot', PNG));
  assertSuccess(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'party_parrot' }));
  assertSuccess(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'parley', emoji_code: 'parley', reaction_type: 'service_extra_emoji' }));
  const shown = (await message(owner, id)).reactions.map((r: { reaction_type: string }) => r.reaction_type);
  assert.equal(shown, ['unicode_emoji', 'unicode_emoji', 'realm_emoji', 'service_extra_emoji']);
  await expectConsistent(owner, () => member.delete(`/api/v1/messages/${id}/reactions`, { emoji_name: 'thumbs_up' }), { types: ['reaction'] });
  assertSuccess(await owner.delete(`/api/v1/messages/${id}/reactions`, { emoji_code: THUMBS_UP, reaction_type: 'unicode_emoji' }));
  assertError(await owner.delete(`/api/v1/messages/${id}/reactions`, { emoji_name: 'thumbs_up' }), "Reaction doesn't exist.", 400, 'REACTION_DOES_NOT_EXIST');
  assertError(await owner.delete(`/api/v1/messages/${id}/reactions`, { emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }), 'Invalid emoji code.');
  assertError(await owner.delete(`/api/v1/messages/${id}/reactions`, {}), 'At least one of the following arguments must be present: emoji_name, emoji_code');
});

reactions('emoji must exist and match their names', async () => {
  const { member } = cast;
  const id = await sendToChannel(member, 'react', 't', 'x');
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'no_such_emoji' }), "Emoji 'no_such_emoji' does not exist");
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }), 'Invalid emoji code.');
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: THUMBS_UP, reaction_type: 'unicode_emoji' }), 'Invalid emoji name.');
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'x', emoji_code: '999999', reaction_type: 'realm_emoji' }), 'Invalid custom emoji.');
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_code: THUMBS_UP }), "Missing 'emoji_name' argument");
  assertError(await member.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'smile', reaction_type: 'sticker' }), 'Invalid reaction_type');
});

reactions('who may react: readers of the message, and the event reaches readers only', async () => {
  const { owner, member, guest, admin, moderator } = cast;
  await createChannel(owner, 'react-private', { invite_only: true, others: [member] });
  const priv = await sendToChannel(owner, 'react-private', 't', 'private');
  await createChannel(owner, 'react-public');
  const pub = await sendToChannel(owner, 'react-public', 't', 'public');
  const dm = await sendDirect(owner, [member], 'dm');
  for (const [u, id, ok] of [
    [member, priv, true],
    [admin, priv, false],
    [guest, priv, false],
    [moderator, pub, true],
    [guest, pub, false],
    [member, dm, true],
    [admin, dm, false],
  ] as Array<[TestUser, number, boolean]>) {
    const r = await u.post(`/api/v1/messages/${id}/reactions`, { emoji_name: 'heart' });
    if (ok) assertSuccess(r);
    else assertError(r, 'Invalid message(s)');
  }
  // Reacting to shared history puts the message in the reactor's history.
  assert.equal((await message(moderator, pub)).flags, ['read', 'historical']);
  const { queue_id } = await registerState(admin, { types: ['reaction'] });
  assertSuccess(await member.post(`/api/v1/messages/${priv}/reactions`, { emoji_name: 'tada' }));
  assert.equal(await drainEvents(admin, queue_id), []);
  const found = assertSuccess(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['has', 'reaction']] }));
  assert.ok(found.messages.some((m: { id: number }) => m.id === priv));
});

const flags = suite('message flags');

flags('starring and unstarring', async () => {
  const { owner, member } = cast;
  const id = await sendToChannel(owner, 'react', 'stars', 'star me');
  let r: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    r = assertSuccess(await member.post('/api/v1/messages/flags', { messages: [id], op: 'add', flag: 'starred' }));
  }, { types: FLAG_TYPES });
  assert.equal(r, { result: 'success', msg: '', messages: [id] });
  assert.ok((await message(member, id)).flags.includes('starred'));
  const again = assertSuccess(await member.post('/api/v1/messages/flags', { messages: [id], op: 'add', flag: 'starred' }));
  assert.equal(again.messages, []);
  await expectConsistent(member, () => member.post('/api/v1/messages/flags', { messages: [id], op: 'remove', flag: 'starred' }), { types: FLAG_TYPES });
});

flags('read and unread, and channels one is not subscribed to', async () => {
  const { owner, member } = cast;
  const a = await sendToChannel(owner, 'react', 'reading', 'one @**Mel Member**');
  const b = await sendToChannel(owner, 'react', 'reading', 'two');
  const dm = await sendDirect(owner, [member], 'dm');
  const events = await expectConsistent(member, () => member.post('/api/v1/messages/flags', { messages: [a, b, dm], op: 'add', flag: 'read' }), { types: FLAG_TYPES });
  assert.equal(events.map((e) => [e.type, e.op, e.operation, e.flag, e.messages, e.all]), [['update_message_flags', 'add', 'add', 'read', [a, b, dm], false]]);
  const unread = await expectConsistent(member, () => member.post('/api/v1/messages/flags', { messages: [a, dm], op: 'remove', flag: 'read' }), { types: FLAG_TYPES });
  const details = unread[0]!.message_details;
  assert.equal(details[String(a)], { type: 'stream', stream_id: realm.handle.state.channels.byName('react')!.id, topic: 'reading', mentioned: true });
  assert.equal(details[String(dm)], { type: 'private', user_ids: [owner.id] });
  // Marking unread in a channel one left is skipped and reported.
  const left = await createChannel(owner, 'left-behind', { others: [member] });
  const c = await sendToChannel(owner, 'left-behind', 't', 'x');
  assertSuccess(await member.post('/api/v1/messages/flags', { messages: [c], op: 'add', flag: 'read' }));
  assertSuccess(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['left-behind'] }));
  const skipped = assertSuccess(await member.post('/api/v1/messages/flags', { messages: [c, b], op: 'remove', flag: 'read' }));
  assert.equal(skipped.messages, [b]);
  assert.equal(skipped.ignored_because_not_subscribed_channels, [left]);
});

flags('refusals', async () => {
  const { owner, member, admin } = cast;
  const id = await sendToChannel(owner, 'react', 't', 'x');
  const post = (params: Record<string, unknown>, u = member) => u.post('/api/v1/messages/flags', params as never);
  assertError(await post({ messages: [id], op: 'add', flag: 'shiny' }), "Invalid flag: 'shiny'");
  assertError(await post({ messages: [id], op: 'add', flag: 'mentioned' }), "Flag not editable: 'mentioned'");
  assertError(await post({ messages: [id], op: 'toggle', flag: 'read' }), "Invalid message flag operation: 'toggle'");
  assertError(await post({ messages: [999999], op: 'add', flag: 'read' }), 'Invalid message(s)');
  assertError(await post({ messages: 'all', op: 'add', flag: 'read' }), 'Argument "messages" is not valid JSON.');
  await createChannel(owner, 'flag-private', { invite_only: true });
  const secret = await sendToChannel(owner, 'flag-private', 't', 'x');
  assertError(await post({ messages: [secret], op: 'add', flag: 'starred' }, admin), 'Invalid message(s)');
  // Shared history: starring creates the row.
  await createChannel(owner, 'flag-public');
  const pub = await sendToChannel(owner, 'flag-public', 't', 'x');
  assert.equal(assertSuccess(await post({ messages: [pub], op: 'add', flag: 'starred' })).messages, [pub]);
  assert.equal((await message(member, pub)).flags, ['read', 'starred', 'historical']);
});

flags('over a narrow', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'narrowed', { others: [member] });
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) ids.push(await sendToChannel(owner, 'narrowed', i < 3 ? 'bulk' : 'other', `m${i}`));
  let r: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    r = assertSuccess(await member.post('/api/v1/messages/flags/narrow', {
      anchor: 'oldest', num_before: 0, num_after: 100, narrow: [['channel', 'narrowed'], ['topic', 'bulk']], op: 'add', flag: 'read',
    }));
  }, { types: FLAG_TYPES });
  assert.equal(r, {
    result: 'success', msg: '', processed_count: 3, updated_count: 3, first_processed_id: ids[0], last_processed_id: ids[2], found_oldest: true, found_newest: true,
  });
  const partial = assertSuccess(await member.post('/api/v1/messages/flags/narrow', {
    anchor: String(ids[1]), include_anchor: false, num_before: 0, num_after: 1, narrow: [['channel', 'narrowed']], op: 'remove', flag: 'read',
  }));
  assert.equal([partial.processed_count, partial.updated_count, partial.first_processed_id, partial.found_newest], [1, 1, ids[2], false]);
  assert.equal(partial.ignored_because_not_subscribed_channels, []);
  assertError(
    await member.post('/api/v1/messages/flags/narrow', { anchor: 'newest', num_before: 4000, num_after: 1001, narrow: [], op: 'add', flag: 'read' }),
    'Too many messages requested (maximum 5000).',
  );
});

flags('mark all, a channel, a topic as read', async () => {
  const { owner, member } = cast;
  const channel = await createChannel(owner, 'marking', { others: [member] });
  await sendToChannel(owner, 'marking', 'a', 'x');
  await sendToChannel(owner, 'marking', 'b', 'x');
  await sendDirect(owner, [member], 'x');
  await expectConsistent(member, () => member.post('/api/v1/mark_topic_as_read', { stream_id: channel, topic_name: 'A' }), { types: FLAG_TYPES });
  assertError(await member.post('/api/v1/mark_topic_as_read', { stream_id: channel, topic_name: 'nothing here' }), "No such topic 'nothing here'");
  await expectConsistent(member, () => member.post('/api/v1/mark_stream_as_read', { stream_id: channel }), { types: FLAG_TYPES });
  assertError(await cast.guest.post('/api/v1/mark_stream_as_read', { stream_id: channel }), 'Invalid channel ID');
  let r: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    r = assertSuccess(await member.post('/api/v1/mark_all_as_read'));
  }, { types: FLAG_TYPES });
  assert.is(r.complete, true);
  assert.is((await registerState(member, { types: ['message', 'update_message_flags'] })).unread_msgs.count, 0);
});

flags('read receipts: who read it, as their settings and mutes allow, when the organization has them', async () => {
  const { owner, member, admin, moderator, guest, bot } = cast;
  const id = await sendToChannel(owner, 'react', 'receipts', 'who read this?');
  const receipts = async (u: TestUser) => assertSuccess(await u.get(`/api/v1/messages/${id}/read_receipts`)).user_ids as number[];
  const read = (u: TestUser) => u.post('/api/v1/messages/flags', { messages: [id], op: 'add', flag: 'read' });
  assertError(await member.get(`/api/v1/messages/${id}/read_receipts`), 'Read receipts are disabled in this organization.');
  await realm.updateSettings({ enable_read_receipts: true });
  try {
    assert.equal(await receipts(owner), [], 'nobody yet; never the sender');
    for (const u of [member, guest, bot, owner]) assertSuccess(await read(u));
    assert.equal(await receipts(member), [member.id, guest.id, bot.id].sort((a, b) => a - b));
    // The guest keeps its reading to itself; the member muted the admin, who does not learn it.
    assertSuccess(await guest.patch('/api/v1/settings', { send_read_receipts: false }));
    assertSuccess(await member.post(`/api/v1/users/me/muted_users/${admin.id}`));
    assert.equal(await receipts(owner), [member.id, bot.id].sort((a, b) => a - b));
    assert.equal(await receipts(admin), [bot.id]);
    // Only for a message the caller may read.
    const dm = await sendDirect(owner, [member], 'between us');
    assertError(await moderator.get(`/api/v1/messages/${dm}/read_receipts`), 'Invalid message(s)');
    assert.equal(await receipts(moderator), [member.id, bot.id].sort((a, b) => a - b), 'a public channel: anyone who may read it');
    assertError(await member.get('/api/v1/messages/999999/read_receipts'), 'Invalid message(s)');
    assertSuccess(await member.delete(`/api/v1/users/me/muted_users/${admin.id}`));
    assertSuccess(await guest.patch('/api/v1/settings', { send_read_receipts: true }));
  } finally {
    await realm.updateSettings({ enable_read_receipts: false });
  }
});

const typing = suite('typing');

typing('composing a direct message', async () => {
  const { owner, member, admin } = cast;
  const listeners = await Promise.all([owner, member, admin].map((u) => registerState(u, { types: ['typing'] })));
  assertSuccess(await member.post('/api/v1/typing', { op: 'start', to: [owner.id] }));
  const [ownerEvents, memberEvents, adminEvents] = await Promise.all([owner, member, admin].map((u, i) => drainEvents(u, listeners[i]!.queue_id)));
  assert.equal(ownerEvents.map((e) => [e.type, e.op, e.message_type, e.sender.user_id]), [['typing', 'start', 'direct', member.id]]);
  assert.equal(ownerEvents[0]!.recipients.map((r: { user_id: number }) => r.user_id), [owner.id, member.id].sort((a, b) => a - b));
  assert.is(memberEvents.length, 1);
  assert.equal(adminEvents, []);
  assertError(await member.post('/api/v1/typing', { op: 'start' }), "Missing 'to' argument");
  assertError(await member.post('/api/v1/typing', { op: 'start', to: [] }), "Empty 'to' list");
  assertError(await member.post('/api/v1/typing', { op: 'start', to: [999999] }), 'Invalid user ID: 999999');
  assertError(await member.post('/api/v1/typing', { op: 'typing', to: [owner.id] }), 'Invalid op');
});

typing('a group direct message: each participant once, in id order; a bot is listed but not told', async () => {
  const { owner, member, admin } = cast;
  const bot = await realm.createUser({ bot: true, botOwnerId: owner.id });
  const people = [owner, member, admin, bot];
  const queues = await Promise.all(people.map((u) => registerState(u, { types: ['typing'] })));
  assertSuccess(await member.post('/api/v1/typing', { op: 'start', to: [admin.id, bot.id, owner.id, owner.id, member.id] }));
  const [ownerEvents, memberEvents, adminEvents, botEvents] = await Promise.all(people.map((u, i) => drainEvents(u, queues[i]!.queue_id)));
  const ids = people.map((u) => u.id).sort((a, b) => a - b);
  for (const events of [ownerEvents, memberEvents, adminEvents]) {
    assert.equal(events.map((e) => e.recipients.map((r: { user_id: number }) => r.user_id)), [ids]);
  }
  assert.equal(botEvents, []);
});

typing('composing in a channel topic, for clients that want it', async () => {
  const { owner, member, guest } = cast;
  const channel = realm.handle.state.channels.byName('react')!.id;
  const modern = await registerState(owner, { types: ['typing'], registerParams: { client_capabilities: { stream_typing_notifications: true, empty_topic_name: true } } });
  const legacy = await registerState(owner, { types: ['typing'] });
  assertSuccess(await member.post('/api/v1/typing', { type: 'stream', op: 'stop', stream_id: channel, topic: '' }));
  const got = await drainEvents(owner, modern.queue_id);
  assert.equal(got.map((e) => [e.op, e.message_type, e.stream_id, e.topic]), [['stop', 'stream', channel, '']]);
  assert.equal(await drainEvents(owner, legacy.queue_id), []);
  assertError(await member.post('/api/v1/typing', { type: 'stream', op: 'start', topic: 't' }), "Missing 'stream_id' argument");
  assertError(await member.post('/api/v1/typing', { type: 'stream', op: 'start', stream_id: channel }), 'Missing topic');
  const priv = await createChannel(owner, 'typing-private', { invite_only: true });
  assertError(await guest.post('/api/v1/typing', { type: 'channel', op: 'start', stream_id: priv, topic: 't' }), 'Invalid channel ID');
});

typing('editing a message (endpoint 18)', async () => {
  const { owner, member, admin } = cast;
  const id = await sendToChannel(owner, 'react', 'edit me', 'x');
  const dm = await sendDirect(owner, [member], 'x');
  const q = await registerState(member, { types: ['typing_edit_message'] });
  assertSuccess(await owner.post(`/api/v1/messages/${id}/typing`, { op: 'start' }));
  assertSuccess(await owner.post(`/api/v1/messages/${dm}/typing`, { op: 'stop' }));
  const got = await drainEvents(member, q.queue_id);
  assert.equal(got.map((e) => [e.type, e.op, e.sender_id, e.message_id, e.recipient]), [
    ['typing_edit_message', 'start', owner.id, id, { type: 'channel', channel_id: realm.handle.state.channels.byName('react')!.id, topic: 'edit me' }],
    ['typing_edit_message', 'stop', owner.id, dm, { type: 'direct', user_ids: [owner.id, member.id].sort((a, b) => a - b) }],
  ]);
  assertError(await admin.post(`/api/v1/messages/${dm}/typing`, { op: 'start' }), 'Invalid message(s)');
  assertError(await owner.post(`/api/v1/messages/${id}/typing`, {}), "Missing 'op' argument");
});

typing('editing an old message of a channel with protected history: not to later subscribers', async () => {
  const { owner, member, moderator } = cast;
  await createChannel(owner, 'typing-protected', { invite_only: true, history_public_to_subscribers: false, others: [moderator] });
  const old = await sendToChannel(owner, 'typing-protected', 'before you came', 'x');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'typing-protected' }], principals: [member.id] }));
  const late = await registerState(member, { types: ['typing_edit_message'] });
  const early = await registerState(moderator, { types: ['typing_edit_message'] });
  assertSuccess(await owner.post(`/api/v1/messages/${old}/typing`, { op: 'start' }));
  assert.equal(await drainEvents(member, late.queue_id), [], 'the message and its topic are none of its business');
  assert.equal((await drainEvents(moderator, early.queue_id)).map((e) => e.message_id), [old]);
  const fresh = await sendToChannel(owner, 'typing-protected', 'after', 'y');
  assertSuccess(await owner.post(`/api/v1/messages/${fresh}/typing`, { op: 'start' }));
  assert.equal((await drainEvents(member, late.queue_id)).map((e) => e.message_id), [fresh]);
});

typing.after(async () => {
  await server.close();
});

reactions.run();
flags.run();
typing.run();
