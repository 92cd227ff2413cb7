// A user's own data: alert words, muted users, status (own and by administrators), saved
// snippets and navigation views, with their events and register members.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { alertWordsByUser } from '../../src/store/alert-words.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { Role } from '../../src/domain/roles.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { createChannel, deactivate, sendDirect, sendToChannel } from '../helpers/messaging.js';
import { everyRole } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let other: TestUser;
let guest: TestUser;
let bot: TestUser;

const words = suite('alert words');
words.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest, bot } = await everyRole(realm));
  other = await realm.createUser();
});

words('add (case-insensitively once), list and remove', async () => {
  const types = { types: ['alert_words'] };
  await expectConsistent(member, async () => {
    const r = assertSuccess(await member.post('/api/v1/users/me/alert_words', { alert_words: ['Deploy', ' outage ', 'deploy', ''] }));
    assert.equal(r.alert_words, ['Deploy', 'outage']);
  }, types);
  assert.equal(assertSuccess(await member.get('/api/v1/users/me/alert_words')).alert_words, ['Deploy', 'outage']);
  assert.equal(await expectConsistent(member, () => member.post('/api/v1/users/me/alert_words', { alert_words: ['OUTAGE'] }), types), []);
  await expectConsistent(member, async () => {
    assert.equal(assertSuccess(await member.delete('/api/v1/users/me/alert_words', { alert_words: ['deploy', 'missing'] })).alert_words, ['outage']);
  }, types);
  assert.equal(assertSuccess(await other.get('/api/v1/users/me/alert_words')).alert_words, []);
  const byUser = await alertWordsByUser(server.app.db, [member.id, other.id]);
  assert.equal([...byUser], [[member.id, ['outage']]]);
  assertError(await member.post('/api/v1/users/me/alert_words', { alert_words: ['x'.repeat(101)] }), 'alert_words[0] is too long (limit: 100 characters)');
  assertError(await member.post('/api/v1/users/me/alert_words', {}), "Missing 'alert_words' argument");
  assertError(await member.post('/api/v1/users/me/alert_words', { alert_words: 'word' }), 'Argument "alert_words" is not valid JSON.');
});

// ---------------------------------------------------------------------------------------------
const mutes = suite('muted users');

/** Each message's flags as `u` reads them. */
async function flagsOf(u: TestUser, ids: readonly number[]): Promise<Map<number, string[]>> {
  const r = assertSuccess(await u.get('/api/v1/messages', { message_ids: ids }));
  return new Map((r.messages as Array<{ id: number; flags: string[] }>).map((m) => [m.id, m.flags]));
}

mutes('muting marks what the muted user sent read, and what they send later arrives read', async () => {
  const [muter, loud, quiet] = [await realm.createUser({ name: 'Mia Muter' }), await realm.createUser({ name: 'Lou Loud' }), await realm.createUser({ name: 'Quin Quiet' })];
  await createChannel(loud, 'mute-room', { others: [muter, quiet] });
  const before = [await sendDirect(loud, [muter], 'before, direct'), await sendToChannel(loud, 'mute-room', 'talk', 'before, in the channel')];
  const fromQuiet = await sendToChannel(quiet, 'mute-room', 'talk', 'not muted');
  const queue = assertSuccess(await muter.post('/api/v1/register', { event_types: ['message', 'muted_users', 'update_message_flags'] })).queue_id as string;
  const types = { types: ['muted_users'] };
  await expectConsistent(muter, async () => assertSuccess(await muter.post(`/api/v1/users/me/muted_users/${loud.id}`)), types);
  const { muted_users } = assertSuccess(await muter.post('/api/v1/register', { fetch_event_types: ['muted_users'] }));
  assert.equal(muted_users.map((m: { id: number }) => m.id), [loud.id]);
  assert.ok(Math.abs(muted_users[0].timestamp - Date.now() / 1000) < 60, 'when, in seconds');
  let flags = await flagsOf(muter, [...before, fromQuiet]);
  for (const id of before) assert.ok(flags.get(id)!.includes('read'), `message ${id} read once its sender is muted`);
  assert.not.ok(flags.get(fromQuiet)!.includes('read'), "another sender's message stays unread");
  // Later messages from the muted user arrive read, for the muter alone; the others' do not.
  const after = [await sendDirect(loud, [muter, quiet], 'after, to a group'), await sendToChannel(loud, 'mute-room', 'talk', 'after, in the channel')];
  const laterFromQuiet = await sendDirect(quiet, [muter], 'still heard');
  flags = await flagsOf(muter, [...after, laterFromQuiet]);
  for (const id of after) assert.ok(flags.get(id)!.includes('read'), `message ${id} arrives read`);
  assert.not.ok(flags.get(laterFromQuiet)!.includes('read'));
  for (const [id, f] of await flagsOf(quiet, after)) assert.not.ok(f.includes('read'), `message ${id} unread for who did not mute`);
  const events = await drainEvents(muter, queue);
  const marked = events.find((e) => e.type === 'update_message_flags' && e.flag === 'read');
  assert.equal(marked?.messages, [...before].sort((a, b) => a - b));
  for (const id of after) assert.ok(events.find((e) => e.type === 'message' && e.message.id === id)?.flags.includes('read'), `event of ${id}`);
  assert.equal(events.filter((e) => e.type === 'muted_users').map((e) => e.muted_users.map((m: { id: number }) => m.id)), [[loud.id]]);
  // Kept across a restart of the organization's state.
  await realm.handle.reload();
  assert.ok(realm.handle.state.mutes.has(muter.id, loud.id));
  assert.ok((await flagsOf(muter, [await sendDirect(loud, [muter], 'after the reload')])).values().next().value!.includes('read'));
  // Unmuted: heard again.
  await expectConsistent(muter, async () => assertSuccess(await muter.delete(`/api/v1/users/me/muted_users/${loud.id}`)), types);
  assert.equal(assertSuccess(await muter.post('/api/v1/register', { fetch_event_types: ['muted_users'] })).muted_users, []);
  assert.not.ok((await flagsOf(muter, [await sendDirect(loud, [muter], 'heard again')])).values().next().value!.includes('read'));
});

