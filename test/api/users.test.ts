// Users: GET /users, /users/{id|email}, /users/me; administrators updating accounts (endpoints 2
// and 7: roles and the owner rules, names, new_email); creation; deactivation and reactivation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { createChannel, topicLog, welcomeMessagesTo } from '../helpers/messaging.js';
import { everyRole, type EveryRole } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;

type Roles = EveryRole;

const hide = (u: TestUser, visibility: number) => u.patch('/api/v1/settings', { email_address_visibility: visibility });

// ---------------------------------------------------------------------------------------------
const reads = suite('GET /users and one user');
let realm: TestRealm;
let r: Roles;

reads.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  r = await everyRole(realm);
});

reads('GET /users lists every account with the user object fields', async () => {
  const body = assertSuccess(await r.member.get('/api/v1/users'));
  const ids = body.members.map((m: { user_id: number }) => m.user_id).sort((a: number, b: number) => a - b);
  assert.equal(ids, Object.values(r).map((u) => u.id).sort((a, b) => a - b));
  const admin = body.members.find((m: { user_id: number }) => m.user_id === r.admin.id);
  assert.equal(Object.keys(admin).sort(), [
    'avatar_url', 'avatar_version', 'bot_type', 'date_joined', 'delivery_email', 'email', 'full_name', 'is_active',
    'is_admin', 'is_bot', 'is_guest', 'is_imported_stub', 'is_owner', 'role', 'timezone', 'user_id',
  ]);
  assert.is(admin.role, 200);
  assert.is(admin.is_admin, true);
  assert.is(admin.is_owner, false);
  assert.is(admin.avatar_url, null, 'client_extavatar defaults to true');
  assert.match(admin.date_joined, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  const bot = body.members.find((m: { user_id: number }) => m.user_id === r.bot.id);
  assert.is(bot.bot_owner_id, realm.owner.id);
  assert.is(bot.bot_type, 1);
});

reads('client_extavatar=false gives URLs; include_custom_profile_fields adds profile_data to humans', async () => {
  const body = assertSuccess(await r.member.get('/api/v1/users', { client_extavatar: false, include_custom_profile_fields: true }));
  for (const m of body.members) {
    assert.match(m.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
    assert.is('profile_data' in m, !m.is_bot);
  }
  const plain = assertSuccess(await r.member.get('/api/v1/users'));
  assert.not.ok(plain.members.some((m: object) => 'profile_data' in m));
});

reads('user_ids limits the result; bad values are refused', async () => {
  const body = assertSuccess(await r.member.get('/api/v1/users', { user_ids: [r.admin.id, r.guest.id, 999999] }));
  assert.equal(body.members.map((m: { user_id: number }) => m.user_id).sort(), [r.admin.id, r.guest.id].sort());
  assertError(await r.member.get('/api/v1/users', { user_ids: '[1, "x"]' }), 'user_ids[1] is not an integer');
  assertError(await r.member.get('/api/v1/users', { user_ids: 'x' }), 'Argument "user_ids" is not valid JSON.');
});

reads('deactivated accounts are listed with is_active false', async () => {
  const gone = await realm.createUser({ name: 'Gone Soon' });
  assertSuccess(await realm.owner.delete(`/api/v1/users/${gone.id}`));
  const body = assertSuccess(await r.member.get('/api/v1/users'));
  assert.is(body.members.find((m: { user_id: number }) => m.user_id === gone.id).is_active, false);
});

reads('unauthenticated GET /users needs the public-access option', async () => {
  const open = await server.createRealm();
  assertError(await open.anonymous('GET', '/api/v1/users'), 'Not logged in: API authentication or user session required', 401);
  await open.updateSettings({ enable_spectator_access: true });
  const body = assertSuccess(await open.anonymous('GET', '/api/v1/users'));
  assert.equal(body.members.map((m: { user_id: number }) => m.user_id), [open.owner.id]);
  assert.is(body.members[0].delivery_email, null, 'spectators never see real addresses');
});

reads('guests outside can_access_all_users_group see only themselves and bots', async () => {
  const closed = await server.createRealm();
  const guest = await closed.createUser({ role: Role.guest });
  const member = await closed.createUser();
  const bot = await closed.createUser({ bot: true, botOwnerId: member.id });
  await closed.setGroupSetting('can_access_all_users_group', 'role:members');
  const body = assertSuccess(await guest.get('/api/v1/users'));
  assert.equal(body.members.map((m: { user_id: number }) => m.user_id).sort(), [guest.id, bot.id].sort());
  assertError(await guest.get(`/api/v1/users/${member.id}`), 'Insufficient permission');
  assertSuccess(await member.get(`/api/v1/users/${guest.id}`));
  const reg = assertSuccess(await guest.post('/api/v1/register', { fetch_event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } }));
  assert.equal(reg.realm_users.map((m: { user_id: number }) => m.user_id).sort(), [guest.id, bot.id].sort());
  const legacy = assertSuccess(await guest.post('/api/v1/register', { fetch_event_types: ['realm_user'] }));
  const stub = legacy.realm_users.find((m: { user_id: number }) => m.user_id === member.id);
  assert.is(stub.full_name, 'Unknown user');
  assert.is(stub.email, `user${member.id}@${closed.host}`, 'nothing of the real account but its id');
  assert.is(stub.delivery_email, null);
});

reads('spectators see no more users than guests do', async () => {
  // A spectator outranked by nobody: with guests limited to the users they share something with,
  // an anonymous request must not list everyone (it did: the check applied to logged-in users only).
  const closed = await server.createRealm();
  const member = await closed.createUser({ name: 'Private Person' });
  const bot = await closed.createUser({ bot: true, botOwnerId: member.id });
  await closed.updateSettings({ enable_spectator_access: true });
  await closed.setGroupSetting('can_access_all_users_group', 'role:members');
  const ids = (body: Record<string, any>) => body.members.map((m: { user_id: number }) => m.user_id); // eslint-disable-line @typescript-eslint/no-explicit-any
  const limited = assertSuccess(await closed.anonymous('GET', '/api/v1/users', { include_custom_profile_fields: true }));
  assert.equal(ids(limited), [bot.id]);
  assert.not.ok(JSON.stringify(limited).includes('Private Person'));
  // The avatar redirect: the neutral picture a guest gets, not the one the owner sees.
  const guest = await closed.createUser({ role: Role.guest });
  const where = async (r: Promise<{ status: number; headers: Readonly<Record<string, string>> }>) => {
    const res = await r;
    assert.is(res.status, 302);
    return res.headers.Location;
  };
  const neutral = await where(guest.get(`/avatar/${member.id}`));
  assert.is.not(await where(closed.owner.get(`/avatar/${member.id}`)), neutral);
  assert.is(await where(closed.anonymous('GET', `/avatar/${member.id}`)), neutral);
  await closed.setGroupSetting('can_access_all_users_group', 'role:everyone');
  const open = assertSuccess(await closed.anonymous('GET', '/api/v1/users'));
  assert.equal(ids(open).sort(), [closed.owner.id, member.id, bot.id, guest.id].sort());
});

reads('GET /users/{id}: one user, or No such user', async () => {
  const body = assertSuccess(await r.member.get(`/api/v1/users/${r.admin.id}`));
  assert.is(body.user.user_id, r.admin.id);
  assert.is(body.user.full_name, 'Ada Admin');
  assert.not.ok('profile_data' in body.user);
  const withProfile = assertSuccess(await r.member.get(`/api/v1/users/${r.admin.id}`, { include_custom_profile_fields: true }));
  assert.equal(withProfile.user.profile_data, {});
  assertError(await r.member.get('/api/v1/users/999999'), 'No such user');
  assertSuccess(await r.member.get(`/api/v1/users/${r.bot.id}`));
});

reads('GET /users/{email}: real address when visible, dummy address always', async () => {
  const hidden = await realm.createUser({ email: 'hidden@example.com', name: 'Hidden' });
  assertSuccess(await hide(hidden, 3));
  const dummy = `user${hidden.id}@${realm.host}`;
  assert.is(assertSuccess(await r.member.get(`/api/v1/users/${dummy}`)).user.user_id, hidden.id);
  assertError(await r.member.get('/api/v1/users/hidden@example.com'), 'No such user');
  const asAdmin = assertSuccess(await r.admin.get('/api/v1/users/hidden@example.com'));
  assert.is(asAdmin.user.user_id, hidden.id);
  assert.is(asAdmin.user.email, dummy);
  assert.is(asAdmin.user.delivery_email, 'hidden@example.com');
  assert.is(assertSuccess(await r.member.get(`/api/v1/users/${r.admin.email}`)).user.user_id, r.admin.id);
});

reads('GET /users/me: own account with real address, profile_data and max_message_id', async () => {
  const me = assertSuccess(await r.member.get('/api/v1/users/me'));
  assert.is(me.user_id, r.member.id);
  assert.is(me.delivery_email, r.member.email);
  assert.equal(me.profile_data, {});
  assert.is(me.max_message_id, -1);
  assert.match(me.avatar_url, /^https:\/\//);
  const bot = assertSuccess(await r.bot.get('/api/v1/users/me'));
  assert.not.ok('profile_data' in bot);
});

// ---------------------------------------------------------------------------------------------
const update = suite('PATCH /users/{id} (endpoint 7) and /users/{email} (endpoint 2)');
let ur: TestRealm;
let u: Roles;

update.before(async () => {
  ur = await server.createRealm();
  u = await everyRole(ur);
});

update('only administrators may update users', async () => {
  const target = await ur.createUser({ name: 'Target' });
  for (const who of ['moderator', 'member', 'guest', 'bot'] as const) {
    assertError(await u[who].patch(`/api/v1/users/${target.id}`, { full_name: 'X' }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  for (const [who, name] of [['owner', 'Renamed By Owner'], ['admin', 'Renamed By Admin']] as const) {
    assertSuccess(await u[who].patch(`/api/v1/users/${target.id}`, { full_name: name }));
    assert.is(ur.handle.state.user(target.id)!.full_name, name);
  }
  assertError(await u.admin.patch('/api/v1/users/999999', { full_name: 'X' }), 'No such user');
});

update('a name change reaches every client', async () => {
  const target = await ur.createUser({ name: 'Old Name' });
  const events = await expectConsistent(u.member, () => u.admin.patch(`/api/v1/users/${target.id}`, { full_name: '  New Name ' }), {
    types: ['realm_user'],
  });
  assert.equal(events.map((e) => e.person), [{ user_id: target.id, full_name: 'New Name' }]);
  // A blank name is ignored; a too-long one is refused.
  assertSuccess(await u.admin.patch(`/api/v1/users/${target.id}`, { full_name: '   ' }));
  assert.is(ur.handle.state.user(target.id)!.full_name, 'New Name');
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { full_name: 'x'.repeat(101) }), 'Name too long!');
});

update('role changes: codes, owner rules, the only owner', async () => {
  const target = await ur.createUser({ name: 'Climber' });
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { role: 250 }), 'Invalid role');
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { role: 'x' }), 'role is not an integer');
  for (const role of [Role.moderator, Role.administrator, Role.guest, Role.member]) {
    assertSuccess(await u.admin.patch(`/api/v1/users/${target.id}`, { role }));
    assert.is(ur.handle.state.user(target.id)!.role, role);
  }
  // Only owners add or remove the owner role.
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { role: Role.owner }), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertSuccess(await u.owner.patch(`/api/v1/users/${target.id}`, { role: Role.owner }));
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { role: Role.member }), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertSuccess(await u.owner.patch(`/api/v1/users/${target.id}`, { role: Role.member }));
  // The owner role cannot be removed from the only owner.
  assertError(
    await u.owner.patch(`/api/v1/users/${u.owner.id}`, { role: Role.administrator }),
    'The owner permission cannot be removed from the only organization owner.',
  );
  // Bots cannot be owners.
  assertError(await u.owner.patch(`/api/v1/users/${u.bot.id}`, { role: Role.owner }), 'Bots cannot be organization owners');
});

