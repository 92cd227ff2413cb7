// Channels: creation through subscribing (permissions per role and kind), GET /streams and its
// flags, GET /streams/{id}, /get_stream_id, members, updates, archiving, default channels — each
// with its events checked against a fresh POST /register.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, deactivate, ROLE_NAMES, sendToChannel, topicLog, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const CHANNEL_TYPES = ['subscription', 'stream', 'default_streams'];

const create = suite('creating channels');
create.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
});

create('subscribing to a missing channel creates it, once', async () => {
  const { member } = cast;
  const r = assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: ' Lunch  ', description: 'Where *to* eat' }] }));
  assert.equal(r.subscribed, { [String(member.id)]: ['Lunch'] });
  assert.equal(r.already_subscribed, {});
  assert.not.ok('unauthorized' in r);
  const again = assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'lunch' }] }));
  assert.equal(again.subscribed, {});
  assert.equal(again.already_subscribed, { [String(member.id)]: ['Lunch'] });
  const c = realm.handle.state.channels.byName('lunch')!;
  const s = assertSuccess(await member.get(`/api/v1/streams/${c.id}`)).stream;
  assert.is(s.name, 'Lunch');
  assert.is(s.description, 'Where *to* eat');
  assert.is(s.rendered_description, '<p>Where <em>to</em> eat</p>');
  assert.is(s.creator_id, member.id);
  assert.is(s.invite_only, false);
  assert.is(s.history_public_to_subscribers, true);
  assert.is(s.topics_policy, 'inherit');
  assert.is(s.stream_post_policy, 1);
  assert.is(s.is_announcement_only, false);
  assert.is(s.subscriber_count, 1);
  assert.is(s.first_message_id, null);
  assert.is(s.is_archived, false);
  assert.equal(s.can_administer_channel_group, { direct_members: [member.id], direct_subgroups: [] });
  assert.is(s.can_send_message_group, realm.handle.state.systemGroupId('role:everyone'));
  assert.is(s.can_remove_subscribers_group, realm.handle.state.systemGroupId('role:administrators'));
  assert.is(s.stream_weekly_traffic, null);
  assert.type(s.date_created, 'number');
});

create('who may create which channel', async () => {
  const expected: Record<string, { public: boolean; private: boolean; isDefault: boolean; retention: boolean }> = {
    owner: { public: true, private: true, isDefault: true, retention: true },
    admin: { public: true, private: true, isDefault: true, retention: false },
    moderator: { public: true, private: true, isDefault: false, retention: false },
    member: { public: true, private: true, isDefault: false, retention: false },
    guest: { public: false, private: false, isDefault: false, retention: false },
    bot: { public: true, private: true, isDefault: false, retention: false },
  };
  for (const role of ROLE_NAMES) {
    const u = cast[role];
    const e = expected[role]!;
    const attempt = (name: string, params: Record<string, unknown>) =>
      u.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: `${name}-${role}` }], ...params } as never);
    const check = async (ok: boolean, name: string, params: Record<string, unknown>, msg = 'Insufficient permission') => {
      const r = await attempt(name, params);
      if (ok) assertSuccess(r);
      else assertError(r, msg);
    };
    await check(e.public, 'pub', {});
    await check(e.private, 'priv', { invite_only: true });
    await check(e.isDefault, 'def', { is_default_stream: true });
    await check(e.retention, 'ret', { message_retention_days: 30 }, e.public ? 'Must be an organization owner' : 'Insufficient permission');
  }
  assertError(
    await cast.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'wp' }], is_web_public: true }),
    'Web-public channels are not enabled.',
  );
  assertError(
    await cast.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'dp' }], is_default_stream: true, invite_only: true }),
    'A default channel cannot be private.',
  );
});

