// PATCH /settings (personal settings, name, password), email visibility with dummy addresses
// everywhere, and avatars (upload, removal, serving, GET /avatar/{id}).
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { loadRealmState } from '../../src/actors/realm/state.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { everyRole, PNG, uploadFile } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let guest: TestUser;

const settings = suite('PATCH /settings');
settings.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest } = await everyRole(realm));
});

settings('register has the whole user_settings object', async () => {
  const r = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['user_settings'] }));
  const s = r.user_settings;
  assert.is(s.twenty_four_hour_time, false);
  assert.is(s.email_address_visibility, 1);
  assert.is(s.default_language, 'en');
  assert.is(s.timezone, '');
  assert.ok(s.available_notification_sounds.includes('ding'));
  assert.equal(s.emojiset_choices[0], { key: 'google', text: 'Google' });
  assert.ok(Object.keys(s).length > 60);
});

settings('each changed setting is one user_settings event', async () => {
  const events = await expectConsistent(
    member,
    () => member.patch('/api/v1/settings', { twenty_four_hour_time: true, color_scheme: 2, default_language: 'de', web_home_view: 'recent_topics' }),
    { types: ['user_settings'] },
  );
  assert.equal(
    events.map(({ id: _id, ...e }) => e),
    [
      { type: 'user_settings', op: 'update', property: 'twenty_four_hour_time', value: true },
      { type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 },
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'de', language_name: 'Deutsch' },
      { type: 'user_settings', op: 'update', property: 'web_home_view', value: 'recent_topics' },
    ],
  );
  // Unchanged values send nothing.
  assert.equal(await expectConsistent(member, () => member.patch('/api/v1/settings', { color_scheme: 2 }), { types: ['user_settings'] }), []);
});

settings('the database keeps only the settings that differ from their defaults; they read back whole', async () => {
  const stored = (id: number) =>
    server.app.db.oneFirst(sql.type(z.object({ settings: z.record(z.string(), z.unknown()) }))`SELECT settings FROM users WHERE id = ${id}`);
  const u = await realm.createUser({ email: 'stored@example.com' });
  assert.equal(await stored(u.id), {});
  assertSuccess(await u.patch('/api/v1/settings', { enter_sends: true, color_scheme: 2, timezone: 'Europe/Paris' }));
  assert.equal(await stored(u.id), { enter_sends: true, color_scheme: 2, timezone: 'Europe/Paris' });
  // Back to its default: nothing stored for it.
  assertSuccess(await u.patch('/api/v1/settings', { color_scheme: 1 }));
  assert.equal(await stored(u.id), { enter_sends: true, timezone: 'Europe/Paris' });
  // What a restart reads is what the running server holds.
  const reloaded = await loadRealmState(server.app.db, realm.id);
  assert.equal(reloaded.user(u.id)!.settings, realm.handle.state.user(u.id)!.settings);
  assert.is(reloaded.user(u.id)!.settings.enter_sends, true);
  assert.is(reloaded.user(u.id)!.settings.color_scheme, 1);
  // An organization's own default for new accounts is stored with each new account.
  assertSuccess(await admin.patch('/api/v1/realm/user_settings_defaults', { twenty_four_hour_time: true }));
  const v = await realm.createUser({ email: 'stored2@example.com' });
  assert.equal(await stored(v.id), { twenty_four_hour_time: true });
  assertSuccess(await admin.patch('/api/v1/realm/user_settings_defaults', { twenty_four_hour_time: false }));
});

settings('invalid values are refused', async () => {
  assertError(await member.patch('/api/v1/settings', { color_scheme: 7 }), 'Invalid color_scheme');
  assertError(await member.patch('/api/v1/settings', { color_scheme: 'dark' }), 'color_scheme is not an integer');
  assertError(await member.patch('/api/v1/settings', { enter_sends: 'maybe' }), 'enter_sends is not a boolean');
  assertError(await member.patch('/api/v1/settings', { emojiset: 'comic' }), 'Invalid emojiset');
  assertError(await member.patch('/api/v1/settings', { default_language: 'xx' }), 'Invalid default_language');
  assertError(await member.patch('/api/v1/settings', { web_font_size_px: 100 }), 'Invalid web_font_size_px');
  assertError(await member.patch('/api/v1/settings', { email_address_visibility: 6 }), 'Invalid email_address_visibility');
  assertError(await member.patch('/api/v1/settings', { timezone: 'Mars/Olympus' }), 'timezone is not a recognized time zone');
});

settings('the time zone is a setting and part of the user object', async () => {
  const events = await expectConsistent(admin, () => member.patch('/api/v1/settings', { timezone: 'Europe/Berlin' }), { types: ['realm_user'] });
  assert.equal(events.map((e) => e.person), [{ user_id: member.id, email: member.email, timezone: 'Europe/Berlin' }]);
  await expectConsistent(member, () => member.patch('/api/v1/settings', { timezone: 'Asia/Tokyo' }), { types: ['realm_user', 'user_settings'] });
  assert.is(assertSuccess(await admin.get(`/api/v1/users/${member.id}`)).user.timezone, 'Asia/Tokyo');
});

