// Browser sessions: GET/POST /login, POST /logout, sign-up through an invitation link signing the
// new account in, the cookie's attributes and what is stored of it, which routes accept it (site
// root only, never /api/v1), expiry, deactivation of the user or the organization, cross-site
// form posts, and the failed-login limits shared with POST /api/v1/fetch_api_key.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'slonik';
import { z } from 'zod';
import { ManualClock } from '../../src/clock.js';
import { hashPassword, hashSessionToken } from '../../src/domain/secrets.js';
import { Role } from '../../src/domain/roles.js';
import { countUserSessions } from '../../src/store/sessions.js';
import { setPasswordHash } from '../../src/store/users.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, deactivate, ROLE_NAMES, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, TestRealm, type TestResponse, type TestServer, type TestUser } from '../helpers/server.js';

const LIFETIME = 3600;
const PASSWORD = 'correct horse battery';
let server: TestServer;
let realm: TestRealm;
let cast: Cast;
const clock = new ManualClock(Date.UTC(2026, 6, 1));

const login = (r: TestRealm, email: string, password: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  r.anonymous('POST', '/login', { email, password, ...extra }, { headers });

/** The `name=value` part of a response's Set-Cookie, to send back as a Cookie header. */
function cookieOf(res: TestResponse): string {
  const set = res.headers['Set-Cookie'];
  assert.ok(set, `expected a Set-Cookie header, got ${res.status}: ${res.text.slice(0, 200)}`);
  return set.split(';')[0]!;
}

async function signIn(u: TestUser): Promise<string> {
  const res = await login(u.realm, u.email, PASSWORD);
  assert.is(res.status, 303, res.text.slice(0, 300));
  return cookieOf(res);
}

const withCookie = (r: TestRealm, method: string, path: string, cookie: string, params = {}) =>
  r.anonymous(method, path, params, { headers: { cookie } });

function multipart(name: string, data: string): { body: Buffer; contentType: string } {
  const b = 'sessionTestBoundary';
  const body = `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n--${b}--\r\n`;
  return { body: Buffer.from(body), contentType: `multipart/form-data; boundary=${b}` };
}

async function uploadFile(u: TestUser, name: string): Promise<string> {
  return assertSuccess(await u.post('/api/v1/user_uploads', {}, multipart(name, `contents of ${name}`))).url as string;
}

const pageText = suite('the login page');
pageText.before(async () => {
  server = await startTestServer({ clock, env: { SESSION_LIFETIME_SECONDS: String(LIFETIME), LOGIN_FAILURES_PER_USER: '3', LOGIN_FAILURES_PER_IP: '1000' } });
  realm = await server.createRealm({ name: 'Acme Chat' });
  cast = await castOf(realm);
  const hash = await hashPassword(PASSWORD);
  for (const role of ROLE_NAMES) if (role !== 'bot') await setPasswordHash(server.app.db, cast[role].id, hash);
});

pageText('GET /login is a form without scripts; `next` is kept only when it is a path on this site', async () => {
  const res = await realm.anonymous('GET', '/login');
  assert.is(res.status, 200);
  assert.is(res.headers['Content-Type'], 'text/html; charset=utf-8');
  assert.match(res.headers['Content-Security-Policy']!, /default-src 'none'/);
  assert.match(res.text, /<h1>Sign in to Acme Chat<\/h1>/);
  assert.match(res.text, /<form method="post" action="\/login">/);
  assert.not.match(res.text, /<script/i);
  assert.is(res.headers['Set-Cookie'], undefined);
  const kept = await realm.anonymous('GET', '/login', { next: '/user_uploads/1/ab/x/a.txt' });
  assert.match(kept.text, /<input type="hidden" name="next" value="\/user_uploads\/1\/ab\/x\/a.txt">/);
  for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/a b']) {
    assert.not.match((await realm.anonymous('GET', '/login', { next })).text, /name="next"/, next);
  }
});

pageText('GET /logout is not a route; the API answers its own 405 and 404', async () => {
  assertError(await realm.anonymous('GET', '/logout'), 'Method Not Allowed', 405, 'METHOD_NOT_ALLOWED');
  assertError(await realm.anonymous('POST', '/api/v1/login'), 'Endpoint does not exist', 404, 'NOT_FOUND');
});