create('POST /channels/create makes one channel, subscribes whom it lists, and refuses a taken name', async () => {
  const { member, moderator, owner } = cast;
  let id = 0;
  const events = await expectConsistent(moderator, async () => {
    id = assertSuccess(
      await member.post('/api/v1/channels/create', { name: ' Garden ', description: 'Plants *only*', subscribers: JSON.stringify([member.id, moderator.id]) }),
    ).id as number;
  }, { types: CHANNEL_TYPES });
  assert.equal(events.map((e) => `${e.type}:${e.op}`), ['stream:create', 'subscription:add']);
  const c = realm.handle.state.channels.get(id)!;
  assert.equal([c.name, c.description, c.invite_only], ['Garden', 'Plants *only*', false]);
  assert.equal([...realm.handle.state.channels.subscribers(id)].sort((a, b) => a - b), [member.id, moderator.id].sort((a, b) => a - b));
  const taken = await owner.post('/api/v1/channels/create', { name: 'garden', subscribers: '[]' });
  assertError(taken, "Channel 'garden' already exists", 409, 'CHANNEL_ALREADY_EXISTS');
  // No subscribers at all, and the options of a subscription's creation (here: private).
  const quiet = assertSuccess(await owner.post('/api/v1/channels/create', { name: 'Nobody Home', subscribers: '[]', invite_only: true })).id as number;
  assert.equal([...realm.handle.state.channels.subscribers(quiet)], []);
  assert.is(realm.handle.state.channels.get(quiet)!.invite_only, true);
  assertError(await member.post('/api/v1/channels/create', { name: 'ghosts', subscribers: '[999999]' }), "User not authorized to execute queries on behalf of '999999'", 403, 'UNAUTHORIZED_PRINCIPAL');
  assert.not.ok(realm.handle.state.channels.byName('ghosts'), 'nothing made');
  const missing = await member.post('/api/v1/channels/create', { name: 'no list' });
  assert.is(missing.status, 400);
  assert.match(missing.json.msg as string, /subscribers/);
  assertError(await member.post('/api/v1/channels/create', { name: '  ', subscribers: '[]' }), "Channel name can't be empty.");
});

create('who may create a channel through POST /channels/create', async () => {
  for (const role of ROLE_NAMES) {
    const r = await cast[role].post('/api/v1/channels/create', { name: `made-by-${role}`, subscribers: JSON.stringify([cast[role].id]) });
    if (role === 'guest') assertError(r, 'Insufficient permission');
    else assert.ok(realm.handle.state.channels.get(assertSuccess(r).id as number)!.name === `made-by-${role}`, role);
  }
});

create('PATCH /users/me/subscriptions subscribes and unsubscribes the caller at once, or changes nothing', async () => {
  const { member, owner } = cast;
  await createChannel(owner, 'patch-stay', { others: [member] });
  await createChannel(owner, 'patch-leave', { others: [member] });
  await createChannel(owner, 'patch-join');
  await createChannel(owner, 'patch-secret', { invite_only: true });
  const subscribed = (name: string) => realm.handle.state.channels.isSubscribed(member.id, realm.handle.state.channels.byName(name)!.id);
  let r: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    r = assertSuccess(
      await member.patch('/api/v1/users/me/subscriptions', {
        add: JSON.stringify([{ name: 'patch-join', color: '#a1b2c3' }, { name: 'patch-stay' }, { name: 'Patch New', description: 'made *here*' }]),
        delete: JSON.stringify(['patch-leave', 'patch-secret']),
      }),
    );
  }, { types: CHANNEL_TYPES });
  const me = String(member.id);
  assert.equal(r.subscribed, { [me]: ['Patch New', 'patch-join'] });
  assert.equal(r.already_subscribed, { [me]: ['patch-stay'] });
  assert.equal([r.removed, r.not_removed], [['patch-leave'], ['patch-secret']]);
  assert.ok(subscribed('patch-join') && subscribed('Patch New') && !subscribed('patch-leave'));
  assert.is(realm.handle.state.channels.byName('Patch New')!.description, 'made *here*');
  const subs = assertSuccess(await member.get('/api/v1/users/me/subscriptions')).subscriptions as Array<{ name: string; color: string }>;
  assert.is(subs.find((x) => x.name === 'patch-join')!.color, '#a1b2c3', 'the colour asked for');

  // A refusal of either half changes nothing.
  const attempt = (add: object[], del: string[]) => member.patch('/api/v1/users/me/subscriptions', { add: JSON.stringify(add), delete: JSON.stringify(del) });
  assertError(await attempt([{ name: 'patch-secret' }], ['patch-stay']), 'Unable to access channel (patch-secret).');
  assertError(await attempt([{ name: 'patch-other-new' }], ['patch-stay', 'no such channel']), 'Channel(s) (no such channel) do not exist');
  assertError(await attempt([{ name: 'patch-leave', color: 'red' }], ['patch-stay']), 'color is not a valid hex color code');
  assert.ok(subscribed('patch-stay'), 'still subscribed where the delete was refused with the add');
  assert.not.ok(subscribed('patch-leave'));
  assert.not.ok(realm.handle.state.channels.byName('patch-other-new'), 'nothing created');
  // A channel being added may be left in the same request (added, then left).
  const both = assertSuccess(await attempt([{ name: 'patch-twice' }], ['patch-twice']));
  assert.equal([both.subscribed, both.removed], [{ [me]: ['patch-twice'] }, ['patch-twice']]);
  assertError(await member.patch('/api/v1/users/me/subscriptions', {}), 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await attempt([], []), 'Nothing to do. Specify at least one of "add" or "delete".');
  // Guests create no channels here either.
  assertError(await cast.guest.patch('/api/v1/users/me/subscriptions', { add: JSON.stringify([{ name: 'patch-by-guest' }]) }), 'Insufficient permission');
});

