// Every client capability of POST /register changes what a queue receives, and narrow /
// all_public_streams / event_types filter message events. Events are emitted through the real
// write path (log + release after commit) with the canonical payloads producers use.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventSpec } from '../../src/actors/event-sequencer.js';
import { writeWithEvents } from '../../src/actors/realm-events.js';
import { CAPABILITY_KEYS } from '../../src/domain/client-capabilities.js';
import { Role } from '../../src/domain/roles.js';
import { updateRealmSettings } from '../../src/store/realms.js';
import { assertSuccess } from '../helpers/assert.js';
import { drainEvents } from '../helpers/consistency.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let alice: TestUser;
let bob: TestUser;

const emit = (...specs: EventSpec[]) =>
  writeWithEvents(server.app.db, realm.handle.events, async (_tx, e) => {
    for (const s of specs) e(s);
  });

/** Register a queue with these capabilities, run `action`, return the events it received. */
async function receive(user: TestUser, capabilities: Record<string, boolean>, action: () => Promise<unknown>, params: Record<string, unknown> = {}) {
  const r = assertSuccess(await user.post('/api/v1/register', { client_capabilities: capabilities, fetch_event_types: [], ...params } as never));
  await action();
  return drainEvents(user, r.queue_id);
}

function message(o: { id: number; topic?: string; streamId?: number; channel?: string; dm?: TestUser[]; sender?: TestUser }) {
  const sender = o.sender ?? alice;
  const isStream = o.dm === undefined;
  return {
    id: o.id,
    sender_id: sender.id,
    sender_email: sender.email,
    sender_full_name: 'Alice',
    type: isStream ? 'stream' : 'private',
    stream_id: isStream ? (o.streamId ?? 7) : undefined,
    display_recipient: isStream ? (o.channel ?? 'general') : o.dm!.map((u) => ({ id: u.id, email: u.email, full_name: 'x' })),
    subject: isStream ? (o.topic ?? 'greetings') : '',
    content: 'hello **world**',
    rendered_content: '<p>hello <strong>world</strong></p>',
    avatar_url: 'https://example.test/a.png',
    _sender_avatar_source: 'G',
    timestamp: 1_700_000_000,
  };
}

const messageEvent = (m: ReturnType<typeof message>, userIds: number[], o: Partial<EventSpec> = {}): EventSpec => ({
  type: 'message',
  payload: { message: m },
  userIds,
  ...o,
});

const t = suite('client capabilities');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  alice = await realm.createUser({ name: 'Alice' });
  bob = await realm.createUser({ name: 'Bob' });
});

t('twelve capabilities are known', () => {
  assert.is(CAPABILITY_KEYS.length, 12);
});

t('message content follows apply_markdown; client_extavatar nulls external avatars; per-user flags', async () => {
  const m = message({ id: 1 });
  const spec = messageEvent(m, [alice.id, bob.id], { perUser: { [alice.id]: { flags: ['read'] } } });
  const raw = await receive(alice, {}, () => emit(spec), { client_extavatar: false });
  assert.is(raw[0].message.content, 'hello **world**');
  assert.is(raw[0].message.content_type, 'text/x-markdown');
  assert.is(raw[0].message.avatar_url, 'https://example.test/a.png');
  assert.equal(raw[0].flags, ['read']);
  assert.not.ok('rendered_content' in raw[0].message);
  assert.not.ok('_sender_avatar_source' in raw[0].message);
  const html = await receive(bob, {}, () => emit(spec), { apply_markdown: true });
  assert.is(html[0].message.content, '<p>hello <strong>world</strong></p>');
  assert.is(html[0].message.content_type, 'text/html');
  assert.is(html[0].message.avatar_url, null);
  assert.equal(html[0].flags, []);
});

t('the sender queue named in the send gets local_message_id', async () => {
  const r = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: [] }));
  const other = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: [] }));
  await emit(messageEvent(message({ id: 2 }), [alice.id], { payload: { message: message({ id: 2 }), _local: { queue_id: r.queue_id, local_id: '42.01' } } }));
  assert.is((await drainEvents(alice, r.queue_id))[0].local_message_id, '42.01');
  assert.not.ok('local_message_id' in (await drainEvents(alice, other.queue_id))[0]);
});