update('guests cannot be administrators (legacy is_admin/is_guest form)', async () => {
  const target = await ur.createUser();
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { is_admin: true, is_guest: true }), 'Guests cannot be organization administrators');
  assertSuccess(await u.admin.patch(`/api/v1/users/${target.id}`, { is_guest: true }));
  assert.is(ur.handle.state.user(target.id)!.role, Role.guest);
  assertSuccess(await u.admin.patch(`/api/v1/users/${target.id}`, { is_admin: true }));
  assert.is(ur.handle.state.user(target.id)!.role, Role.administrator);
  assertSuccess(await u.admin.patch(`/api/v1/users/${target.id}`, { is_admin: false }));
  assert.is(ur.handle.state.user(target.id)!.role, Role.member);
});

update('a role change updates every client, and what the user may now see', async () => {
  const hidden = await ur.createUser({ email: 'adminsonly@example.com' });
  assertSuccess(await hide(hidden, 3));
  const target = await ur.createUser();
  const events = await expectConsistent(target, () => u.owner.patch(`/api/v1/users/${target.id}`, { role: Role.administrator }), {
    types: ['realm_user'],
  });
  assert.ok(events.some((e) => e.person.role === Role.administrator));
  assert.ok(events.some((e) => e.person.user_id === hidden.id && e.person.delivery_email === 'adminsonly@example.com'));
  const back = await expectConsistent(target, () => u.owner.patch(`/api/v1/users/${target.id}`, { role: Role.member }), {
    types: ['realm_user'],
  });
  assert.ok(back.some((e) => e.person.user_id === hidden.id && e.person.delivery_email === null));
  await expectConsistent(u.member, () => u.owner.patch(`/api/v1/users/${target.id}`, { role: Role.moderator }), { types: ['realm_user'] });
});