create('announce: Notification Bot names new public channels in the announcements channel', async () => {
  const { member, owner } = cast;
  const news = await createChannel(owner, 'announcements', { others: [member] });
  const announced = () => topicLog(member, news, 'new channels');
  const who = `@_**${realm.handle.state.user(member.id)!.full_name}|${member.id}**`;
  // No announcements channel yet: nothing to announce in.
  assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'ann-early' }], announce: true }));
  assertSuccess(await owner.patch('/api/v1/realm', { new_stream_announcements_stream_id: news }));
  assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'ann-one' }, { name: 'ann-two' }, { name: 'ann-early' }], announce: true }));
  assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'ann-secret' }], announce: true, invite_only: true }));
  assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'ann-quiet' }] }));
  assertSuccess(await member.post('/api/v1/channels/create', { name: 'ann-made', subscribers: '[]', announce: true }));
  assertSuccess(await member.post('/api/v1/channels/create', { name: 'ann-made-quietly', subscribers: '[]' }));
  assert.equal(await announced(), [
    `Notification Bot: ${who} created the channels #**ann-one** and #**ann-two**.`,
    `Notification Bot: ${who} created the channel #**ann-made**.`,
  ]);
  assertSuccess(await owner.patch('/api/v1/realm', { new_stream_announcements_stream_id: -1 }));
});

create('someone subscribed by another is told by Notification Bot, of the channels that existed before', async () => {
  const { member, owner, bot } = cast;
  await createChannel(owner, 'tell-a');
  await createChannel(owner, 'tell-b');
  const botId = await realm.handle.ask('bot.notificationBot', null);
  const fromBot = async (u: TestUser) => {
    const narrow = [{ operator: 'dm', operand: [botId] }];
    const r = assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow, apply_markdown: false }));
    return (r.messages as Array<{ content: string }>).map((m) => m.content).filter((c) => c.includes('subscribed you'));
  };
  const before = { member: (await fromBot(member)).length, owner: (await fromBot(owner)).length };
  const subscribeOthers = (names: string[], extra: Record<string, unknown> = {}) =>
    owner.post('/api/v1/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), principals: [owner.id, member.id, bot.id], ...extra } as never);
  const r = assertSuccess(await subscribeOthers(['tell-a', 'tell-b', 'tell-new']));
  assert.is(r.new_subscription_messages_sent, true);
  const owner_ = `@_**${realm.handle.state.user(owner.id)!.full_name}|${owner.id}**`;
  assert.equal((await fromBot(member)).slice(before.member), [`${owner_} subscribed you to these channels:\n* #**tell-a**\n* #**tell-b**`]);
  assert.is((await fromBot(owner)).length, before.owner, 'not the one who subscribed');
  await createChannel(owner, 'tell-c');
  const quiet = assertSuccess(await subscribeOthers(['tell-c'], { send_new_subscription_messages: false }));
  assert.not.ok('new_subscription_messages_sent' in quiet);
  assert.is((await fromBot(member)).length, before.member + 1, 'not when asked not to');
  await createChannel(owner, 'tell-d');
  assertSuccess(await subscribeOthers(['tell-d']));
  assert.equal((await fromBot(member)).slice(before.member + 1), [`${owner_} subscribed you to the channel #**tell-d**.`]);
  const registered = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm'] }));
  assert.is(registered.max_bulk_new_subscription_messages, 100);
});