t('empty_topic_name: the display name stands in for the empty topic unless declared', async () => {
  const spec = messageEvent(message({ id: 3, topic: '' }), [alice.id]);
  const legacy = await receive(alice, {}, () => emit(spec));
  assert.is(legacy[0].message.subject, 'general chat');
  const modern = await receive(alice, { empty_topic_name: true }, () => emit(spec));
  assert.is(modern[0].message.subject, '');
  const del = { type: 'delete_message', payload: { message_ids: [3], message_type: 'stream', stream_id: 7, topic: '' }, userIds: [alice.id], span: 1 };
  assert.is((await receive(alice, { bulk_message_deletion: true }, () => emit(del)))[0].topic, 'general chat');
});

t('bulk_message_deletion: one event with message_ids, else one per message with its own id', async () => {
  const spec: EventSpec = { type: 'delete_message', payload: { message_ids: [10, 11, 12], message_type: 'private' }, userIds: [alice.id], span: 3 };
  const bulk = await receive(alice, { bulk_message_deletion: true }, () => emit(spec));
  assert.is(bulk.length, 1);
  assert.equal(bulk[0].message_ids, [10, 11, 12]);
  const single = await receive(alice, {}, () => emit(spec));
  assert.equal(single.map((e) => e.message_id), [10, 11, 12]);
  assert.ok(single[0].id < single[1].id && single[1].id < single[2].id);
  assert.ok(!('message_ids' in single[0]));
});

t('stream_typing_notifications: channel typing only for clients that declare it', async () => {
  const direct: EventSpec = { type: 'typing', payload: { op: 'start', message_type: 'direct', sender: { user_id: bob.id, email: bob.email }, recipients: [] }, userIds: [alice.id] };
  const channel: EventSpec = { type: 'typing', payload: { op: 'start', message_type: 'stream', sender: { user_id: bob.id, email: bob.email }, stream_id: 7, topic: 't' }, userIds: [alice.id] };
  const publish = () => realm.handle.events.publishEphemeral([direct, channel]);
  assert.equal((await receive(alice, {}, publish)).map((e) => e.message_type), ['direct']);
  assert.equal((await receive(alice, { stream_typing_notifications: true }, publish)).map((e) => e.message_type), ['direct', 'stream']);
});

t('simplified_presence_events: modern presences instead of the legacy shape', async () => {
  const spec: EventSpec = {
    type: 'presence',
    payload: {
      user_id: bob.id,
      email: bob.email,
      server_timestamp: 1_700_000_000.5,
      presence: { website: { client: 'website', status: 'active', timestamp: 1_700_000_000, pushable: false } },
      presences: { [bob.id]: { active_timestamp: 1_700_000_000, idle_timestamp: 1_700_000_000 } },
    },
    userIds: null,
  };
  const legacy = (await receive(alice, {}, () => emit(spec)))[0];
  assert.equal(Object.keys(legacy).sort(), ['email', 'id', 'presence', 'server_timestamp', 'type', 'user_id']);
  const modern = (await receive(alice, { simplified_presence_events: true }, () => emit(spec)))[0];
  assert.equal(Object.keys(modern).sort(), ['id', 'presences', 'type']);
  assert.is(modern.presences[bob.id].active_timestamp, 1_700_000_000);
});

t('individual_emoji_changes: add/edit events instead of the legacy update', async () => {
  const emoji = { id: '1', name: 'party', source_url: '/x.png', deactivated: false, author_id: alice.id };
  const spec: EventSpec = { type: 'realm_emoji', payload: { op: 'add', emoji, realm_emoji: { 1: emoji } }, userIds: null };
  const legacy = (await receive(alice, {}, () => emit(spec)))[0];
  assert.is(legacy.op, 'update');
  assert.equal(legacy.realm_emoji, { 1: emoji });
  const modern = (await receive(alice, { individual_emoji_changes: true }, () => emit(spec)))[0];
  assert.is(modern.op, 'add');
  assert.equal(modern.emoji, emoji);
  assert.not.ok('realm_emoji' in modern);
});

