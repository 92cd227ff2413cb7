// Video calls (endpoint 22) with and without a configured meeting server, has_videocall_token in
// register and its event, and push_notifications_enabled with a push service (endpoint 23).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let plain: TestServer;
let configured: TestServer;

const none = suite('without a meeting server or push service');
none.before(async () => {
  plain = await startTestServer();
});

none('creating a call is a clear error; nobody has the token; no push', async () => {
  const realm = await plain.createRealm();
  const member = await realm.createUser();
  assertError(await member.post('/api/v1/calls/videocall/create'), 'Video calls are not configured on this server.');
  assert.is(assertSuccess(await member.post('/api/v1/register', { fetch_event_types: [] })).has_videocall_token, false);
  assert.is(assertSuccess(await plain.request('GET', '/api/v1/server_settings')).push_notifications_enabled, false);
  assert.is(assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm'] })).realm_push_notifications_enabled, false);
});

none.after(async () => {
  await plain.close();
});

const withServer = suite('with a meeting server and a push service');
withServer.before(async () => {
  configured = await startTestServer({ env: { VIDEOCALL_URL: 'https://meet.example.com/rooms/', PUSH_SERVICE_URL: 'https://push.example.com' } });
});

withServer('members and above create rooms under the configured URL; guests and bots as their role allows', async () => {
  const realm = await configured.createRealm();
  const users = {
    owner: realm.owner,
    admin: await realm.createUser({ role: Role.administrator }),
    moderator: await realm.createUser({ role: Role.moderator }),
    member: await realm.createUser(),
    bot: await realm.createUser({ bot: true }),
  };
  const urls = new Set<string>();
  for (const [name, u] of Object.entries(users)) {
    const body = assertSuccess(await u.post('/api/v1/calls/videocall/create'));
    assert.match(body.url, /^https:\/\/meet\.example\.com\/rooms\/[a-z0-9]{20}$/, name);
    urls.add(body.url);
    assert.is(assertSuccess(await u.post('/api/v1/register', { fetch_event_types: [] })).has_videocall_token, true, name);
  }
  assert.is(urls.size, 5, 'every call is a new room');
  const guest = await realm.createUser({ role: Role.guest });
  assertError(await guest.post('/api/v1/calls/videocall/create'), 'Not allowed for guest users');
  assert.is(assertSuccess(await guest.post('/api/v1/register', { fetch_event_types: [] })).has_videocall_token, false);
  assertError(await realm.anonymous('POST', '/api/v1/calls/videocall/create'), 'Not logged in: API authentication or user session required', 401);
});

withServer('has_videocall_token follows role changes to and from guest', async () => {
  const realm = await configured.createRealm();
  const guest = await realm.createUser({ role: Role.guest });
  const types = { types: ['has_videocall_token'] };
  const events = await expectConsistent(guest, () => realm.owner.patch(`/api/v1/users/${guest.id}`, { role: Role.member }), types);
  assert.equal(events.map((e) => e.value), [true]);
  assert.equal(await expectConsistent(guest, () => realm.owner.patch(`/api/v1/users/${guest.id}`, { role: Role.moderator }), types), []);
  const back = await expectConsistent(guest, () => realm.owner.patch(`/api/v1/users/${guest.id}`, { role: Role.guest }), types);
  assert.equal(back.map((e) => e.value), [false]);
});

withServer('push_notifications_enabled reports the push service', async () => {
  const realm = await configured.createRealm();
  assert.is(assertSuccess(await configured.request('GET', '/api/v1/server_settings', {}, { host: realm.host })).push_notifications_enabled, true);
  assert.is(assertSuccess(await realm.owner.post('/api/v1/register', { fetch_event_types: ['realm'] })).realm_push_notifications_enabled, true);
});

withServer.after(async () => {
  await configured.close();
});

none.run();
withServer.run();