update('new_email needs an owner with can_change_user_emails', async () => {
  const target = await ur.createUser({ email: 'before@example.com' });
  assertError(await u.owner.patch(`/api/v1/users/${target.id}`, { new_email: 'after@example.com' }), 'User not authorized to change user emails');
  await ur.handle.ask('user.setSpecialPermissions', { userId: u.admin.id, canChangeUserEmails: true });
  assertError(await u.admin.patch(`/api/v1/users/${target.id}`, { new_email: 'after@example.com' }), 'User not authorized to change user emails');
  await ur.handle.ask('user.setSpecialPermissions', { userId: u.owner.id, canChangeUserEmails: true });
  assertError(await u.owner.patch(`/api/v1/users/${target.id}`, { new_email: 'not an email' }), "Invalid email 'not an email'");
  assertError(await u.owner.patch(`/api/v1/users/${target.id}`, { new_email: u.member.email }), `Email '${u.member.email}' already in use`);
  const events = await expectConsistent(u.member, () => u.owner.patch(`/api/v1/users/${target.id}`, { new_email: 'after@example.com' }), {
    types: ['realm_user'],
  });
  assert.ok(events.some((e) => e.person.new_email === 'after@example.com'));
  assert.ok(events.some((e) => e.person.delivery_email === 'after@example.com'));
  assert.is(ur.handle.state.user(target.id)!.delivery_email, 'after@example.com');
  // The account still authenticates with its API key, under the new address.
  assertSuccess(await target.get('/api/v1/users/me', {}, { auth: `Basic ${Buffer.from(`after@example.com:${target.apiKey}`).toString('base64')}` }));
  await ur.handle.ask('user.setSpecialPermissions', { userId: u.owner.id, canChangeUserEmails: false });
});