const signin = suite('POST /login and POST /logout');

signin('a wrong password or an unknown account shows the form again, 401, and no cookie', async () => {
  for (const [email, password] of [
    [cast.member.email, 'wrong'],
    ['nobody@example.com', PASSWORD],
  ] as const) {
    const res = await login(realm, email, password);
    assert.is(res.status, 401);
    assert.match(res.text, /Your username or password is incorrect/);
    assert.match(res.text, new RegExp(`value="${email.replace('.', '\\.')}"`));
    assert.is(res.headers['Set-Cookie'], undefined);
  }
  const empty = await login(realm, cast.member.email, '');
  assert.is(empty.status, 400);
  assert.match(empty.text, /Please enter your email and password\./);
  clock.advance(LIFETIME * 1000); // forget the failures above (the failure window is 30 minutes)
});

signin('success: a 303 to `next` (or back to /login) with an HttpOnly, SameSite=Lax, Secure session cookie', async () => {
  const res = await login(realm, cast.member.email, PASSWORD, { next: '/avatar/1' });
  assert.is(res.status, 303);
  assert.is(res.headers.Location, '/avatar/1');
  const set = res.headers['Set-Cookie']!;
  assert.match(set, /^parley_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
  const elsewhere = await login(realm, cast.member.email, PASSWORD, { next: '//evil.example/' });
  assert.is(elsewhere.headers.Location, '/login');
  const page = await withCookie(realm, 'GET', '/login', cookieOf(res));
  assert.is(page.status, 200);
  assert.match(page.text, /You are signed in as <strong>Mel Member<\/strong>/);
  assert.match(page.text, /<form method="post" action="\/logout">/);
});

signin('the database keeps only an HMAC of the token', async () => {
  const token = cookieOf(await login(realm, cast.admin.email, PASSWORD)).split('=')[1]!;
  const rows = await server.app.db.any(sql.type(z.object({ token_hash: z.instanceof(Buffer) }))`
    SELECT token_hash FROM sessions WHERE user_id = ${cast.admin.id}`);
  assert.is(rows.length, 1);
  assert.equal(rows[0]!.token_hash, hashSessionToken(server.app.secret, token));
  assert.not.ok(rows[0]!.token_hash.toString('latin1').includes(token));
});

signin('every role with a password can sign in; a bot (no password) cannot', async () => {
  for (const role of ROLE_NAMES) {
    const u = cast[role];
    const res = await login(realm, u.email, PASSWORD);
    if (role === 'bot') {
      assert.is(res.status, 401, role);
      assert.is(res.headers['Set-Cookie'], undefined);
      continue;
    }
    assert.is(res.status, 303, role);
    const url = await uploadFile(u, `${role}.txt`);
    const file = await withCookie(realm, 'GET', url, cookieOf(res));
    assert.is(file.status, 200, role);
    assert.is(file.text, `contents of ${role}.txt`);
  }
});

signin('logging out deletes the session and clears the cookie', async () => {
  const cookie = await signIn(cast.moderator);
  const url = await uploadFile(cast.moderator, 'bye.txt');
  assert.is((await withCookie(realm, 'GET', url, cookie)).status, 200);
  const out = await withCookie(realm, 'POST', '/logout', cookie);
  assert.is(out.status, 303);
  assert.is(out.headers.Location, '/login');
  assert.match(out.headers['Set-Cookie']!, /^parley_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax; Secure$/);
  assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401, 'UNAUTHORIZED');
  assert.match((await withCookie(realm, 'GET', '/login', cookie)).text, /<form method="post" action="\/login">/);
  // Logging out without a session is harmless.
  assert.is((await realm.anonymous('POST', '/logout')).status, 303);
});

signin('a form posted from another site is refused; the same site is accepted', async () => {
  const cross = await login(realm, cast.member.email, PASSWORD, {}, { origin: 'https://evil.example' });
  assert.is(cross.status, 403);
  assert.is(cross.headers['Set-Cookie'], undefined);
  const cookie = await signIn(cast.member);
  assert.is((await realm.anonymous('POST', '/logout', {}, { headers: { cookie, origin: 'null' } })).status, 403);
  const same = await login(realm, cast.member.email, PASSWORD, {}, { origin: `http://${realm.host}` });
  assert.is(same.status, 303);
});