create('more than max_bulk_new_subscription_messages users subscribed at once are not told', async () => {
  const { owner } = cast;
  await createChannel(owner, 'tell-many');
  const many: TestUser[] = [];
  for (let i = 0; i < 101; i++) many.push(await realm.createUser({ name: `Many ${i}` }));
  const r = assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'tell-many' }], principals: many.map((u) => u.id) }));
  assert.is(r.new_subscription_messages_sent, false);
  assert.is(Object.keys(r.subscribed as object).length, 101);
  const botId = await realm.handle.ask('bot.notificationBot', null);
  const dms = assertSuccess(await many[0]!.get('/api/v1/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [botId] }] }));
  assert.equal(dms.messages, []);
});

create('names are checked', async () => {
  const { member } = cast;
  const post = (name: string) => member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }] });
  assertError(await post('   '), "Channel name can't be empty.");
  assertError(await post('x'.repeat(61)), 'Channel name too long (limit: 60 characters).');
  assertError(await post('bad\u0001name'), 'Invalid character in channel name, at position 4.');
  assertError(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{}] }), 'subscriptions[0]["name"] key is missing');
  assertError(await member.post('/api/v1/users/me/subscriptions', { subscriptions: '[1' }), 'Argument "subscriptions" is not valid JSON.');
});

create('group settings on creation are validated', async () => {
  const { member, owner } = cast;
  const everyone = realm.handle.state.systemGroupId('role:everyone');
  assertError(
    await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_subscribe_group: everyone }),
    "'can_subscribe_group' setting cannot be set to 'role:everyone' group.",
  );
  assertError(
    await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'g2' }], can_send_message_group: 999999 }),
    'Invalid user group ID: 999999',
  );
  assertError(
    await member.post('/api/v1/users/me/subscriptions', {
      subscriptions: [{ name: 'g3' }],
      can_delete_any_message_group: realm.handle.state.systemGroupId('role:members'),
    }),
    'Insufficient permission',
  );
  assertError(
    await owner.post('/api/v1/users/me/subscriptions', {
      subscriptions: [{ name: 'g4' }],
      invite_only: true,
      can_create_topic_group: realm.handle.state.systemGroupId('role:members'),
    }),
    'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group',
  );
  const r = assertSuccess(
    await owner.post('/api/v1/users/me/subscriptions', {
      subscriptions: [{ name: 'g5' }],
      can_send_message_group: { direct_members: [member.id], direct_subgroups: [] },
    }),
  );
  assert.ok(r.subscribed[String(owner.id)]);
  const s = assertSuccess(await owner.get(`/api/v1/streams/${realm.handle.state.channels.byName('g5')!.id}`)).stream;
  assert.equal(s.can_send_message_group, { direct_members: [member.id], direct_subgroups: [] });
});

create('creating a channel is seen by everyone who may see it', async () => {
  const { member, admin, guest } = cast;
  // A public channel: members see it (never subscribed), guests do not.
  for (const observer of [admin, guest]) {
    const events = await expectConsistent(observer, () => createChannel(member, `seen-by-${observer.id}`), { types: CHANNEL_TYPES });
    assert.is(events.some((e) => e.type === 'stream' && e.op === 'create'), observer === admin);
  }
  // A private channel: administrators see it, other members do not.
  await expectConsistent(admin, () => createChannel(member, 'hush', { invite_only: true }), { types: CHANNEL_TYPES });
  const events = await expectConsistent(cast.moderator, () => createChannel(member, 'hush2', { invite_only: true }), { types: CHANNEL_TYPES });
  assert.equal(events, []);
  // The creator, with subscriber lists.
  await expectConsistent(member, () => createChannel(member, 'mine', { others: [admin] }), {
    types: CHANNEL_TYPES,
    registerParams: { include_subscribers: 'true' },
  });
});