update('PATCH /users/{email}: the dummy address always, the real one only when visible', async () => {
  const hidden = await ur.createUser({ email: 'secret@example.com', name: 'Secret' });
  assertSuccess(await hide(hidden, 4)); // nobody
  assertError(await u.admin.patch('/api/v1/users/secret@example.com', { full_name: 'X' }), 'No such user');
  assertSuccess(await u.admin.patch(`/api/v1/users/user${hidden.id}@${ur.host}`, { full_name: 'Via Dummy' }));
  assert.is(ur.handle.state.user(hidden.id)!.full_name, 'Via Dummy');
  const visible = await ur.createUser({ email: 'open@example.com' });
  assertSuccess(await u.admin.patch('/api/v1/users/open@example.com', { role: Role.moderator }));
  assert.is(ur.handle.state.user(visible.id)!.role, Role.moderator);
  assertError(await u.member.patch('/api/v1/users/open@example.com', { role: Role.member }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
});

// ---------------------------------------------------------------------------------------------
const lifecycle = suite('POST /users, DELETE /users/{id}, reactivate, DELETE /users/me');
let lr: TestRealm;
let l: Roles;

lifecycle.before(async () => {
  lr = await server.createRealm();
  l = await everyRole(lr);
});

lifecycle('POST /users needs the can_create_users permission', async () => {
  const params = { email: 'new1@example.com', password: 'correct horse', full_name: 'New One' };
  for (const who of Object.keys(l) as Array<keyof Roles>) {
    assertError(await l[who].post('/api/v1/users', params), 'User not authorized for this query');
  }
  await lr.handle.ask('user.setSpecialPermissions', { userId: l.admin.id, canCreateUsers: true });
  const events = await expectConsistent(l.member, async () => {
    const body = assertSuccess(await l.admin.post('/api/v1/users', params));
    assert.type(body.user_id, 'number');
  }, { types: ['realm_user'] });
  assert.is(events[0]!.op, 'add');
  assert.is(events[0]!.person.full_name, 'New One');
  assertError(await l.admin.post('/api/v1/users', params), "Email 'new1@example.com' already in use");
  assertError(await l.admin.post('/api/v1/users', { ...params, email: 'new2@example.com', password: 'abc' }), 'The password is too weak.');
  assertError(await l.admin.post('/api/v1/users', { email: 'new3@example.com', full_name: 'X' }), "Missing 'password' argument");
  const login = assertSuccess(await lr.anonymous('POST', '/api/v1/fetch_api_key', { username: 'new1@example.com', password: 'correct horse' }));
  assert.type(login.api_key, 'string');
});

lifecycle('POST /users makes a member of the default channels, welcomed by Welcome Bot and announced in the sign-up channel', async () => {
  const { owner, admin, member } = l;
  await lr.handle.ask('user.setSpecialPermissions', { userId: admin.id, canCreateUsers: true });
  const lobby = await createChannel(owner, 'joiners-lobby', { others: [member] });
  const signups = await createChannel(owner, 'joiners-signups');
  await createChannel(owner, 'joiners-elsewhere');
  assertSuccess(await owner.post('/api/v1/default_streams', { stream_id: lobby }));
  await lr.updateSettings({ signup_announcements_stream_id: signups, welcome_message_custom_text: 'Welcome to **us**.' });
  try {
    let id = 0;
    const seen = await expectConsistent(member, async () => {
      id = assertSuccess(await admin.post('/api/v1/users', { email: 'joiner@example.com', password: 'correct horse', full_name: 'Jo Joiner' })).user_id;
    }, { types: ['realm_user', 'subscription', 'stream'], registerParams: { include_subscribers: true } });
    assert.equal(seen.filter((e) => e.type === 'subscription').map((e) => [e.op, e.stream_ids, e.user_ids]), [['peer_add', [lobby], [id]]]);
    assert.equal(assertSuccess(await member.get(`/api/v1/streams/${lobby}/members`)).subscribers.includes(id), true, 'in the default channel');
    assert.is(lr.handle.state.user(id)!.role, Role.member);
    assert.equal([...lr.handle.state.channels.subscriptionsOf(id)], [lobby], 'and in no other');
    assert.equal(await topicLog(owner, signups, 'signups'), [`Notification Bot: @_**Jo Joiner|${id}** joined this organization.`]);
    assert.equal(await welcomeMessagesTo(server, id), ['Welcome to **us**.']);
  } finally {
    await lr.updateSettings({ signup_announcements_stream_id: -1, welcome_message_custom_text: '' });
  }
});

lifecycle('DELETE /users/{id}: administrators only; owners need an owner', async () => {
  const target = await lr.createUser();
  for (const who of ['moderator', 'member', 'guest', 'bot'] as const) {
    assertError(await l[who].delete(`/api/v1/users/${target.id}`), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  const owner2 = await lr.createUser({ role: Role.owner });
  assertError(await l.admin.delete(`/api/v1/users/${owner2.id}`), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertError(await l.admin.delete(`/api/v1/users/${l.bot.id}`), 'No such user');
  assertError(await l.admin.delete('/api/v1/users/999999'), 'No such user');
  assertSuccess(await l.owner.delete(`/api/v1/users/${owner2.id}`));
  assertError(await l.owner.delete(`/api/v1/users/${l.owner.id}`), 'Cannot deactivate the only organization owner', 400, 'BAD_REQUEST');
  assertSuccess(await l.admin.delete(`/api/v1/users/${target.id}`));
  assertError(await l.admin.delete(`/api/v1/users/${target.id}`), 'User is deactivated');
});

lifecycle('deactivation moves the user to realm_non_active_users, with their bots, and cuts them off', async () => {
  const target = await lr.createUser({ name: 'Leaving' });
  const bot = await lr.createUser({ bot: true, botOwnerId: target.id });
  const events = await expectConsistent(l.admin, () => l.admin.delete(`/api/v1/users/${target.id}`), { types: ['realm_user', 'realm_bot'] });
  assert.equal(
    events.filter((e) => e.type === 'realm_user').map((e) => e.person),
    [
      { user_id: bot.id, is_active: false },
      { user_id: target.id, is_active: false },
    ],
  );
  assert.ok(events.some((e) => e.type === 'realm_bot' && e.bot.user_id === bot.id && e.bot.is_active === false));
  assertError(await target.get('/api/v1/users/me'), 'Account is deactivated', 401, 'USER_DEACTIVATED');
  assertError(await bot.get('/api/v1/users/me'), 'Account is deactivated', 401, 'USER_DEACTIVATED');
});

lifecycle("an account leaves its channels' subscriber lists on deactivation (archived ones too) and rejoins them on reactivation", async () => {
  const target = await lr.createUser({ name: 'Sub Scriber' });
  const bot = await lr.createUser({ bot: true, botOwnerId: target.id });
  const channels: number[] = [];
  for (const [name, extra] of [['peers-public', {}], ['peers-private', { invite_only: true }], ['peers-archived', {}]] as const) {
    channels.push(await createChannel(l.owner, name, { others: [l.member, target, bot], ...extra }));
  }
  assertSuccess(await l.owner.delete(`/api/v1/streams/${channels[2]}`));
  const params = {
    types: ['subscription', 'stream', 'realm_user'],
    registerParams: { include_subscribers: true, client_capabilities: { archived_channels: true } },
  };
  const peerEvents = (events: Array<Record<string, any>>) =>
    events.filter((e) => e.type === 'subscription').map((e) => [e.op, e.stream_ids, e.user_ids]);
  const gone = await expectConsistent(l.member, () => l.admin.delete(`/api/v1/users/${target.id}`), params);
  // The public channels (archived or not) in one event; a private channel's audience is its own.
  const [pub, priv, archived] = channels as [number, number, number];
  const both = [target.id, bot.id].sort((a, b) => a - b);
  assert.equal(peerEvents(gone), [['peer_remove', [pub, archived], both], ['peer_remove', [priv], both]]);
  const firstUserEvent = gone.findIndex((e) => e.type === 'realm_user');
  assert.ok(gone.findLastIndex((e) => e.type === 'subscription') < firstUserEvent, 'the subscriber lists change before the deactivation is told');
  const back = await expectConsistent(l.member, () => l.admin.post(`/api/v1/users/${target.id}/reactivate`), params);
  assert.equal(peerEvents(back), [['peer_add', [pub, archived], [target.id]], ['peer_add', [priv], [target.id]]], 'the bot stays deactivated');
  // The guest sees none of these channels' subscribers, and hears nothing of them.
  const guestSees = await expectConsistent(l.guest, () => l.admin.delete(`/api/v1/users/${target.id}`), params);
  assert.equal(peerEvents(guestSees), []);
});

lifecycle('POST /users/{id}/reactivate', async () => {
  const target = await lr.createUser();
  const bot = await lr.createUser({ bot: true, botOwnerId: target.id });
  assertSuccess(await l.admin.delete(`/api/v1/users/${target.id}`));
  assertError(await l.member.post(`/api/v1/users/${target.id}/reactivate`), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertError(await l.admin.post(`/api/v1/users/${bot.id}/reactivate`), 'Cannot reactivate a bot whose owner is deactivated.');
  await expectConsistent(l.member, () => l.admin.post(`/api/v1/users/${target.id}/reactivate`), { types: ['realm_user'] });
  assertSuccess(await target.get('/api/v1/users/me'));
  assertError(await l.admin.post(`/api/v1/users/${target.id}/reactivate`), 'User is already active');
  assertSuccess(await l.admin.post(`/api/v1/users/${bot.id}/reactivate`));
  assertSuccess(await bot.get('/api/v1/users/me'));
  const owner2 = await lr.createUser({ role: Role.owner });
  assertSuccess(await owner2.delete('/api/v1/users/me'));
  assertError(await l.admin.post(`/api/v1/users/${owner2.id}/reactivate`), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  assertSuccess(await l.owner.post(`/api/v1/users/${owner2.id}/reactivate`));
});

lifecycle('DELETE /users/me: the only owner and the only user cannot leave', async () => {
  const pair = await server.createRealm();
  await pair.createUser();
  const body = assertError(await pair.owner.delete('/api/v1/users/me'), 'Cannot deactivate the only organization owner', 400, 'CANNOT_DEACTIVATE_LAST_USER');
  assert.is(body.is_last_owner, true);
  assert.is(body.entity, 'organization owner');
  const solo = await server.createRealm();
  const only = assertError(await solo.owner.delete('/api/v1/users/me'), 'Cannot deactivate the only user.', 400, 'CANNOT_DEACTIVATE_LAST_USER');
  assert.is(only.is_last_owner, false);
  const leaver = await lr.createUser();
  await expectConsistent(l.member, () => leaver.delete('/api/v1/users/me'), { types: ['realm_user'] });
  assertError(await leaver.get('/api/v1/users/me'), 'Account is deactivated', 401, 'USER_DEACTIVATED');
});

lifecycle.after(async () => {
  await server.close();
});

reads.run();
update.run();
lifecycle.run();