signin('the cookie is Secure only when the organization is served over https', async () => {
  // Test organizations are served at https://…; one on a .localhost host is served over http.
  const handle = await server.app.realms.create({ host: `plain-${process.pid}.localhost`, name: 'Plain' });
  assert.is(handle.state.realm.url, `http://plain-${process.pid}.localhost`);
  const plain = new TestRealm(server, handle);
  const u = await plain.createUser({ role: Role.owner, password: PASSWORD });
  const res = await login(plain, u.email, PASSWORD);
  assert.match(res.headers['Set-Cookie']!, /^parley_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
});

const scope = suite('where a session counts');

scope('site-root files and avatars accept it; /api/v1 never does', async () => {
  const cookie = await signIn(cast.member);
  const channel = 'session-private';
  await createChannel(cast.member, channel, { invite_only: true });
  const url = await uploadFile(cast.member, 'private.txt');
  await sendToChannel(cast.member, channel, 'files', `[doc](${url})`);
  assertError(await realm.anonymous('GET', url), 'Not logged in: API authentication or user session required', 401);
  assert.is((await withCookie(realm, 'GET', url, cookie)).status, 200);
  // Another user's session may not read a private channel's file.
  assertError(await withCookie(realm, 'GET', url, await signIn(cast.admin)), 'File not found', 404);

  assertError(await realm.anonymous('GET', `/avatar/${cast.owner.id}`), 'Not logged in: API authentication or user session required', 401);
  const avatar = await withCookie(realm, 'GET', `/avatar/${cast.owner.id}`, cookie);
  assert.is(avatar.status, 302);

  for (const [method, path] of [
    ['GET', '/api/v1/users/me'],
    ['GET', `/api/v1${url}`],
    ['POST', '/api/v1/messages'],
    ['POST', '/api/v1/register'],
  ] as const) {
    assertError(await withCookie(realm, method, path, cookie, method === 'POST' ? { type: 'stream', to: channel, topic: 't', content: 'x' } : {}),
      'Not logged in: API authentication or user session required', 401, 'UNAUTHORIZED');
  }
});

scope('the OpenAPI document says where the session cookie counts', async () => {
  const doc = JSON.parse((await realm.anonymous('GET', '/api/v1/openapi.json')).text);
  assert.equal(doc.components.securitySchemes.sessionCookie, {
    type: 'apiKey', in: 'cookie', name: 'parley_session', description: 'Set by POST /login; site-root routes only',
  });
  assert.equal(doc.paths['/user_uploads/{realm_id}/{bucket}/{token}/{filename}'].get.security, [{}, { basicAuth: [] }, { sessionCookie: [] }]);
  assert.equal(doc.paths['/api/v1/messages'].get.security, [{}, { basicAuth: [] }]);
  assert.equal(doc.paths['/api/v1/users/me'].get.security, [{ basicAuth: [] }]);
  assert.equal(doc.paths['/login'].post.security, []);
});

scope("a session is bound to its organization and HTTP Basic credentials take precedence", async () => {
  const cookie = await signIn(cast.member);
  const other = await server.createRealm();
  assertError(await withCookie(other, 'GET', `/avatar/${other.owner.id}`, cookie), 'Not logged in: API authentication or user session required', 401);
  const url = await uploadFile(cast.member, 'basic.txt');
  const res = await realm.server.request('GET', url, {}, { host: realm.host, auth: cast.admin.auth, headers: { cookie } });
  assertError(res, 'File not found', 404);
});

scope('a session expires after SESSION_LIFETIME_SECONDS', async () => {
  const cookie = await signIn(cast.guest);
  const url = await uploadFile(cast.guest, 'later.txt');
  clock.advance((LIFETIME - 60) * 1000);
  assert.is((await withCookie(realm, 'GET', url, cookie)).status, 200);
  clock.advance(61 * 1000);
  assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
});

scope('malformed and forged cookies are ignored', async () => {
  const url = await uploadFile(cast.member, 'forged.txt');
  for (const cookie of ['parley_session=', 'parley_session=abc', `parley_session=${'A'.repeat(43)}`, `other=${'A'.repeat(43)}`]) {
    assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
  }
});

const ending = suite('deactivation ends sessions');

ending('deactivating a user deletes their sessions at once; reactivating does not bring them back', async () => {
  const u = await realm.createUser({ password: PASSWORD, name: 'Short Lived' });
  const cookie = await signIn(u);
  await signIn(u);
  const url = await uploadFile(u, 'mine.txt');
  assert.is(await countUserSessions(server.app.db, u.id), 2);
  await deactivate(u);
  assert.is(await countUserSessions(server.app.db, u.id), 0);
  assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
  const again = await login(realm, u.email, PASSWORD);
  assert.is(again.status, 401);
  assert.match(again.text, /Account is deactivated/);
  await realm.handle.ask('user.setActive', { userId: u.id, active: true, actorId: null });
  assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
});

ending('a new password (PATCH /settings) ends every browser session of the account', async () => {
  const u = await realm.createUser({ password: PASSWORD });
  const cookie = await signIn(u);
  const url = await uploadFile(u, 'rotated.txt');
  assertError(await u.patch('/api/v1/settings', { old_password: 'wrong', new_password: 'another good one' }), 'Wrong password!');
  assert.is(await countUserSessions(server.app.db, u.id), 1);
  assertSuccess(await u.patch('/api/v1/settings', { old_password: PASSWORD, new_password: 'another good one' }));
  assert.is(await countUserSessions(server.app.db, u.id), 0);
  assertError(await withCookie(realm, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
  assert.is((await login(realm, u.email, 'another good one')).status, 303);
});

ending("deactivating an organization deletes all of its sessions", async () => {
  const r = await server.createRealm();
  await setPasswordHash(server.app.db, r.owner.id, await hashPassword(PASSWORD));
  const cookie = await signIn(r.owner);
  const url = await uploadFile(r.owner, 'org.txt');
  await r.handle.ask('realm.setActive', { active: false });
  assert.is(await countUserSessions(server.app.db, r.owner.id), 0);
  await r.handle.ask('realm.setActive', { active: true });
  assertError(await withCookie(r, 'GET', url, cookie), 'Not logged in: API authentication or user session required', 401);
});

const limits = suite('failed logins: one limit for the form and fetch_api_key');

limits('failures through either count together, per account; then even the right password waits', async () => {
  clock.advance(LIFETIME * 1000);
  const u = await realm.createUser({ password: PASSWORD });
  assert.is((await login(realm, u.email, 'bad')).status, 401);
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: u.email, password: 'bad' }), 'Your username or password is incorrect', 401);
  assert.is((await login(realm, u.email, 'bad')).status, 401);
  const page = await login(realm, u.email, PASSWORD);
  assert.is(page.status, 429);
  assert.match(page.text, /API usage exceeded rate limit/);
  assert.ok(Number(page.headers['Retry-After']) > 0);
  assert.is(page.headers['Set-Cookie'], undefined);
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: u.email, password: PASSWORD }), 'API usage exceeded rate limit', 429, 'RATE_LIMIT_HIT');
  clock.advance(31 * 60 * 1000);
  assert.is((await login(realm, u.email, PASSWORD)).status, 303);
});

const join = suite('sign-up signs the new account in');
join.after(() => server.close());

join('the page after a successful sign-up sets a session for the new account', async () => {
  const link = assertSuccess(await cast.owner.post('/api/v1/invites/multiuse', { invite_as: Role.member })).invite_link as string;
  const path = new URL(link).pathname;
  const refused = await realm.anonymous('POST', path, { email: 'bad', full_name: 'New Person', password: PASSWORD });
  assert.is(refused.status, 400);
  assert.is(refused.headers['Set-Cookie'], undefined);
  const done = await realm.anonymous('POST', path, { email: 'newcomer@example.com', full_name: 'New Person', password: PASSWORD });
  assert.is(done.status, 200);
  assert.match(done.text, /you are signed in on this browser/);
  assert.match(done.headers['Set-Cookie']!, /^parley_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
  const me = await withCookie(realm, 'GET', '/login', cookieOf(done));
  assert.match(me.text, /You are signed in as <strong>New Person<\/strong> \(newcomer@example\.com\)/);
});

pageText.run();
signin.run();
scope.run();
ending.run();
limits.run();
join.run();