mutes('what may be muted: another human, deactivated or not, once; errors otherwise', async () => {
  const muter = await realm.createUser({ name: 'Max Muter' });
  const gone = await realm.createUser({ name: 'Gone Person' });
  await deactivate(gone);
  assertError(await muter.post(`/api/v1/users/me/muted_users/${muter.id}`), 'Cannot mute self');
  assertError(await muter.post('/api/v1/users/me/muted_users/999999'), 'No such user');
  assertError(await muter.post(`/api/v1/users/me/muted_users/${bot.id}`), 'No such user');
  assertError(await muter.delete('/api/v1/users/me/muted_users/999999'), 'No such user');
  assertError(await muter.delete(`/api/v1/users/me/muted_users/${other.id}`), 'User is not muted');
  assertSuccess(await muter.post(`/api/v1/users/me/muted_users/${gone.id}`));
  assertSuccess(await muter.post(`/api/v1/users/me/muted_users/${other.id}`));
  assertError(await muter.post(`/api/v1/users/me/muted_users/${other.id}`), 'User already muted');
  const listed = assertSuccess(await muter.post('/api/v1/register', { fetch_event_types: ['muted_users'] })).muted_users as Array<{ id: number }>;
  assert.equal(listed.map((m) => m.id), [gone.id, other.id], 'in the order muted');
  assertError(await muter.post('/api/v1/users/me/muted_users/abc'), 'muted_user_id is not an integer');
});

mutes('every role may mute and unmute, each its own list', async () => {
  const target = await realm.createUser({ name: 'Tara Target' });
  for (const u of [realm.owner, admin, moderator, member, guest, bot]) {
    assertSuccess(await u.post(`/api/v1/users/me/muted_users/${target.id}`));
    assert.ok(realm.handle.state.mutes.has(u.id, target.id));
  }
  assert.equal([...realm.handle.state.mutes.mutedBy(target.id)].sort((a, b) => a - b), [realm.owner, admin, moderator, member, guest, bot].map((u) => u.id).sort((a, b) => a - b));
  for (const u of [realm.owner, admin, moderator, member, guest, bot]) assertSuccess(await u.delete(`/api/v1/users/me/muted_users/${target.id}`));
  assert.is(realm.handle.state.mutes.mutedBy(target.id).size, 0);
});

// ---------------------------------------------------------------------------------------------
const status = suite('user status');
const stypes = { types: ['user_status', 'user_settings'] };

status('text and emoji, changed separately, seen by everyone', async () => {
  await expectConsistent(other, () => member.post('/api/v1/users/me/status', { status_text: 'In a meeting' }), stypes);
  await expectConsistent(other, () => member.post('/api/v1/users/me/status', { emoji_name: 'calendar' }), stypes);
  const s = assertSuccess(await other.get(`/api/v1/users/${member.id}/status`)).status;
  assert.equal(s, { status_text: 'In a meeting', emoji_name: 'calendar', emoji_code: '1f4c5', reaction_type: 'unicode_emoji' });
  const reg = assertSuccess(await other.post('/api/v1/register', { fetch_event_types: ['user_status'] }));
  assert.equal(reg.user_status[String(member.id)], s);
  await expectConsistent(other, () => member.post('/api/v1/users/me/status', { status_text: '', emoji_name: '' }), stypes);
  assert.equal(assertSuccess(await other.get(`/api/v1/users/${member.id}/status`)).status, {});
});

