// Subscriptions: subscribing oneself and others (per role, public and private channels),
// unsubscribing, subscription settings (endpoint 12 and the bulk endpoint), the register lists
// (subscriptions, unsubscribed, never_subscribed with include_subscribers) and who a limited
// guest may see through shared channels.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, ROLE_NAMES, subscribe, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const TYPES = ['subscription', 'stream'];
const WITH_SUBSCRIBERS = { types: TYPES, registerParams: { include_subscribers: 'true' } };

const sub = suite('subscribing');
sub.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
});

sub('oneself to a public channel: everyone but guests', async () => {
  await createChannel(cast.owner, 'S-pub');
  for (const role of ROLE_NAMES) {
    const r = await cast[role].post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-pub' }] });
    if (role === 'guest') assertError(r, 'Unable to access channel (S-pub).');
    else if (role === 'owner') assert.equal(assertSuccess(r).already_subscribed, { [String(cast.owner.id)]: ['S-pub'] });
    else assert.equal(assertSuccess(r).subscribed, { [String(cast[role].id)]: ['S-pub'] });
  }
  const soft = assertSuccess(
    await cast.guest.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-pub' }], authorization_errors_fatal: false }),
  );
  assert.equal(soft, { result: 'success', msg: '', subscribed: {}, already_subscribed: {}, unauthorized: ['S-pub'], new_subscription_messages_sent: true });
});

sub('oneself to a private channel needs content access', async () => {
  const id = await createChannel(cast.owner, 'S-priv', { invite_only: true });
  for (const role of ROLE_NAMES) {
    if (role === 'owner') continue;
    assertError(await cast[role].post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-priv' }] }), 'Unable to access channel (S-priv).');
  }
  // can_subscribe_group opens it to its members (never to guests).
  const members = realm.handle.state.systemGroupId('role:members');
  assertSuccess(await cast.owner.patch(`/api/v1/streams/${id}`, { can_subscribe_group: { new: members } }));
  await subscribe(cast.member, 'S-priv');
  assertError(await cast.guest.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-priv' }] }), 'Unable to access channel (S-priv).');
});

sub('others: by organization permission, channel permission, or not at all', async () => {
  const { owner, admin, member, guest, moderator, bot } = cast;
  await createChannel(owner, 'S-others');
  const add = (by: TestUser, who: TestUser, name = 'S-others') =>
    by.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }], principals: [who.id] });
  // can_add_subscribers_group is role:members by default.
  for (const by of [owner, admin, moderator, member, bot]) assertSuccess(await add(by, guest));
  // The guest is subscribed now, so it may read the channel, but not add anyone.
  assertError(await add(guest, member), 'You do not have permission to subscribe other users to channels.');
  const everyoneElse = realm.handle.state.systemGroupId('role:administrators');
  const settings = { ...realm.handle.state.realm.settings, groups: { ...realm.handle.state.realm.settings.groups, can_add_subscribers_group: everyoneElse } };
  const { updateRealmSettings } = await import('../../src/store/realms.js');
  await updateRealmSettings(server.app.db, realm.id, settings);
  await realm.handle.reload();
  try {
    assertError(await add(member, moderator), 'You do not have permission to subscribe other users to channels.');
    assertSuccess(await add(admin, moderator));
    // The channel's own setting grants it back.
    const id = realm.handle.state.channels.byName('S-others')!.id;
    assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { can_add_subscribers_group: { new: { direct_members: [member.id], direct_subgroups: [] } } }));
    assertSuccess(await add(member, bot));
  } finally {
    await updateRealmSettings(server.app.db, realm.id, { ...settings, groups: { ...settings.groups, can_add_subscribers_group: realm.handle.state.systemGroupId('role:members') } });
    await realm.handle.reload();
  }
  // Private channels: only with content access.
  await createChannel(owner, 'S-others-priv', { invite_only: true });
  assertError(await add(admin, member, 'S-others-priv'), 'Unable to access channel (S-others-priv).');
  assertSuccess(await add(owner, member, 'S-others-priv'));
});

sub('principals must be active users of the organization', async () => {
  const { owner } = cast;
  assertError(
    await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-p' }], principals: [999999] }),
    "User not authorized to execute queries on behalf of '999999'",
    403,
    'UNAUTHORIZED_PRINCIPAL',
  );
  assertError(
    await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-p' }], principals: ['nobody@example.com'] }),
    "User not authorized to execute queries on behalf of 'nobody@example.com'",
    403,
  );
  const r = assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-p' }], principals: [cast.member.email] }));
  assert.equal(r.subscribed, { [String(cast.member.id)]: ['S-p'] });
});