const list = suite('listing channels');

list('GET /streams by role and flag', async () => {
  const { owner, admin, member, guest, moderator } = cast;
  await createChannel(owner, 'L-public');
  await createChannel(owner, 'L-private', { invite_only: true });
  await createChannel(owner, 'L-guests', { others: [guest] });
  const names = async (u: TestUser, params: Record<string, unknown> = {}) =>
    (assertSuccess(await u.get('/api/v1/streams', params as never)).streams as Array<{ name: string }>)
      .map((s) => s.name)
      .filter((n) => n.startsWith('L-'));
  assert.equal(await names(member), ['L-guests', 'L-public']);
  assert.equal(await names(moderator), ['L-guests', 'L-public']);
  assert.equal(await names(guest), ['L-guests']);
  assert.equal(await names(owner), ['L-guests', 'L-private', 'L-public']);
  assert.equal(await names(admin, { include_all: true }), ['L-guests', 'L-private', 'L-public']);
  assert.equal(await names(member, { include_all: true }), ['L-guests', 'L-public']);
  assert.equal(await names(member, { include_public: false }), []);
  assert.equal(await names(guest, { include_public: true, include_subscribed: false }), []);
  assertError(await member.get('/api/v1/streams', { include_all_active: true }), 'User not authorized for this query');
  assert.equal(await names(admin, { include_all_active: true }), ['L-guests', 'L-private', 'L-public']);
  assert.equal(await names(member, { include_can_access_content: true }), ['L-guests', 'L-public']);
  const withDefault = assertSuccess(await member.get('/api/v1/streams', { include_default: true })).streams;
  assert.ok(withDefault.every((s: { is_default: unknown }) => typeof s.is_default === 'boolean'));
});

list('a bot may list the channels of its owner', async () => {
  const { member, bot } = cast;
  await createChannel(member, 'L-owner-private', { invite_only: true });
  const names = async (params: Record<string, unknown>) =>
    (assertSuccess(await bot.get('/api/v1/streams', params as never)).streams as Array<{ name: string }>).map((s) => s.name);
  assert.not.ok((await names({})).includes('L-owner-private'));
  assert.ok((await names({ include_owner_subscribed: true })).includes('L-owner-private'));
});

list('one channel, its id by name, its members', async () => {
  const { owner, member, guest, admin } = cast;
  const priv = await createChannel(owner, 'L2-private', { invite_only: true, others: [guest] });
  const pub = await createChannel(owner, 'L2-public');
  assertError(await member.get(`/api/v1/streams/${priv}`), 'Invalid channel ID');
  assertSuccess(await guest.get(`/api/v1/streams/${priv}`));
  assertSuccess(await admin.get(`/api/v1/streams/${priv}`));
  assertError(await guest.get(`/api/v1/streams/${pub}`), 'Invalid channel ID');
  assertError(await member.get('/api/v1/streams/999999'), 'Invalid channel ID');
  assert.is(assertSuccess(await member.get('/api/v1/get_stream_id', { stream: 'l2-PUBLIC' })).stream_id, pub);
  assertError(await member.get('/api/v1/get_stream_id', { stream: 'L2-private' }), "Invalid channel name 'L2-private'");
  assertError(await member.get('/api/v1/get_stream_id', { stream: 'nope' }), "Invalid channel name 'nope'");
  assertError(await member.get('/api/v1/get_stream_id'), "Missing 'stream' argument");
  assert.equal(assertSuccess(await guest.get(`/api/v1/streams/${priv}/members`)).subscribers, [owner.id, guest.id].sort((a, b) => a - b));
  assertError(await member.get(`/api/v1/streams/${priv}/members`), 'Invalid channel ID');
  assert.equal(assertSuccess(await admin.get(`/api/v1/streams/${priv}/members`)).subscribers, [owner.id, guest.id].sort((a, b) => a - b));
});