settings('full_name, and name_changes_disabled for non-administrators', async () => {
  await expectConsistent(admin, () => member.patch('/api/v1/settings', { full_name: 'Mia Renamed' }), { types: ['realm_user'] });
  assert.is(realm.handle.state.user(member.id)!.full_name, 'Mia Renamed');
  await realm.updateSettings({ name_changes_disabled: true });
  assertError(await member.patch('/api/v1/settings', { full_name: 'Nope' }), 'Name changes are disabled in this organization.');
  assertSuccess(await member.patch('/api/v1/settings', { full_name: 'Mia Renamed' }));
  assertSuccess(await admin.patch('/api/v1/settings', { full_name: 'Admin Renamed' }));
  await realm.updateSettings({ name_changes_disabled: false, require_unique_names: true });
  assertError(await member.patch('/api/v1/settings', { full_name: 'admin renamed' }), 'Unique names required in this organization.');
  await realm.updateSettings({ require_unique_names: false });
});

settings('password change checks the old password', async () => {
  const u = await realm.createUser({ email: 'pw@example.com', password: 'first password' });
  assertError(await u.patch('/api/v1/settings', { old_password: 'wrong', new_password: 'second password' }), 'Wrong password!');
  assertError(await u.patch('/api/v1/settings', { new_password: 'second password' }), "Missing 'old_password' argument");
  assertError(await u.patch('/api/v1/settings', { old_password: 'first password', new_password: 'abc' }), 'The password is too weak.');
  assertSuccess(await u.patch('/api/v1/settings', { old_password: 'first password', new_password: 'second password' }));
  assertSuccess(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: 'pw@example.com', password: 'second password' }));
  assertError(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: 'pw@example.com', password: 'first password' }), 'Your username or password is incorrect', 401);
});

settings('email changes need confirmation mail, which Parley does not send', async () => {
  assertError(
    await member.patch('/api/v1/settings', { email: 'elsewhere@example.com' }),
    'Email address changes need a confirmation email, which this server does not send.',
  );
  await realm.updateSettings({ email_changes_disabled: true });
  assertError(await member.patch('/api/v1/settings', { email: 'elsewhere@example.com' }), 'Email address changes are disabled in this organization.');
  await realm.updateSettings({ email_changes_disabled: false });
  assertSuccess(await member.patch('/api/v1/settings', { email: member.email }));
});

// ---------------------------------------------------------------------------------------------
const visibility = suite('email visibility');

const VIEWERS = () => ({ owner: realm.owner, admin, moderator, member, guest });
const CAN_SEE: Record<number, Array<keyof ReturnType<typeof VIEWERS>>> = {
  1: ['owner', 'admin', 'moderator', 'member', 'guest'],
  2: ['owner', 'admin', 'moderator', 'member'],
  5: ['owner', 'admin', 'moderator'],
  3: ['owner', 'admin'],
  4: [],
};

visibility('who sees the real address under each setting; the API email is a dummy unless "everyone"', async () => {
  const subject = await realm.createUser({ email: 'subject@example.com', name: 'Subject' });
  const dummy = `user${subject.id}@${realm.host}`;
  for (const [setting, allowed] of Object.entries(CAN_SEE)) {
    assertSuccess(await subject.patch('/api/v1/settings', { email_address_visibility: Number(setting) }));
    for (const [name, viewer] of Object.entries(VIEWERS())) {
      const u = assertSuccess(await viewer.get(`/api/v1/users/${subject.id}`)).user;
      const sees = allowed.includes(name as never);
      assert.is(u.delivery_email, sees ? 'subject@example.com' : null, `${name} under ${setting}`);
      assert.is(u.email, setting === '1' ? 'subject@example.com' : dummy, `email for ${name} under ${setting}`);
    }
    const self = assertSuccess(await subject.get('/api/v1/users/me'));
    assert.is(self.delivery_email, 'subject@example.com');
  }
  // The account still signs in with its real address as the username.
  assertSuccess(await subject.get('/api/v1/users/me'));
});