sub('events: the new subscriber, peers, and users who gain sight of a private channel', async () => {
  const { owner, member, moderator, guest } = cast;
  await createChannel(owner, 'S-ev');
  await createChannel(owner, 'S-ev-priv', { invite_only: true });
  await expectConsistent(member, () => subscribe(member, 'S-ev'), WITH_SUBSCRIBERS);
  await expectConsistent(moderator, () => subscribe(member, 'S-ev'), WITH_SUBSCRIBERS);
  await expectConsistent(moderator, () => owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-ev' }], principals: [moderator.id, guest.id] }), WITH_SUBSCRIBERS);
  const gained = await expectConsistent(guest, () => owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-ev-priv' }], principals: [guest.id] }), WITH_SUBSCRIBERS);
  assert.equal(gained.map((e) => [e.type, e.op]), [['stream', 'create'], ['subscription', 'add']]);
  await expectConsistent(member, () => owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'S-ev-priv' }], principals: [member.id] }), { types: TYPES });
});

sub('several channels at once: one peer event for the public ones, one for each private one; a guest hears of those it sees', async () => {
  const { owner, member, guest, admin } = cast;
  await realm.updateSettings({ enable_spectator_access: true });
  const pub = await createChannel(owner, 'S-batch-a', { others: [guest] });
  const other = await createChannel(owner, 'S-batch-b');
  const web = await createChannel(owner, 'S-batch-web', { is_web_public: true });
  const priv = await createChannel(owner, 'S-batch-priv', { invite_only: true, others: [member] });
  const subscriptions = ['S-batch-a', 'S-batch-b', 'S-batch-web', 'S-batch-priv'];
  const heard: Array<[TestUser, number[][]]> = [
    [member, [[pub, other, web], [priv]]],
    [admin, [[pub, other, web], [priv]]],
    [guest, [[pub, web]]],
  ];
  for (const [observer, streams] of heard) {
    const joiner = await realm.createUser();
    const peers = (events: Array<Record<string, any>>, op: string) => events.filter((e) => e.op === op).map((e) => [e.stream_ids, e.user_ids]);
    const joined = await expectConsistent(observer, () => owner.post('/api/v1/users/me/subscriptions', { subscriptions: subscriptions.map((name) => ({ name })), principals: [joiner.id] }), WITH_SUBSCRIBERS);
    assert.equal(peers(joined, 'peer_add'), streams.map((ids) => [ids, [joiner.id]]));
    const left = await expectConsistent(observer, () => owner.delete('/api/v1/users/me/subscriptions', { subscriptions, principals: [joiner.id] }), WITH_SUBSCRIBERS);
    assert.equal(peers(left, 'peer_remove'), streams.map((ids) => [ids, [joiner.id]]));
  }
});

const unsub = suite('unsubscribing');

