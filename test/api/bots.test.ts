// Bots: creation and its permissions, API keys, renaming, re-owning, deactivation, realm_bots.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { everyRole } from '../helpers/people.js';
import { basic, startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let other: TestUser;
let guest: TestUser;
let bot: TestUser;

const create = suite('POST /bots');
create.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest } = await everyRole(realm));
  other = await realm.createUser({ name: 'Otto' });
  bot = await realm.createUser({ bot: true, botOwnerId: member.id });
});

create('a member creates a bot that authenticates with the returned key', async () => {
  let created: Record<string, unknown> = {};
  const events = await expectConsistent(
    member,
    async () => {
      created = assertSuccess(await member.post('/api/v1/bots', { full_name: 'Helper', short_name: 'helper' }));
    },
    { types: ['realm_user', 'realm_bot'] },
  );
  assert.equal(Object.keys(created).sort(), [
    'api_key', 'avatar_url', 'default_all_public_streams', 'default_events_register_stream', 'default_sending_stream', 'msg', 'result', 'user_id',
  ]);
  const email = `helper-bot@${realm.host.replace(/:\d+$/, '')}`;
  assert.ok(events.some((e) => e.type === 'realm_bot' && e.op === 'add' && e.bot.email === email && e.bot.owner_id === member.id));
  assert.ok(events.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.is_bot === true && e.person.bot_owner_id === member.id));
  const me = assertSuccess(await server.request('GET', '/api/v1/users/me', {}, { host: realm.host, auth: basic(email, created.api_key as string) }));
  assert.is(me.is_bot, true);
  assert.is(me.full_name, 'Helper');
});

create('guests and bots may not create bots; names are checked', async () => {
  assertError(await guest.post('/api/v1/bots', { full_name: 'G', short_name: 'gbot' }), 'Not allowed for guest users');
  assertError(await bot.post('/api/v1/bots', { full_name: 'B', short_name: 'bbot' }), 'This endpoint does not accept bot requests.');
  assertError(await member.post('/api/v1/bots', { full_name: 'Dup', short_name: 'helper' }), 'Username already in use');
  assertError(await member.post('/api/v1/bots', { full_name: 'Bad', short_name: 'no spaces' }), 'Bad name or username');
  assertError(await member.post('/api/v1/bots', { full_name: 'T', short_name: 'typed', bot_type: 3 }), 'Invalid bot type');
  assertError(await member.post('/api/v1/bots', { short_name: 'x' }), "Missing 'full_name' argument");
});

create('can_create_bots_group and can_create_write_only_bots_group', async () => {
  await realm.setGroupSetting('can_create_bots_group', 'role:moderators');
  await realm.setGroupSetting('can_create_write_only_bots_group', 'role:members');
  assertError(await member.post('/api/v1/bots', { full_name: 'G1', short_name: 'generic1' }), 'Insufficient permission');
  assertSuccess(await member.post('/api/v1/bots', { full_name: 'W1', short_name: 'webhook1', bot_type: 2 }));
  assertSuccess(await moderator.post('/api/v1/bots', { full_name: 'G2', short_name: 'generic2' }));
  await realm.setGroupSetting('can_create_write_only_bots_group', 'role:administrators');
  assertError(await member.post('/api/v1/bots', { full_name: 'W2', short_name: 'webhook2', bot_type: 2 }), 'Insufficient permission');
  assertSuccess(await admin.post('/api/v1/bots', { full_name: 'W3', short_name: 'webhook3', bot_type: 2 }));
  await realm.setGroupSetting('can_create_bots_group', 'role:members');
});

const manage = suite('managing bots');

manage('GET /bots/{id}/api_key: the owner and administrators', async () => {
  const key = assertSuccess(await member.get(`/api/v1/bots/${bot.id}/api_key`)).api_key;
  assert.is(key, bot.apiKey);
  assert.is(assertSuccess(await admin.get(`/api/v1/bots/${bot.id}/api_key`)).api_key, bot.apiKey);
  for (const u of [moderator, other, guest]) assertError(await u.get(`/api/v1/bots/${bot.id}/api_key`), 'No such bot');
  assertError(await admin.get(`/api/v1/bots/${member.id}/api_key`), 'No such bot');
  assertError(await admin.get('/api/v1/bots/999999/api_key'), 'No such bot');
});

manage('register realm_bots: own bots, or every bot for administrators', async () => {
  const mine = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm_bot'] }));
  assert.ok(mine.realm_bots.every((b: { owner_id: number }) => b.owner_id === member.id));
  const b = mine.realm_bots.find((x: { user_id: number }) => x.user_id === bot.id);
  assert.is(b.api_key, bot.apiKey);
  assert.is(b.is_active, true);
  assert.equal(b.services, []);
  const all = assertSuccess(await admin.post('/api/v1/register', { fetch_event_types: ['realm_bot'] }));
  assert.ok(all.realm_bots.length > mine.realm_bots.length);
  const none = assertSuccess(await other.post('/api/v1/register', { fetch_event_types: ['realm_bot'] }));
  assert.equal(none.realm_bots, []);
});

manage('PATCH /bots/{id}: rename and re-own, seen by owners and administrators', async () => {
  const b = await realm.createUser({ bot: true, botOwnerId: member.id, name: 'Owned' });
  assertError(await other.patch(`/api/v1/bots/${b.id}`, { full_name: 'Nope' }), 'No such bot');
  await expectConsistent(member, () => member.patch(`/api/v1/bots/${b.id}`, { full_name: 'Renamed' }), { types: ['realm_bot', 'realm_user'] });
  assert.is(realm.handle.state.user(b.id)!.full_name, 'Renamed');
  assertError(await member.patch(`/api/v1/bots/${b.id}`, { bot_owner_id: 999999 }), 'Failed to change owner, no such user');
  assertError(await member.patch(`/api/v1/bots/${b.id}`, { bot_owner_id: bot.id }), "Failed to change owner, bots can't own other bots");
  // The old owner loses the bot, the new one gains it, administrators see the new owner.
  for (const viewer of [member, other, admin]) {
    const owner = realm.handle.state.user(b.id)!.bot_owner_id === member.id ? other : member;
    await expectConsistent(viewer, () => admin.patch(`/api/v1/bots/${b.id}`, { bot_owner_id: owner.id }), { types: ['realm_bot', 'realm_user'] });
  }
  assertSuccess(await other.get(`/api/v1/bots/${b.id}/api_key`));
});

manage('regenerating a key and deactivating a bot', async () => {
  const b = await realm.createUser({ bot: true, botOwnerId: member.id });
  // The old key authenticates first (the server remembers headers that matched): it must still
  // stop working the moment a new key is made.
  assertSuccess(await b.get('/api/v1/users/me'));
  let key = '';
  await expectConsistent(member, async () => {
    key = assertSuccess(await member.post(`/api/v1/bots/${b.id}/api_key/regenerate`)).api_key;
  }, { types: ['realm_bot'] });
  assert.is.not(key, b.apiKey);
  assertError(await b.get('/api/v1/users/me'), 'Invalid API key', 401);
  await expectConsistent(admin, () => member.delete(`/api/v1/bots/${b.id}`), { types: ['realm_bot', 'realm_user'] });
  assert.is(realm.handle.state.user(b.id)!.is_active, false);
  assertError(await other.delete(`/api/v1/bots/${bot.id}`), 'No such bot');
});

manage.after(async () => {
  await server.close();
});

create.run();
manage.run();