list('deactivated users are not subscribers', async () => {
  const { owner } = cast;
  const gone = await realm.createUser({ name: 'Soon Gone' });
  const id = await createChannel(owner, 'L3', { others: [gone] });
  await deactivate(gone);
  assert.equal(assertSuccess(await owner.get(`/api/v1/streams/${id}/members`)).subscribers, [owner.id]);
  assert.is(assertSuccess(await owner.get(`/api/v1/streams/${id}`)).stream.subscriber_count, 1);
});

const update = suite('updating channels');

update('who may administer a channel', async () => {
  const { owner, admin, moderator, member, guest, bot } = cast;
  const pub = await createChannel(member, 'U-public', { others: [guest, moderator] });
  const priv = await createChannel(member, 'U-private', { invite_only: true, others: [moderator] });
  const rename = (u: TestUser, id: number, name: string) => u.patch(`/api/v1/streams/${id}`, { new_name: name });
  // The creator administers its channel; so do organization administrators.
  assertSuccess(await rename(member, pub, 'U-public-2'));
  assertSuccess(await rename(admin, pub, 'U-public-3'));
  assertSuccess(await rename(owner, priv, 'U-private-2'));
  // Others who can read it are told they cannot administer it; others not even that it exists.
  for (const u of [moderator, guest, bot]) {
    assertError(await rename(u, pub, 'nope'), 'You do not have permission to administer this channel.', 400, 'CANNOT_ADMINISTER_CHANNEL');
  }
  assertError(await rename(moderator, priv, 'nope'), 'You do not have permission to administer this channel.', 400, 'CANNOT_ADMINISTER_CHANNEL');
  assertError(await rename(bot, priv, 'nope'), 'Invalid channel ID');
  assertError(await rename(member, 999999, 'nope'), 'Invalid channel ID');
});

