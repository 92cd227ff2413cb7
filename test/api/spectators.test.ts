// Spectators: requests without credentials in an organization with `enable_spectator_access`.
// GET /messages with a narrow on web-public channels, GET /messages/{id}, files, and the
// unauthenticated POST /register — and that nothing of public-but-not-web-public channels,
// private channels, direct messages or archived web-public channels reaches them. Every role is
// checked against the same messages for contrast.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EmailVisibility } from '../../src/domain/user-settings.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, deactivate, ROLE_NAMES, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type Params, type TestRealm, type TestResponse, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
const ids = { town1: 0, town2: 0, lobby: 0, secret: 0, archived: 0, archivalNotice: 0, dm: 0 };
const files = { town: '', lobby: '', archived: '' };
let townId = 0;

const NOT_LOGGED_IN = 'Not logged in: API authentication or user session required';
const UNKNOWN_CHANNEL = 'Invalid narrow operator: unknown web-public channel';
const WEB_PUBLIC = ['channels', 'web-public'];

const window = (narrow: unknown, extra: Params = {}): Params => ({ anchor: 'newest', num_before: 100, num_after: 0, narrow: narrow as Params[string], ...extra });
const anonymousFetch = (narrow: unknown, extra: Params = {}) => realm.anonymous('GET', '/api/v1/messages', window(narrow, extra));
const idsOf = (res: TestResponse): number[] => assertSuccess(res).messages.map((m: { id: number }) => m.id);

function multipart(name: string): { body: Buffer; contentType: string } {
  const b = 'spectatorBoundary';
  const body = `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${name} body\r\n--${b}--\r\n`;
  return { body: Buffer.from(body), contentType: `multipart/form-data; boundary=${b}` };
}
const upload = async (u: TestUser, name: string) => assertSuccess(await u.post('/api/v1/user_uploads', {}, multipart(name))).url as string;

const fetching = suite('GET /messages for spectators');
fetching.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  await realm.updateSettings({ enable_spectator_access: true });
  const { owner, member, admin } = cast;
  townId = await createChannel(owner, 'town-square', { is_web_public: true, others: [member] });
  await createChannel(owner, 'lobby', { others: [member] });
  await createChannel(owner, 'secret', { invite_only: true });
  const archivedId = await createChannel(owner, 'old-news', { is_web_public: true });
  files.town = await upload(owner, 'town.txt');
  files.lobby = await upload(owner, 'lobby.txt');
  files.archived = await upload(owner, 'archived.txt');
  ids.town1 = await sendToChannel(owner, 'town-square', 'greetings', `hello spectators, see [file](${files.town})`);
  ids.lobby = await sendToChannel(owner, 'lobby', 'greetings', `hello lobby [file](${files.lobby})`);
  ids.secret = await sendToChannel(owner, 'secret', 'greetings', 'hello secret');
  ids.archived = await sendToChannel(owner, 'old-news', 'greetings', `hello archive [file](${files.archived})`);
  ids.dm = await sendDirect(member, [admin], 'hello direct');
  ids.town2 = await sendToChannel(member, 'town-square', 'other', 'second thread');
  assertSuccess(await owner.delete(`/api/v1/streams/${archivedId}`));
  // Notification Bot tells the archived channel of its archival.
  const narrow = [{ operator: 'channel', operand: archivedId }];
  const [notice] = assertSuccess(await owner.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow })).messages;
  assert.is(notice.sender_full_name, 'Notification Bot');
  ids.archivalNotice = notice.id;
});

fetching('channels: web-public gives the web-public channels’ messages, read, with avatars', async () => {
  const r = assertSuccess(await anonymousFetch([WEB_PUBLIC]));
  assert.equal(r.messages.map((m: { id: number }) => m.id), [ids.town1, ids.town2]);
  assert.is(r.found_newest, true);
  assert.is(r.found_oldest, true);
  assert.is(r.history_limited, false);
  for (const m of r.messages) {
    assert.equal(m.flags, ['read']);
    assert.is(m.display_recipient, 'town-square');
    assert.type(m.avatar_url, 'string'); // client_extavatar defaults to false for spectators
  }
  // The object form of the narrow and the legacy `streams` alias work too.
  assert.equal(idsOf(await anonymousFetch([{ operator: 'streams', operand: 'web-public' }])), [ids.town1, ids.town2]);
});