t('linkifier_url_template: linkifier events only for clients that declare it', async () => {
  const spec: EventSpec = { type: 'realm_linkifiers', payload: { realm_linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.test/{id}' }] }, userIds: null };
  assert.equal(await receive(alice, {}, () => emit(spec)), []);
  assert.is((await receive(alice, { linkifier_url_template: true }, () => emit(spec)))[0].realm_linkifiers.length, 1);
});

t('include_deactivated_groups: a deactivation is a remove for older clients', async () => {
  const spec: EventSpec = { type: 'user_group', payload: { op: 'update', group_id: 99, data: { deactivated: true } }, userIds: null };
  const legacy = (await receive(alice, {}, () => emit(spec)))[0];
  assert.is(legacy.op, 'remove');
  assert.is(legacy.group_id, 99);
  const modern = (await receive(alice, { include_deactivated_groups: true }, () => emit(spec)))[0];
  assert.is(modern.op, 'update');
  assert.equal(modern.data, { deactivated: true });
  const later: EventSpec = { type: 'user_group', payload: { op: 'update', group_id: 99, data: { name: 'x' }, _group_deactivated: true }, userIds: null };
  assert.equal(await receive(alice, {}, () => emit(later)), []);
  assert.not.ok('_group_deactivated' in (await receive(alice, { include_deactivated_groups: true }, () => emit(later)))[0]);
});

t('archived_channels: archiving is a delete for older clients, events about archived channels are hidden', async () => {
  const channel = { stream_id: 7, name: 'old', is_archived: true };
  const archive: EventSpec = { type: 'stream', payload: { op: 'update', stream_id: 7, name: 'old', property: 'is_archived', value: true, _stream: channel }, userIds: null };
  const legacy = (await receive(alice, {}, () => emit(archive)))[0];
  assert.is(legacy.op, 'delete');
  assert.equal(legacy.stream_ids, [7]);
  assert.equal(legacy.streams, [channel]);
  const modern = (await receive(alice, { archived_channels: true }, () => emit(archive)))[0];
  assert.is(modern.op, 'update');
  assert.is(modern.property, 'is_archived');
  assert.not.ok('_stream' in modern);
  const unarchive: EventSpec = { ...archive, payload: { ...archive.payload, value: false } };
  assert.is((await receive(alice, {}, () => emit(unarchive)))[0].op, 'create');
  const touch: EventSpec = { type: 'stream', payload: { op: 'update', stream_id: 7, property: 'description', value: 'd', _archived: true }, userIds: null };
  assert.equal(await receive(alice, {}, () => emit(touch)), []);
});

t('notification_settings_null: null settings are the user defaults for older clients', async () => {
  const spec: EventSpec = { type: 'subscription', payload: { op: 'update', stream_id: 7, property: 'push_notifications', value: null }, userIds: [alice.id] };
  assert.is((await receive(alice, {}, () => emit(spec)))[0].value, false);
  assert.is((await receive(alice, { notification_settings_null: true }, () => emit(spec)))[0].value, null);
});

t('user_list_incomplete: guests who may not see a new user get nothing, or a placeholder', async () => {
  const limited = await server.createRealm();
  const guest = await limited.createUser({ role: Role.guest, name: 'Gus' });
  const members = limited.handle.state.systemGroupId('role:members');
  const s = limited.handle.state.realm.settings;
  await updateRealmSettings(server.app.db, limited.id, { ...s, groups: { ...s.groups, can_access_all_users_group: members } });
  await limited.handle.reload();
  const withCap = assertSuccess(await guest.post('/api/v1/register', { client_capabilities: { user_list_incomplete: true }, event_types: ['realm_user'], fetch_event_types: ['realm_user'] }));
  const without = assertSuccess(await guest.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: ['realm_user'] }));
  assert.equal(withCap.realm_users.map((u: { user_id: number }) => u.user_id), [guest.id]);
  const placeholder = without.realm_users.find((u: { user_id: number }) => u.user_id === limited.owner.id);
  assert.is(placeholder.full_name, 'Unknown user');
  const stranger = await limited.createUser({ name: 'Stranger Danger' });
  assert.equal(await drainEvents(guest, withCap.queue_id), []);
  const ev = await drainEvents(guest, without.queue_id);
  assert.is(ev.length, 1);
  assert.is(ev[0].person.user_id, stranger.id);
  assert.is(ev[0].person.full_name, 'Unknown user');
  assert.not.match(JSON.stringify(ev[0]), /Stranger|user\d+@example\.com/);
  // A member sees the real person.
  const member = await limited.createUser();
  const mq = assertSuccess(await member.post('/api/v1/register', { event_types: ['realm_user'], fetch_event_types: [] }));
  await limited.createUser({ name: 'Visible Vic' });
  assert.is((await drainEvents(member, mq.queue_id))[0].person.full_name, 'Visible Vic');
});