update('renaming, describing, privacy, settings — with their events', async () => {
  const { owner, member, admin, guest } = cast;
  const id = await createChannel(owner, 'U2', { others: [guest] });
  await createChannel(owner, 'U2-taken');
  assertError(await owner.patch(`/api/v1/streams/${id}`, { new_name: 'u2-TAKEN' }), "Channel 'u2-TAKEN' already exists", 400, 'CHANNEL_ALREADY_EXISTS');
  // A first message, so that Notification Bot's notices (channel-notices.test.ts) are not the
  // channel's first, which clients that do not subscribe learn of only on their next register.
  await sendToChannel(owner, id, 'start', 'hello');
  for (const observer of [member, guest, owner]) {
    await expectConsistent(observer, () => owner.patch(`/api/v1/streams/${id}`, { new_name: `U2-${observer.id}` }), { types: CHANNEL_TYPES });
  }
  const events = await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id}`, { description: 'See **this**' }), { types: CHANNEL_TYPES });
  assert.equal(events.map((e) => [e.property, e.value, e.rendered_description]), [['description', 'See **this**', '<p>See <strong>this</strong></p>']]);
  // Making it private hides it from members who are not subscribed; admins keep seeing it.
  const hidden = await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id}`, { is_private: true }), { types: CHANNEL_TYPES });
  assert.equal(hidden.map((e) => [e.type, e.op]), [['stream', 'delete']]);
  await expectConsistent(admin, () => owner.patch(`/api/v1/streams/${id}`, { history_public_to_subscribers: true }), { types: CHANNEL_TYPES });
  const shown = await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id}`, { is_private: false }), { types: CHANNEL_TYPES });
  assert.ok(shown.some((e) => e.type === 'stream' && e.op === 'create'));
  const admins = realm.handle.state.systemGroupId('role:administrators');
  const policy = await expectConsistent(guest, () => owner.patch(`/api/v1/streams/${id}`, { can_send_message_group: { new: admins } }), {
    types: CHANNEL_TYPES,
  });
  assert.equal(policy.map((e) => e.property), ['can_send_message_group', 'stream_post_policy', 'is_announcement_only']);
  assertError(
    await owner.patch(`/api/v1/streams/${id}`, { can_send_message_group: { new: admins, old: realm.handle.state.systemGroupId('role:members') } }),
    "'old' value does not match the expected value.",
  );
  await expectConsistent(guest, () => owner.patch(`/api/v1/streams/${id}`, { topics_policy: 'disable_empty_topic' }), { types: CHANNEL_TYPES });
  assertError(await member.patch(`/api/v1/streams/${id}`, { topics_policy: 'allow_empty_topic' }), 'You do not have permission to administer this channel.');
  assertError(await owner.patch(`/api/v1/streams/${id}`, { message_retention_days: 'sometimes' }), "Bad value for 'message_retention_days': sometimes");
  assertError(await admin.patch(`/api/v1/streams/${id}`, { message_retention_days: 10 }), 'Must be an organization owner');
  await expectConsistent(guest, () => owner.patch(`/api/v1/streams/${id}`, { message_retention_days: 'unlimited' }), { types: CHANNEL_TYPES });
  assert.is(realm.handle.state.channels.get(id)!.message_retention_days, -1);
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, {}));
});

update('archiving, with and without the archived_channels capability', async () => {
  const { owner, member, guest } = cast;
  const id = await createChannel(owner, 'U3', { others: [member, guest] });
  assertSuccess(await owner.post('/api/v1/default_streams', { stream_id: id }));
  assertError(await guest.delete(`/api/v1/streams/${id}`), 'You do not have permission to administer this channel.');
  const modern = { types: CHANNEL_TYPES, registerParams: { client_capabilities: { archived_channels: true } } };
  const events = await expectConsistent(member, () => owner.delete(`/api/v1/streams/${id}`), modern);
  // Notification Bot's notice of the archival is the channel's first message.
  assert.equal(events.map((e) => [e.type, e.op ?? null, e.property ?? null]), [
    ['stream', 'update', 'is_archived'],
    ['default_streams', null, null],
    ['stream', 'update', 'first_message_id'],
  ]);
  assertError(await owner.delete(`/api/v1/streams/${id}`), 'Channel is already archived');
  const id2 = await createChannel(owner, 'U4', { others: [member] });
  const legacy = await expectConsistent(member, () => owner.delete(`/api/v1/streams/${id2}`), { types: CHANNEL_TYPES });
  assert.equal(legacy.map((e) => [e.type, e.op]), [['stream', 'delete']]);
  // Archived channels are left out of GET /streams unless asked for.
  const listed = (await member.get('/api/v1/streams', { exclude_archived: false })).json.streams.map((s: { name: string }) => s.name);
  assert.ok(listed.includes('U4'));
  assert.not.ok((await member.get('/api/v1/streams')).json.streams.some((s: { name: string }) => s.name === 'U4'));
  // Clients without the capability hear nothing more about the archived channel.
  const quiet = await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id2}`, { description: 'in the attic' }), { types: CHANNEL_TYPES });
  assert.equal(quiet, []);
  await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id2}`, { new_name: 'U4-attic' }), modern);
  await expectConsistent(member, () => owner.patch(`/api/v1/streams/${id2}`, { is_archived: false }), modern);
});

update('default channels', async () => {
  const { owner, admin, member } = cast;
  const pub = await createChannel(owner, 'D1');
  const priv = await createChannel(owner, 'D2', { invite_only: true });
  assertError(await member.post('/api/v1/default_streams', { stream_id: pub }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertError(await admin.post('/api/v1/default_streams', { stream_id: priv }), 'Private channels cannot be made default.');
  assertError(await admin.post('/api/v1/default_streams', { stream_id: 999999 }), 'Invalid channel ID');
  await expectConsistent(member, () => admin.post('/api/v1/default_streams', { stream_id: pub }), { types: CHANNEL_TYPES });
  assert.ok((await registerState(member, { types: ['default_streams'] })).realm_default_streams.includes(pub));
  assertError(await owner.patch(`/api/v1/streams/${pub}`, { is_private: true }), 'A default channel cannot be private.');
  await expectConsistent(member, () => admin.delete('/api/v1/default_streams', { stream_id: pub }), { types: CHANNEL_TYPES });
  await expectConsistent(member, () => owner.patch(`/api/v1/streams/${pub}`, { is_default_stream: true }), { types: CHANNEL_TYPES });
});

update.after(async () => {
  await server.close();
});

create.run();
list.run();
update.run();