fetching('one web-public channel, by name or id, with content filters', async () => {
  assert.equal(idsOf(await anonymousFetch([['channel', 'town-square']])), [ids.town1, ids.town2]);
  assert.equal(idsOf(await anonymousFetch([{ operator: 'channel', operand: townId }])), [ids.town1, ids.town2]);
  assert.equal(idsOf(await anonymousFetch([['channel', 'town-square'], ['topic', 'other']])), [ids.town2]);
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC, { operator: 'sender', operand: cast.member.id }])), [ids.town2]);
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC, ['has', 'link']])), [ids.town1]);
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC, { operator: 'id', operand: ids.town2 }])), [ids.town2]);
  assert.equal(idsOf(await anonymousFetch([['channel', 'town-square'], { operator: 'topic', operand: 'other', negated: true }])), [ids.town1]);
  // "hello" is in every message above: search finds only the web-public one.
  const found = assertSuccess(await anonymousFetch([WEB_PUBLIC, ['search', 'hello']]));
  assert.equal(found.messages.map((m: { id: number }) => m.id), [ids.town1]);
  assert.match(found.messages[0].match_content, /<span class="highlight">hello<\/span>/);
  // first_unread: a spectator has nothing unread, so it is the newest.
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC], { anchor: 'first_unread' })), [ids.town1, ids.town2]);
});

fetching('other channels are all "unknown web-public channel", whether public, private, archived or missing', async () => {
  for (const operand of ['lobby', 'secret', 'old-news', 'no-such-channel', 987654]) {
    assertError(await anonymousFetch([['channel', String(operand)]]), UNKNOWN_CHANNEL, 400, 'BAD_NARROW');
    assertError(await anonymousFetch([WEB_PUBLIC, { operator: 'channel', operand }]), UNKNOWN_CHANNEL, 400, 'BAD_NARROW');
  }
  // Negated, a channel spectators cannot see filters nothing.
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC, { operator: 'channel', operand: 'secret', negated: true }])), [ids.town1, ids.town2]);
});