unsub('oneself, others, and what was not subscribed', async () => {
  const { owner, admin, member, guest, moderator } = cast;
  await createChannel(owner, 'U-a', { others: [member, guest, moderator] });
  await createChannel(owner, 'U-b', { others: [member] });
  const r = assertSuccess(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-a', 'U-b'] }));
  assert.equal(r.removed, ['U-a', 'U-b']);
  assert.equal(r.not_removed, []);
  const again = assertSuccess(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['u-a'] }));
  assert.equal(again, { result: 'success', msg: '', removed: [], not_removed: ['U-a'] });
  assertError(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-a', 'nope', 'zilch'] }), 'Channel(s) (nope, zilch) do not exist');
  // Removing others: administrators, channel administrators, can_remove_subscribers_group.
  assertError(await moderator.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-a'], principals: [guest.id] }), 'Insufficient permission');
  assertSuccess(await owner.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-a'], principals: [guest.id] }));
  assertSuccess(await admin.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-a'], principals: [moderator.id] }));
});

unsub('events: the former subscriber keeps a public channel, loses a private one', async () => {
  const { owner, member, moderator, guest } = cast;
  await createChannel(owner, 'U-ev', { others: [member, guest] });
  await createChannel(owner, 'U-ev-priv', { invite_only: true, others: [member] });
  const left = await expectConsistent(member, () => member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-ev'] }), WITH_SUBSCRIBERS);
  assert.equal(left.map((e) => [e.type, e.op]), [['subscription', 'remove']], 'peer_remove is for the others');
  await expectConsistent(moderator, () => guest.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-ev'] }), WITH_SUBSCRIBERS);
  const lost = await expectConsistent(member, () => member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['U-ev-priv'] }), WITH_SUBSCRIBERS);
  assert.equal(lost.map((e) => [e.type, e.op]), [['subscription', 'remove'], ['stream', 'delete']]);
  const state = await registerState(member, { types: ['subscription'] });
  assert.ok(state.unsubscribed.some((s: { name: string }) => s.name === 'U-ev'));
  assert.not.ok(state.unsubscribed.some((s: { name: string }) => s.name === 'U-ev-priv'));
});

const props = suite('subscription settings');

props('one property at a time (endpoint 12)', async () => {
  const { owner, member } = cast;
  const id = await createChannel(owner, 'P-1', { others: [member] });
  const set = (property: string, value: string | boolean) => member.patch(`/api/v1/users/me/subscriptions/${id}`, { property, value });
  const muted = await expectConsistent(member, () => set('is_muted', true), { types: ['subscription'] });
  assert.equal(muted.map((e) => [e.property, e.value]), [['is_muted', true], ['in_home_view', false]]);
  const home = await expectConsistent(member, () => set('in_home_view', true), { types: ['subscription'] });
  assert.equal(home.map((e) => [e.property, e.value]), [['is_muted', false], ['in_home_view', true]]);
  await expectConsistent(member, () => set('color', '#123abc'), { types: ['subscription'] });
  await expectConsistent(member, () => set('desktop_notifications', true), { types: ['subscription'], registerParams: { client_capabilities: { notification_settings_null: true } } });
  await expectConsistent(member, () => set('pin_to_top', true), { types: ['subscription'] });
  assertError(await set('color', 'blue'), 'color is not a valid hex color code');
  assertError(await set('pin_to_top', 'maybe'), 'pin_to_top is not a boolean');
  assertError(await set('volume', true), 'Unknown subscription property: volume');
  assertError(await cast.moderator.patch(`/api/v1/users/me/subscriptions/${id}`, { property: 'is_muted', value: true }), `Not subscribed to channel ID ${id}`);
  assertError(await member.patch('/api/v1/users/me/subscriptions/999999', { property: 'is_muted', value: true }), 'Invalid channel ID');
  assertError(await member.patch(`/api/v1/users/me/subscriptions/${id}`, { property: 'is_muted' }), "Missing 'value' argument");
});

props('several at once (bulk endpoint)', async () => {
  const { owner, member } = cast;
  const a = await createChannel(owner, 'P-2', { others: [member] });
  const b = await createChannel(owner, 'P-3', { others: [member] });
  const data = [
    { stream_id: a, property: 'is_muted', value: true },
    { stream_id: b, property: 'color', value: '#aabbcc' },
  ];
  let r: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    r = assertSuccess(await member.post('/api/v1/users/me/subscriptions/properties', { subscription_data: data }));
  }, { types: ['subscription'] });
  assert.equal(r.subscription_data, data);
  assertError(
    await member.post('/api/v1/users/me/subscriptions/properties', { subscription_data: [{ stream_id: a, property: 'is_muted' }] }),
    'Invalid subscription_data[0]["value"]',
  );
});

props('notification settings are null until set, or the user default for older clients', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'P-4', { others: [member] });
  const modern = await registerState(member, { types: ['subscription'], registerParams: { client_capabilities: { notification_settings_null: true } } });
  const legacy = await registerState(member, { types: ['subscription'] });
  const find = (s: Record<string, any>) => s.subscriptions.find((x: { name: string }) => x.name === 'P-4') as Record<string, unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.is(find(modern).desktop_notifications, null);
  assert.is(find(legacy).desktop_notifications, false);
  assert.is(find(legacy).wildcard_mentions_notify, true);
});

const lists = suite('register lists');

lists('subscriptions, unsubscribed and never_subscribed, with subscribers when asked', async () => {
  const { owner, member, admin } = cast;
  await createChannel(owner, 'R-in', { others: [member] });
  await createChannel(owner, 'R-out', { others: [member] });
  assertSuccess(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['R-out'] }));
  await createChannel(owner, 'R-never');
  await createChannel(owner, 'R-secret', { invite_only: true });
  const s = await registerState(member, { types: ['subscription'], registerParams: { include_subscribers: 'true' } });
  const names = (l: Array<{ name: string }>) => l.map((x) => x.name).filter((n) => n.startsWith('R-'));
  assert.equal(names(s.subscriptions), ['R-in']);
  assert.equal(names(s.unsubscribed), ['R-out']);
  assert.equal(names(s.never_subscribed), ['R-never']);
  assert.equal(s.subscriptions.find((x: { name: string }) => x.name === 'R-in').subscribers, [owner.id, member.id].sort((a, b) => a - b));
  assert.equal(s.unsubscribed[0].subscribers, [owner.id]);
  const plain = await registerState(member, { types: ['subscription'] });
  assert.not.ok('subscribers' in plain.subscriptions[0]);
  const partial = await registerState(member, { types: ['subscription'], registerParams: { include_subscribers: 'partial' } });
  assert.ok('subscribers' in partial.subscriptions[0], 'small channels get full lists');
  const adminView = await registerState(admin, { types: ['subscription'], registerParams: { include_subscribers: 'true' } });
  assert.equal(adminView.never_subscribed.find((x: { name: string }) => x.name === 'R-secret').subscribers, [owner.id]);
  const list = assertSuccess(await member.get('/api/v1/users/me/subscriptions', { include_subscribers: true }));
  assert.equal(names(list.subscriptions), ['R-in']);
  assert.ok(Array.isArray(list.subscriptions[0].subscribers));
});