visibility('changing the setting tells each viewer what changed for them', async () => {
  const subject = await realm.createUser({ email: 'mover@example.com' });
  const dummy = `user${subject.id}@${realm.host}`;
  const types = { types: ['realm_user'] };
  const toAdmins = () => subject.patch('/api/v1/settings', { email_address_visibility: 3 });
  const memberEvents = await expectConsistent(member, toAdmins, types);
  const person = (events: Array<Record<string, any>>) => events.map((e) => e.person); // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.ok(person(memberEvents).some((p) => p.new_email === dummy));
  assert.ok(person(memberEvents).some((p) => p.delivery_email === null));
  assertSuccess(await subject.patch('/api/v1/settings', { email_address_visibility: 1 }));
  const adminEvents = await expectConsistent(admin, toAdmins, types);
  assert.ok(person(adminEvents).some((p) => p.new_email === dummy));
  assert.not.ok(person(adminEvents).some((p) => 'delivery_email' in p), 'administrators keep seeing it: nothing to tell');
  await expectConsistent(subject, () => subject.patch('/api/v1/settings', { email_address_visibility: 1 }), { types: ['realm_user', 'user_settings'] });
  await expectConsistent(guest, () => subject.patch('/api/v1/settings', { email_address_visibility: 2 }), types);
  await expectConsistent(moderator, () => subject.patch('/api/v1/settings', { email_address_visibility: 5 }), types);
  await expectConsistent(member, () => subject.patch('/api/v1/settings', { email_address_visibility: 1 }), {
    ...types,
    registerParams: { client_extavatar: false },
  });
});

visibility('client_extavatar clients compute avatars only from real addresses', async () => {
  const subject = await realm.createUser({ email: 'avatar-vis@example.com' });
  const get = async () => assertSuccess(await member.get(`/api/v1/users/${subject.id}`)).user.avatar_url;
  assert.is(await get(), null);
  assertSuccess(await subject.patch('/api/v1/settings', { email_address_visibility: 3 }));
  assert.match(await get(), /^https:\/\/secure\.gravatar\.com\//);
});

// ---------------------------------------------------------------------------------------------
const avatars = suite('avatars');
const upload = (u: TestUser, path: string, data: Buffer) => uploadFile(u, path, data);

avatars('upload, serve and remove one’s avatar', async () => {
  const u = await realm.createUser({ name: 'Pictured' });
  let url = '';
  await expectConsistent(member, async () => {
    url = assertSuccess(await upload(u, '/api/v1/users/me/avatar', PNG)).avatar_url;
  }, { types: ['realm_user'] });
  assert.match(url, new RegExp(`^/user_avatars/${realm.id}/${u.id}\\.png\\?version=2$`));
  const served = await server.request('GET', url, {}, { host: realm.host });
  assert.is(served.status, 200);
  assert.is(served.headers['Content-Type'], 'image/png');
  const listed = assertSuccess(await member.get(`/api/v1/users/${u.id}`)).user;
  assert.is(listed.avatar_url, url, 'uploaded avatars are never left to the client');
  await expectConsistent(u, async () => {
    assert.match(assertSuccess(await u.delete('/api/v1/users/me/avatar')).avatar_url, /^https:\/\/secure\.gravatar\.com\/.*version=3$/);
  }, { types: ['realm_user'] });
  assert.is((await server.request('GET', url, {}, { host: realm.host })).status, 404);
});

avatars('bad uploads', async () => {
  assertError(await upload(member, '/api/v1/users/me/avatar', Buffer.from('not an image')), 'Could not decode image; did you upload an image file?');
  assertError(await member.post('/api/v1/users/me/avatar'), 'You must upload exactly one avatar.');
  const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
  assertError(await upload(member, '/api/v1/users/me/avatar', big), 'Uploaded file is larger than the allowed limit of 5 MiB');
  await realm.updateSettings({ avatar_changes_disabled: true });
  assertError(await upload(member, '/api/v1/users/me/avatar', PNG), 'Avatar changes are disabled in this organization.');
  assertSuccess(await upload(admin, '/api/v1/users/me/avatar', PNG));
  await realm.updateSettings({ avatar_changes_disabled: false });
});

avatars('GET /avatar/{id} redirects to the current avatar', async () => {
  const u = await realm.createUser({ email: 'redirect@example.com' });
  const ext = await member.get(`/avatar/${u.id}`);
  assert.is(ext.status, 302);
  assert.match(ext.headers.Location!, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
  assert.match((await member.get(`/avatar/${u.id}/medium`)).headers.Location!, /&s=500&/);
  assert.is((await member.get('/avatar/redirect@example.com')).status, 302);
  assertSuccess(await upload(u, '/api/v1/users/me/avatar', PNG));
  assert.is((await member.get(`/avatar/${u.id}`)).headers.Location, `https://${realm.host}/user_avatars/${realm.id}/${u.id}.png?version=2`);
  assert.is((await member.get('/avatar/999999')).status, 400);
  assert.is((await realm.anonymous('GET', `/avatar/${u.id}`)).status, 401);
});

avatars('a bot’s avatar at creation', async () => {
  const created = assertSuccess(await uploadFile(member, '/api/v1/bots', PNG, { full_name: 'Pictured Bot', short_name: 'pictured' }));
  assert.match(created.avatar_url, /^\/user_avatars\//);
});

avatars.after(async () => {
  await server.close();
});

settings.run();
visibility.run();
avatars.run();