status('away is the inverse of presence_enabled', async () => {
  const events = await expectConsistent(member, () => member.post('/api/v1/users/me/status', { away: true }), stypes);
  assert.ok(events.some((e) => e.type === 'user_settings' && e.property === 'presence_enabled' && e.value === false));
  assert.ok(events.some((e) => e.type === 'user_status' && e.away === true));
  assert.equal(assertSuccess(await other.get(`/api/v1/users/${member.id}/status`)).status, { away: true });
  await expectConsistent(other, () => member.patch('/api/v1/settings', { presence_enabled: true }), stypes);
  assert.equal(assertSuccess(await other.get(`/api/v1/users/${member.id}/status`)).status, {});
});

status('a status is no news to users who may not access its user', async () => {
  const closed = await server.createRealm();
  const hidden = await closed.createUser({ name: 'Hidden Person' });
  const outsider = await closed.createUser({ role: Role.guest });
  const insider = await closed.createUser();
  await closed.setGroupSetting('can_access_all_users_group', 'role:members');
  const queues = await Promise.all([outsider, insider].map(async (u) => assertSuccess(await u.post('/api/v1/register', { event_types: ['user_status'] })).queue_id as string));
  assertSuccess(await hidden.post('/api/v1/users/me/status', { status_text: 'on the moon' }));
  const [seenByGuest, seenByMember] = await Promise.all([drainEvents(outsider, queues[0]!), drainEvents(insider, queues[1]!)]);
  assert.equal(seenByGuest, [], 'register leaves the status out; so must the event');
  assert.is(seenByMember.length, 1);
  assert.is(seenByMember[0]!.status_text, 'on the moon');
  const reg = assertSuccess(await outsider.post('/api/v1/register', { fetch_event_types: ['user_status'] }));
  assert.is(reg.user_status[String(hidden.id)], undefined);
});