fetching('a narrow that does not ask for web-public history is a missing login (401)', async () => {
  const narrows: unknown[] = [
    [],
    [['channels', 'public']],
    [['is', 'dm']],
    [['dm', String(cast.admin.id)]],
    [WEB_PUBLIC, ['is', 'starred']],
    [WEB_PUBLIC, ['is', 'unread']],
    [WEB_PUBLIC, ['dm-including', String(cast.member.id)]],
    [{ operator: 'channel', operand: 'town-square', negated: true }],
    [{ operator: 'channels', operand: 'web-public', negated: true }],
    [['topic', 'greetings']],
  ];
  for (const narrow of narrows) {
    const res = await anonymousFetch(narrow);
    assertError(res, NOT_LOGGED_IN, 401, 'UNAUTHORIZED');
    assert.is(res.headers['WWW-Authenticate'], 'Basic realm="parley"');
  }
  assertError(await realm.anonymous('GET', '/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0 }), NOT_LOGGED_IN, 401, 'UNAUTHORIZED');
});

fetching('message_ids returns only what spectators may read', async () => {
  const all = Object.values(ids);
  const r = assertSuccess(await realm.anonymous('GET', '/api/v1/messages', { message_ids: all, narrow: [WEB_PUBLIC] }));
  assert.equal(r.messages.map((m: { id: number }) => m.id), [ids.town1, ids.town2]);
  assertError(await realm.anonymous('GET', '/api/v1/messages', { message_ids: all }), NOT_LOGGED_IN, 401);
});

fetching('senders by id or API email, never by a hidden real address', async () => {
  assertSuccess(await cast.member.patch('/api/v1/settings', { email_address_visibility: EmailVisibility.nobody }));
  const apiEmail = realm.handle.state.user(cast.member.id)!.email;
  assert.is.not(apiEmail, cast.member.email);
  assert.equal(idsOf(await anonymousFetch([WEB_PUBLIC, ['sender', apiEmail]])), [ids.town2]);
  assertError(await anonymousFetch([WEB_PUBLIC, ['sender', cast.member.email]]), `Invalid narrow operator: unknown user ${cast.member.email}`, 400, 'BAD_NARROW');
  assertSuccess(await cast.member.patch('/api/v1/settings', { email_address_visibility: EmailVisibility.everyone }));
});

const single = suite('GET /messages/{id} for spectators');

single('a message of a web-public channel, with its source', async () => {
  const r = assertSuccess(await realm.anonymous('GET', `/api/v1/messages/${ids.town1}`));
  assert.is(r.message.id, ids.town1);
  assert.equal(r.message.flags, ['read']);
  assert.is(r.raw_content, `hello spectators, see [file](${files.town})`);
  assert.match(r.message.content, /^<p>hello spectators/);
});

single('every other message is a missing login, existing or not', async () => {
  for (const id of [ids.lobby, ids.secret, ids.archived, ids.archivalNotice, ids.dm, 99_999_999]) {
    assertError(await realm.anonymous('GET', `/api/v1/messages/${id}`), NOT_LOGGED_IN, 401, 'UNAUTHORIZED');
  }
});

single('every role, for contrast: web-public messages for all (archived too), the private one only for its subscriber', async () => {
  for (const role of ROLE_NAMES) {
    const u = cast[role];
    assert.is(assertSuccess(await u.get(`/api/v1/messages/${ids.town1}`)).message.id, ids.town1, role);
    // Accounts keep reading archived channels; spectators do not.
    assert.equal(idsOf(await u.get('/api/v1/messages', window([WEB_PUBLIC]))), [ids.town1, ids.archived, ids.town2, ids.archivalNotice], role);
    const secret = await u.get(`/api/v1/messages/${ids.secret}`);
    if (role === 'owner') assert.is(assertSuccess(secret).message.id, ids.secret);
    else assertError(secret, 'Invalid message(s)', 400, 'BAD_REQUEST');
  }
  const gone = await realm.createUser();
  await deactivate(gone);
  assertError(await gone.get(`/api/v1/messages/${ids.town1}`), 'Account is deactivated', 401, 'USER_DEACTIVATED');
});

const files_ = suite('files for spectators');

files_('a file linked from a web-public channel is served; from other or archived channels it is not found', async () => {
  const town = await realm.anonymous('GET', files.town);
  assert.is(town.status, 200);
  assert.is(town.text, 'town.txt body');
  assertError(await realm.anonymous('GET', files.lobby), 'File not found', 404);
  assertError(await realm.anonymous('GET', files.archived), 'File not found', 404);
});

const register = suite('POST /register for spectators');

register('no queue; only the active web-public channels; nothing personal', async () => {
  const r = assertSuccess(await realm.anonymous('POST', '/api/v1/register', { fetch_event_types: ['stream', 'subscription', 'message', 'realm_user', 'realm'] }));
  assert.is(r.queue_id, null);
  assert.equal(r.streams.map((c: { name: string }) => c.name), ['town-square']);
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'unread_msgs', 'max_message_id', 'realm_users']) {
    assert.not.ok(key in r, key);
  }
  assert.is(r.realm_enable_spectator_access, true);
  assert.is(r.has_videocall_token, false);
  assertError(await realm.anonymous('POST', '/api/v1/register', { client_extavatar: true }), "Invalid 'client_extavatar' parameter for anonymous request", 400);
  assertError(await realm.anonymous('POST', '/api/v1/register', { include_subscribers: 'true' }), "Invalid 'include_subscribers' parameter for anonymous request", 400);
  assertSuccess(await realm.anonymous('POST', '/api/v1/register', { client_extavatar: false, include_subscribers: 'partial', fetch_event_types: [] }));
  assert.is(assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings')).realm_web_public_access_enabled, true);
});

const closed = suite('organizations without spectator access');
closed.after(() => server.close());

closed('spectator access off, or the organization deactivated: every anonymous read is a missing login', async () => {
  const reads = () => [
    anonymousFetch([WEB_PUBLIC]),
    anonymousFetch([['channel', 'town-square']]),
    realm.anonymous('GET', `/api/v1/messages/${ids.town1}`),
    realm.anonymous('POST', '/api/v1/register'),
    realm.anonymous('GET', files.town),
  ];
  await realm.updateSettings({ enable_spectator_access: false });
  for (const res of await Promise.all(reads())) assertError(res, NOT_LOGGED_IN, 401, 'UNAUTHORIZED');
  assert.is(assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings')).realm_web_public_access_enabled, false);
  await realm.updateSettings({ enable_spectator_access: true });
  assertSuccess(await anonymousFetch([WEB_PUBLIC]));
  await realm.handle.ask('realm.setActive', { active: false });
  for (const res of await Promise.all(reads())) assertError(res, NOT_LOGGED_IN, 401, 'UNAUTHORIZED');
  await realm.handle.ask('realm.setActive', { active: true });
  assertSuccess(await anonymousFetch([WEB_PUBLIC]));
});

fetching.run();
single.run();
files_.run();
register.run();
closed.run();