t('user_avatar_url_field_optional: avatar_url may be left out of realm_users', async () => {
  const params = { fetch_event_types: ['realm_user'] };
  const plain = assertSuccess(await alice.post('/api/v1/register', params));
  assert.ok(plain.realm_users.every((u: object) => 'avatar_url' in u));
  const optional = assertSuccess(await alice.post('/api/v1/register', { ...params, client_capabilities: { user_avatar_url_field_optional: true } }));
  assert.ok(optional.realm_users.every((u: object) => !('avatar_url' in u)));
});

t('user_settings_object has no effect', async () => {
  const a = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: ['user_settings'] }));
  const b = assertSuccess(await alice.post('/api/v1/register', { fetch_event_types: ['user_settings'], client_capabilities: { user_settings_object: true } }));
  assert.equal(a.user_settings, b.user_settings);
});

const filters = suite('event_types, narrow and all_public_streams');

filters('narrow is a plain filter on message events', async () => {
  const inGeneral = messageEvent(message({ id: 20, channel: 'general', streamId: 7, topic: 'lunch' }), [alice.id]);
  const inRandom = messageEvent(message({ id: 21, channel: 'random', streamId: 8 }), [alice.id]);
  const dm = messageEvent(message({ id: 22, dm: [alice, bob], sender: bob }), [alice.id]);
  const run = async (narrow: unknown) =>
    (await receive(alice, {}, () => emit(inGeneral, inRandom, dm), { narrow })).filter((e) => e.type === 'message').map((e) => e.message.id);
  assert.equal(await run([['channel', 'general']]), [20]);
  assert.equal(await run([['stream', 'General']]), [20]);
  assert.equal(await run([['channel', '8']]), [21]);
  assert.equal(await run([['channel', 'general'], ['topic', 'lunch']]), [20]);
  assert.equal(await run([['is', 'dm']]), [22]);
  assert.equal(await run([['sender', bob.email]]), [22]);
  assert.equal(await run([{ operator: 'is', operand: 'dm', negated: true }]), [20, 21]);
  assert.equal(await run([['dm', bob.email]]), [22]);
  assert.equal(await run([]), [20, 21, 22]);
});

filters("a topic narrow takes the organization's name for the empty topic as the empty topic", async () => {
  const empty = messageEvent(message({ id: 23, topic: '' }), [alice.id]);
  const named = messageEvent(message({ id: 24, topic: 'lunch' }), [alice.id]);
  const run = async (narrow: unknown) =>
    (await receive(alice, {}, () => emit(empty, named), { narrow })).filter((e) => e.type === 'message').map((e) => e.message.id);
  const emptyName = realm.handle.state.realm.settings.empty_topic_display_name;
  assert.ok(emptyName.length > 0);
  assert.equal(await run([['topic', emptyName]]), [23]);
  assert.equal(await run([['topic', '']]), [23]);
  assert.equal(await run([['topic', 'Lunch']]), [24]);
});

filters('narrow leaves other event types alone', async () => {
  const other: EventSpec = { type: 'user_settings', payload: { op: 'update', property: 'x', value: 1 }, userIds: [alice.id] };
  const got = await receive(alice, {}, () => emit(other), { narrow: [['is', 'dm']] });
  assert.equal(got.map((e) => e.type), ['user_settings']);
});

filters('all_public_streams adds message events of public channels the user does not receive', async () => {
  const pub = messageEvent(message({ id: 30 }), [bob.id], { publicChannelId: 7 });
  const priv = messageEvent(message({ id: 31 }), [bob.id]);
  assert.equal((await receive(alice, {}, () => emit(pub, priv))).map((e) => e.message?.id), []);
  assert.equal((await receive(alice, {}, () => emit(pub, priv), { all_public_streams: true })).map((e) => e.message.id), [30]);
});

filters('event_types selects types; heartbeats are always allowed', async () => {
  const a: EventSpec = { type: 'user_settings', payload: { op: 'update', property: 'x', value: 1 }, userIds: [alice.id] };
  const b = messageEvent(message({ id: 40 }), [alice.id]);
  assert.equal((await receive(alice, {}, () => emit(a, b), { event_types: ['message'] })).map((e) => e.type), ['message']);
  assert.equal((await receive(alice, {}, () => emit(a, b), { event_types: ['user_settings'] })).map((e) => e.type), ['user_settings']);
});

filters.after(() => server.close());

t.run();
filters.run();
