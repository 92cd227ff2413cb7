// Authentication: HTTP Basic with email and API key, every way it can fail, and fetch_api_key
// with its per-account and per-address rate limits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { Role } from '../../src/domain/roles.js';
import { hashPassword } from '../../src/domain/secrets.js';
import { setPasswordHash } from '../../src/store/users.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { basic, startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let other: TestRealm;
let member: TestUser;
const clock = new ManualClock(Date.UTC(2026, 5, 1));

const t = suite('basic authentication');
t.before(async () => {
  server = await startTestServer({ clock, env: { LOGIN_FAILURES_PER_USER: '5', LOGIN_FAILURES_PER_IP: '8' } });
  realm = await server.createRealm();
  other = await server.createRealm();
  member = await realm.createUser({ name: 'Mary Member' });
});

t('valid credentials reach the endpoint', async () => {
  const me = assertSuccess(await member.get('/api/v1/users/me'));
  assert.is(me.user_id, member.id);
  assert.is(me.email, member.email);
  assert.is(me.full_name, 'Mary Member');
  assert.is(me.role, Role.member);
  assert.is(me.is_admin, false);
  assert.is(me.max_message_id, -1);
});

t('a remembered header authenticates as the user the server has now, after any change of them', async () => {
  const u = await realm.createUser({ name: 'Before Rename' });
  assert.is(assertSuccess(await u.get('/api/v1/users/me')).full_name, 'Before Rename');
  assertSuccess(await u.patch('/api/v1/settings', { full_name: 'After Rename' }));
  // The same header again: checked anew against the replaced record, never the old one.
  for (let i = 0; i < 2; i++) assert.is(assertSuccess(await u.get('/api/v1/users/me')).full_name, 'After Rename');
  assert.is(realm.handle.state.user(u.id)!.full_name, 'After Rename');
});

t('the email is case-insensitive', async () => {
  const res = await member.get('/api/v1/users/me', {}, { auth: basic(member.email.toUpperCase(), member.apiKey) });
  assert.is(assertSuccess(res).user_id, member.id);
});

t('the API email and the real address both authenticate, in any case, again and again', async () => {
  const u = await realm.createUser();
  // Hidden from everyone: the API email becomes a dummy address, distinct from the real one.
  assertSuccess(await u.patch('/api/v1/settings', { email_address_visibility: 4 }));
  const apiEmail = realm.handle.state.user(u.id)!.email;
  assert.is.not(apiEmail.toLowerCase(), u.email.toLowerCase());
  for (const email of [u.email, u.email.toUpperCase(), apiEmail, apiEmail.toUpperCase()]) {
    // The second request finds the header among those that already matched.
    for (let i = 0; i < 2; i++) assert.is(assertSuccess(await u.get('/api/v1/users/me', {}, { auth: basic(email, u.apiKey) })).user_id, u.id, email);
  }
  // Shown again: the dummy address names nobody, remembered or not; the real address still works.
  assertSuccess(await u.patch('/api/v1/settings', { email_address_visibility: 1 }));
  assertError(await u.get('/api/v1/users/me', {}, { auth: basic(apiEmail, u.apiKey) }), 'Invalid API key', 401, 'INVALID_API_KEY');
  assert.is(assertSuccess(await u.get('/api/v1/users/me', {}, { auth: basic(u.email.toUpperCase(), u.apiKey) })).user_id, u.id);
});

t('missing credentials', async () => {
  const res = await realm.anonymous('GET', '/api/v1/users/me');
  assertError(res, 'Not logged in: API authentication or user session required', 401, 'UNAUTHORIZED');
  assert.is(res.headers['WWW-Authenticate'], 'Basic realm="parley"');
});