status('bad requests', async () => {
  const post = (params: Record<string, unknown>) => member.post('/api/v1/users/me/status', params as never);
  assertError(await post({}), 'Client did not pass any new values.');
  assertError(await post({ status_text: 'x'.repeat(61) }), 'status_text is too long (limit: 60 characters)');
  assertError(await post({ emoji_code: '1f4c5' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  assertError(await post({ status_text: 'x', reaction_type: 'unicode_emoji' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  assertError(await post({ emoji_name: 'invalid' }), "Emoji 'invalid' does not exist");
  assertError(await post({ emoji_name: 'smile', emoji_code: '1f4c5' }), 'Invalid emoji name.');
  assertError(await post({ emoji_name: 'smile', emoji_code: 'zzzz' }), 'Invalid emoji code.');
  assertError(await post({ emoji_name: 'party', emoji_code: '999999', reaction_type: 'realm_emoji' }), 'Invalid custom emoji.');
  assertError(await post({ emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'sticker' }), 'Invalid emoji type.');
  assertSuccess(await post({ emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' }));
  assertError(await other.get('/api/v1/users/999999/status'), 'No such user');
});

status('administrators set another user’s status', async () => {
  for (const u of [moderator, other, guest, bot]) {
    assertError(await u.post(`/api/v1/users/${member.id}/status`, { status_text: 'Set by someone' }), 'Insufficient permission');
  }
  await expectConsistent(member, () => admin.post(`/api/v1/users/${member.id}/status`, { status_text: 'On leave' }), stypes);
  assert.is(assertSuccess(await other.get(`/api/v1/users/${member.id}/status`)).status.status_text, 'On leave');
  assertError(await admin.post('/api/v1/users/999999/status', { status_text: 'x' }), 'No such user');
  assertError(await admin.post(`/api/v1/users/${member.id}/status`, {}), 'Client did not pass any new values.');
});

// ---------------------------------------------------------------------------------------------
const snippets = suite('saved snippets');
const ntypes = { types: ['saved_snippets'] };

snippets('create, list, edit and delete; private to their owner', async () => {
  let id = 0;
  const events = await expectConsistent(member, async () => {
    id = assertSuccess(await member.post('/api/v1/saved_snippets', { title: 'Greeting', content: 'Hello **team**' })).saved_snippet_id;
  }, ntypes);
  assert.is(events[0]!.op, 'add');
  const list = assertSuccess(await member.get('/api/v1/saved_snippets')).saved_snippets;
  assert.is(list.length, 1);
  assert.equal(Object.keys(list[0]).sort(), ['content', 'date_created', 'id', 'title']);
  assert.ok(Math.abs(list[0].date_created - Date.now() / 1000) < 60);
  assert.equal(assertSuccess(await other.get('/api/v1/saved_snippets')).saved_snippets, []);
  await expectConsistent(member, () => member.patch(`/api/v1/saved_snippets/${id}`, { content: 'Hi all' }), ntypes);
  assert.is(assertSuccess(await member.get('/api/v1/saved_snippets')).saved_snippets[0].content, 'Hi all');
  assertError(await other.patch(`/api/v1/saved_snippets/${id}`, { title: 'Mine now' }), 'Saved snippet does not exist.');
  assertError(await other.delete(`/api/v1/saved_snippets/${id}`), 'Saved snippet does not exist.');
  await expectConsistent(member, () => member.delete(`/api/v1/saved_snippets/${id}`), ntypes);
  assertError(await member.delete(`/api/v1/saved_snippets/${id}`), 'Saved snippet does not exist.');
  // An id beyond Postgres' integer names nothing: refused at the edge, not a failed query.
  assertError(await member.delete('/api/v1/saved_snippets/2147483648'), 'saved_snippet_id is out of range');
  assertError(await member.patch('/api/v1/saved_snippets/2147483648', { title: 'x' }), 'saved_snippet_id is out of range');
});

snippets('bad requests', async () => {
  assertError(await member.post('/api/v1/saved_snippets', { title: ' ', content: 'x' }), 'Title cannot be empty.');
  assertError(await member.post('/api/v1/saved_snippets', { title: 'T', content: '  ' }), 'Content cannot be empty.');
  assertError(await member.post('/api/v1/saved_snippets', { title: 'x'.repeat(61), content: 'c' }), 'title is too long (limit: 60 characters)');
  assertError(await member.post('/api/v1/saved_snippets', { title: 'T' }), "Missing 'content' argument");
  const id = assertSuccess(await member.post('/api/v1/saved_snippets', { title: 'T', content: 'c' })).saved_snippet_id;
  assertError(await member.patch(`/api/v1/saved_snippets/${id}`, {}), 'At least one of title or content must be provided.');
});

// ---------------------------------------------------------------------------------------------
const views = suite('navigation views');
const vtypes = { types: ['navigation_views', 'navigation_view'] };

views('built-in and custom views', async () => {
  await expectConsistent(member, () => member.post('/api/v1/navigation_views', { fragment: 'inbox', is_pinned: false }), vtypes);
  await expectConsistent(member, () => member.post('/api/v1/navigation_views', { fragment: 'narrow/channel/5', is_pinned: true, name: 'Ops' }), vtypes);
  const listed = assertSuccess(await member.get('/api/v1/navigation_views')).navigation_views;
  assert.equal(listed, [
    { fragment: 'inbox', is_pinned: false, name: null },
    { fragment: 'narrow/channel/5', is_pinned: true, name: 'Ops' },
  ]);
  assert.equal(assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['navigation_views'] })).navigation_views, listed);
  assert.equal(assertSuccess(await other.get('/api/v1/navigation_views')).navigation_views, []);
  await expectConsistent(member, () => member.patch('/api/v1/navigation_views/inbox', { is_pinned: true }), vtypes);
  await expectConsistent(member, () => member.patch(`/api/v1/navigation_views/${encodeURIComponent('narrow/channel/5')}`, { name: 'Operations' }), vtypes);
  await expectConsistent(member, () => member.delete('/api/v1/navigation_views/inbox'), vtypes);
});

views('rules', async () => {
  assertError(await member.post('/api/v1/navigation_views', { fragment: 'recent', is_pinned: true, name: 'Mine' }), 'Built-in views cannot have a custom name');
  assertError(await member.post('/api/v1/navigation_views', { fragment: 'narrow/is/dm', is_pinned: true }), 'Custom views must have a valid name');
  assertError(await member.post('/api/v1/navigation_views', { fragment: 'narrow/is/dm', is_pinned: true, name: 'operations' }), 'Navigation view with this name already exists.');
  assertError(await member.post('/api/v1/navigation_views', { fragment: 'narrow/channel/5', is_pinned: true, name: 'Again' }), 'Navigation view already exists.');
  assertError(await member.post('/api/v1/navigation_views', { fragment: 'x' }), "Missing 'is_pinned' argument");
  assertError(await member.patch('/api/v1/navigation_views/feed', { is_pinned: true }), 'Navigation view does not exist.', 404, 'NOT_FOUND');
  assertError(await member.delete('/api/v1/navigation_views/feed'), 'Navigation view does not exist.', 400, 'BAD_REQUEST');
  assertSuccess(await member.post('/api/v1/navigation_views', { fragment: 'feed', is_pinned: true }));
  assertError(await member.patch('/api/v1/navigation_views/feed', { name: 'Everything' }), 'Built-in views cannot have a custom name');
  assertError(await member.patch('/api/v1/navigation_views/feed', {}), 'At least one of is_pinned or name must be provided.');
});

views.after(async () => {
  await server.close();
});

words.run();
mutes.run();
status.run();
snippets.run();
views.run();