lists('a guest outside can_access_all_users_group sees only users it shares a channel with', async () => {
  const { owner, guest } = cast;
  const members = realm.handle.state.systemGroupId('role:members');
  const { updateRealmSettings } = await import('../../src/store/realms.js');
  const settings = realm.handle.state.realm.settings;
  await updateRealmSettings(server.app.db, realm.id, { ...settings, groups: { ...settings.groups, can_access_all_users_group: members } });
  await realm.handle.reload();
  try {
    const stranger = await realm.createUser({ name: 'Stranger' });
    const friend = await realm.createUser({ name: 'Friend' });
    await createChannel(owner, 'G-shared', { others: [guest, friend] });
    const seen = async () =>
      (await registerState(guest, { types: ['realm_user'], registerParams: { client_capabilities: { user_list_incomplete: true } } })).realm_users.map(
        (u: { user_id: number }) => u.user_id,
      );
    const ids = await seen();
    assert.ok(ids.includes(friend.id));
    assert.ok(ids.includes(owner.id));
    assert.not.ok(ids.includes(stranger.id));
  } finally {
    await updateRealmSettings(server.app.db, realm.id, settings);
    await realm.handle.reload();
  }
});

const others = suite("another user's subscriptions");

others('each role sees which of its channels it may see, and whether the user follows one', async () => {
  const { owner, member } = cast;
  const target = await realm.createUser({ name: 'Tess Target' });
  const pub = await createChannel(owner, 'U-pub', { others: [target] });
  const secret = await createChannel(owner, 'U-secret', { invite_only: true, others: [target] });
  const shared = await createChannel(owner, 'U-shared', { invite_only: true, others: [target, member] });
  const elsewhere = await createChannel(owner, 'U-elsewhere');
  const mine = [pub, secret, shared, elsewhere];
  // Administrators see every channel's metadata; others the public ones and their own private ones.
  const visible: Record<(typeof ROLE_NAMES)[number], number[]> = {
    owner: [pub, secret, shared, elsewhere],
    admin: [pub, secret, shared, elsewhere],
    moderator: [pub, elsewhere],
    member: [pub, shared, elsewhere],
    guest: [],
    bot: [pub, elsewhere],
  };
  for (const role of ROLE_NAMES) {
    const listed = assertSuccess(await cast[role].get(`/api/v1/users/${target.id}/channels`)).subscribed_channel_ids as number[];
    assert.equal(listed.filter((id) => mine.includes(id)), visible[role].filter((id) => id !== elsewhere), role);
    assert.equal(listed, [...listed].sort((a, b) => a - b), `${role}: in id order`);
    for (const id of mine) {
      const r = await cast[role].get(`/api/v1/users/${target.id}/subscriptions/${id}`);
      if (visible[role].includes(id)) assert.is(assertSuccess(r).is_subscribed, id !== elsewhere, `${role}, channel ${id}`);
      else assertError(r, 'Invalid channel ID');
    }
  }
  // A bot's subscriptions too; nobody's, or a deactivated user's, are refused.
  assert.is(assertSuccess(await member.get(`/api/v1/users/${cast.bot.id}/subscriptions/${pub}`)).is_subscribed, false);
  assertError(await member.get(`/api/v1/users/999999/channels`), 'No such user');
  assertError(await member.get(`/api/v1/users/999999/subscriptions/${pub}`), 'No such user');
  assertError(await member.get(`/api/v1/users/${target.id}/subscriptions/999999`), 'Invalid channel ID');
  await realm.handle.ask('user.setActive', { userId: target.id, active: false, actorId: null });
  assertError(await member.get(`/api/v1/users/${target.id}/channels`), 'User is deactivated');
});

others.after(async () => {
  await server.close();
});

sub.run();
unsub.run();
props.run();
lists.run();
others.run();