t('malformed authorization headers', async () => {
  for (const auth of ['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
    assertError(await member.get('/api/v1/users/me', {}, { auth }), 'Invalid authorization header for basic auth', 401, 'UNAUTHORIZED');
  }
});

t('wrong key and unknown email', async () => {
  assertError(await member.get('/api/v1/users/me', {}, { auth: basic(member.email, 'x'.repeat(32)) }), 'Invalid API key', 401, 'INVALID_API_KEY');
  assertError(await member.get('/api/v1/users/me', {}, { auth: basic('nobody@example.com', member.apiKey) }), 'Invalid API key', 401, 'INVALID_API_KEY');
});

t("another organization's key is refused", async () => {
  const res = await server.request('GET', '/api/v1/users/me', {}, { host: other.host, auth: member.auth });
  assertError(res, 'Invalid API key', 401, 'INVALID_API_KEY');
});

t('deactivated user', async () => {
  const u = await realm.createUser();
  assertSuccess(await u.get('/api/v1/users/me'));
  await realm.handle.ask('user.setActive', { userId: u.id, active: false, actorId: null });
  assertError(await u.get('/api/v1/users/me'), 'Account is deactivated', 401, 'USER_DEACTIVATED');
  await realm.handle.ask('user.setActive', { userId: u.id, active: true, actorId: null });
  assertSuccess(await u.get('/api/v1/users/me'));
});

t('deactivated organization: keys refused and queues ended at once; reactivation restores access', async () => {
  const r = await server.createRealm();
  const { queue_id } = assertSuccess(await r.owner.post('/api/v1/register', { fetch_event_types: [] }));
  const parked = r.owner.get('/api/v1/events', { queue_id });
  await new Promise((res) => setTimeout(res, 50));
  await r.handle.ask('realm.setActive', { active: false });
  assertError(await parked, `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
  assertError(await r.owner.get('/api/v1/users/me'), 'This organization is deactivated', 401, 'REALM_DEACTIVATED');
  assertError(await r.anonymous('POST', '/api/v1/fetch_api_key', { username: r.owner.email, password: 'x' }), 'Your username or password is incorrect', 401);
  await r.handle.ask('realm.setActive', { active: true });
  assertSuccess(await r.owner.get('/api/v1/users/me'));
  assertError(await r.owner.get('/api/v1/events', { queue_id, dont_block: true }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
});

const login = suite('fetch_api_key');
let password: string;
login.before(async () => {
  password = 'correct horse battery';
  await setPasswordHash(server.app.db, member.id, await hashPassword(password));
});
login.after(() => server.close()); // the last suite of this file closes the shared server

login('returns the existing key', async () => {
  const res = await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: member.email, password });
  const body = assertSuccess(res);
  assert.equal(body, { result: 'success', msg: '', api_key: member.apiKey, email: member.email, user_id: member.id });
});

login('wrong password and unknown user look the same', async () => {
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: member.email, password: 'nope' }), 'Your username or password is incorrect', 401, 'AUTHENTICATION_FAILED');
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: 'ghost@example.com', password: 'nope' }), 'Your username or password is incorrect', 401, 'AUTHENTICATION_FAILED');
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: member.email }), "Missing 'password' argument", 400, 'REQUEST_VARIABLE_MISSING');
});

login('failed logins are rate limited per account, with Retry-After', async () => {
  const target = await realm.createUser();
  await setPasswordHash(server.app.db, target.id, await hashPassword(password));
  for (let i = 0; i < 5; i++) {
    assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: target.email, password: 'bad' }), 'Your username or password is incorrect', 401);
  }
  // Now even the right password is refused until the window passes.
  const limited = await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: target.email, password });
  const body = assertError(limited, 'API usage exceeded rate limit', 429, 'RATE_LIMIT_HIT');
  assert.ok(body['retry-after'] > 0 && body['retry-after'] <= 1800, String(body['retry-after']));
  assert.is(limited.headers['Retry-After'], String(Math.ceil(body['retry-after'])));
  clock.advance(31 * 60 * 1000);
  assertSuccess(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: target.email, password }));
});

login('failed logins are rate limited per address across accounts', async () => {
  clock.advance(31 * 60 * 1000);
  for (let i = 0; i < 8; i++) {
    await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: `nobody${i}@example.com`, password: 'bad' });
  }
  const res = await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: member.email, password });
  assertError(res, 'API usage exceeded rate limit', 429, 'RATE_LIMIT_HIT');
  clock.advance(31 * 60 * 1000);
});

login('deactivated accounts cannot fetch a key', async () => {
  const u = await realm.createUser();
  await setPasswordHash(server.app.db, u.id, await hashPassword(password));
  await realm.handle.ask('user.setActive', { userId: u.id, active: false, actorId: null });
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: u.email, password }), 'Account is deactivated', 401, 'USER_DEACTIVATED');
});

t.run();
login.run();
