// GET /messages: anchors and windows, every narrow operator, full-text search, and what each
// viewer may read — personal history, shared and protected channel history, guests — with no
// leak of private channels through narrows or search.
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, sendDirect, sendToChannel, subscribe, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
const ids: Record<string, number> = {};

async function fetch(u: TestUser, params: Record<string, unknown>) {
  return assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 100, num_after: 0, ...params } as never));
}
const idsOf = (r: Record<string, any>) => (r.messages as Array<{ id: number }>).map((m) => m.id); // eslint-disable-line @typescript-eslint/no-explicit-any

const window = suite('anchors and windows');
window.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  const { owner, member, admin } = cast;
  await createChannel(owner, 'window', { others: [member] });
  for (let i = 1; i <= 6; i++) ids[`w${i}`] = await sendToChannel(owner, 'window', 'count', `message ${i}`);
  // member has read the first three.
  await server.app.db.query(sql.unsafe`
    UPDATE user_messages SET flags = flags | 1 WHERE user_id = ${member.id} AND message_id <= ${ids.w3!}`);
  void admin;
});

window('newest, oldest, an id, with and without the anchor', async () => {
  const { member } = cast;
  const narrow = [['channel', 'window']];
  const newest = await fetch(member, { narrow, num_before: 2 });
  assert.equal(idsOf(newest), [ids.w5, ids.w6]);
  assert.is(newest.found_newest, true);
  assert.is(newest.found_oldest, false);
  assert.is(newest.found_anchor, false);
  assert.is(newest.history_limited, false);
  const oldest = await fetch(member, { narrow, anchor: 'oldest', num_before: 0, num_after: 2 });
  assert.equal(idsOf(oldest), [ids.w1, ids.w2]);
  assert.is(oldest.found_oldest, true);
  assert.is(oldest.found_newest, false);
  assert.is(oldest.anchor, 0);
  const around = await fetch(member, { narrow, anchor: ids.w3, num_before: 1, num_after: 1 });
  assert.equal(idsOf(around), [ids.w2, ids.w3, ids.w4]);
  assert.is(around.found_anchor, true);
  assert.is(around.anchor, ids.w3);
  const without = await fetch(member, { narrow, anchor: ids.w3, num_before: 1, num_after: 1, include_anchor: false });
  assert.equal(idsOf(without), [ids.w2, ids.w4]);
  assert.is(without.found_anchor, false);
  const all = await fetch(member, { narrow, anchor: ids.w3, num_before: 10, num_after: 10 });
  assert.is(all.found_oldest && all.found_newest, true);
});

window('first_unread, and the legacy use_first_unread_anchor', async () => {
  const { member, owner } = cast;
  const narrow = [['channel', 'window']];
  const r = await fetch(member, { narrow, anchor: 'first_unread', num_before: 1, num_after: 1 });
  assert.is(r.anchor, ids.w4);
  assert.equal(idsOf(r), [ids.w3, ids.w4, ids.w5]);
  const legacy = assertSuccess(await member.get('/api/v1/messages', { use_first_unread_anchor: true, num_before: 0, num_after: 1, narrow } as never));
  assert.is(legacy.anchor, ids.w4);
  // Nothing unread: the newest message.
  const none = await fetch(owner, { narrow: [['channel', 'window'], ['sender', member.id]], anchor: 'first_unread', num_before: 1 });
  assert.is(none.anchor, 10_000_000_000_000_000);
  assert.equal(none.messages, []);
});

window('message_ids, and parameter errors', async () => {
  const { member } = cast;
  const r = assertSuccess(await member.get('/api/v1/messages', { message_ids: [ids.w2!, ids.w1!, 999999] }));
  assert.equal(idsOf(r), [ids.w1, ids.w2]);
  assertError(await member.get('/api/v1/messages', { message_ids: [ids.w1!], anchor: 'newest' }), 'Unsupported parameter combination: anchor, message_ids');
  assertError(await member.get('/api/v1/messages', { num_before: 1, num_after: 1 }), "Missing 'anchor' argument");
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_after: 1 }), "Missing 'num_before' argument");
  assertError(await member.get('/api/v1/messages', { anchor: 'sideways', num_before: 1, num_after: 1 }), 'Invalid anchor');
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 4000, num_after: 1001 }), 'Too many messages requested (maximum 5000).');
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['colour', 'red']] }), 'Invalid narrow operator: unknown operator colour');
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['is', 'happy']] }), "Invalid narrow operator: unknown 'is' operand happy");
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: '[[' }), 'Argument "narrow" is not valid JSON.');
});

const narrows = suite('narrow operators');
narrows.before(async () => {
  const { owner, member, admin, moderator } = cast;
  await createChannel(owner, 'dev', { others: [member, admin] });
  ids.d1 = await sendToChannel(owner, 'dev', 'builds', 'The build is **broken** https://ci.example.com');
  ids.d2 = await sendToChannel(member, 'dev', 'builds', 'Fixed it, thanks @**Olivia Owner**');
  ids.d3 = await sendToChannel(admin, 'dev', '\u2714 releases', 'Shipped the release');
  ids.d4 = await sendToChannel(owner, 'dev', 'pictures', '[logo](/user_uploads/1/ab/cdef/logo.png)');
  ids.dm1 = await sendDirect(owner, [member], 'a direct hello');
  ids.dm2 = await sendDirect(owner, [member, moderator], 'a group hello');
  await server.app.db.query(sql.unsafe`UPDATE user_messages SET flags = flags | 2 WHERE user_id = ${member.id} AND message_id = ${ids.d1!}`);
});

narrows('channel, topic, sender, id, dm, dm-including', async () => {
  const { member, owner, moderator } = cast;
  const got = async (narrow: unknown[]) => idsOf(await fetch(member, { narrow }));
  assert.equal(await got([['channel', 'dev'], ['topic', 'BUILDS']]), [ids.d1, ids.d2]);
  assert.equal(await got([{ operator: 'stream', operand: realm.handle.state.channels.byName('dev')!.id }, { operator: 'subject', operand: 'pictures' }]), [ids.d4]);
  assert.equal(await got([['channel', 'dev'], ['sender', owner.email]]), [ids.d1, ids.d4]);
  assert.equal(await got([['channel', 'dev'], { operator: 'sender', operand: owner.id, negated: true }]), [ids.d2, ids.d3]);
  assert.equal(await got([['id', String(ids.d2)]]), [ids.d2]);
  assert.equal(await got([['dm', owner.email]]), [ids.dm1]);
  assert.equal(await got([{ operator: 'dm', operand: [owner.id, moderator.id] }]), [ids.dm2]);
  assert.equal(await got([['dm-including', String(moderator.id)]]), [ids.dm2]);
  assert.equal(await got([['dm-including', owner.email]]), [ids.dm1, ids.dm2]);
  assertError(await member.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['dm', 'nobody@example.com']] }), 'Invalid narrow operator: unknown user nobody@example.com');
});

narrows('is: and has:', async () => {
  const { member, owner } = cast;
  const got = async (narrow: unknown[], u: TestUser = member) => idsOf(await fetch(u, { narrow }));
  assert.equal(await got([['is', 'dm']]), [ids.dm1, ids.dm2]);
  assert.equal(await got([['is', 'private']]), [ids.dm1, ids.dm2]);
  assert.equal(await got([['is', 'starred']]), [ids.d1]);
  assert.equal(await got([['is', 'mentioned']], owner), [ids.d2]);
  assert.equal(await got([['is', 'resolved']]), [ids.d3]);
  assert.equal(await got([['channel', 'dev'], ['is', 'unread']]), [ids.d1, ids.d2, ids.d3, ids.d4], 'an API client leaves its own message unread');
  assert.equal(await got([['channel', 'dev'], ['has', 'link']]), [ids.d1, ids.d4]);
  assert.equal(await got([['channel', 'dev'], ['has', 'attachment']]), [ids.d4]);
  assert.equal(await got([['channel', 'dev'], ['has', 'reaction']]), []);
  assert.equal(await got([['channel', 'dev'], ['is', 'followed']]), []);
});

narrows('full-text search, with highlights', async () => {
  const { member } = cast;
  const r = await fetch(member, { narrow: [['search', 'broken']] });
  assert.equal(idsOf(r), [ids.d1]);
  assert.match(r.messages[0].match_content, /<span class="highlight">broken<\/span>/);
  assert.is(r.messages[0].match_subject, 'builds');
  const topic = await fetch(member, { narrow: [['channel', 'dev'], ['search', 'releases']] });
  assert.equal(idsOf(topic), [ids.d3]);
  assert.match(topic.messages[0].match_subject, /<span class="highlight">releases<\/span>/);
  assert.equal(idsOf(await fetch(member, { narrow: [['search', 'hello']] })), [ids.dm1, ids.dm2]);
  assert.equal(idsOf(await fetch(member, { narrow: [['search', '"group hello"']] })), [ids.dm2]);
});

narrows('matches_narrow: which of the given messages a narrow takes, as that narrow shows them', async () => {
  const { member, guest } = cast;
  const matches = async (u: TestUser, msgIds: number[], narrow: unknown[]) =>
    assertSuccess(await u.get('/api/v1/messages/matches_narrow', { msg_ids: msgIds, narrow })).messages as Record<string, { match_content: string; match_subject: string }>;
  const all = [ids.d1!, ids.d2!, ids.d3!, ids.dm1!];
  const topic = await matches(member, all, [['channel', 'dev'], ['topic', 'builds']]);
  assert.equal(Object.keys(topic), [String(ids.d1), String(ids.d2)]);
  assert.match(topic[String(ids.d1)]!.match_content, /^<p>The build is <strong>broken<\/strong>/);
  assert.is(topic[String(ids.d1)]!.match_subject, 'builds');
  const search = await matches(member, all, [['search', 'broken']]);
  assert.equal(Object.keys(search), [String(ids.d1)]);
  assert.match(search[String(ids.d1)]!.match_content, /<span class="highlight">broken<\/span>/);
  assert.equal(Object.keys(await matches(member, all, [['is', 'dm']])), [String(ids.dm1)]);
  assert.equal(Object.keys(await matches(member, all, [])), all.map(String), 'no narrow: every message the user may read');
  // Only what the user may read: the guest is in neither the channel nor the conversation.
  assert.equal(await matches(guest, all, []), {});
  assertError(await member.get('/api/v1/messages/matches_narrow', { narrow: [] }), "Missing 'msg_ids' argument");
  assertError(await member.get('/api/v1/messages/matches_narrow', { msg_ids: [ids.d1!] }), "Missing 'narrow' argument");
  assertError(await member.get('/api/v1/messages/matches_narrow', { msg_ids: [ids.d1!], narrow: [['dm', 'nobody@example.com']] }), 'Invalid narrow operator: unknown user nobody@example.com');
});

const access = suite('what a viewer may read');

access('protected history: only what the viewer received', async () => {
  const { owner, member, admin } = cast;
  await createChannel(owner, 'vault', { invite_only: true });
  const before = await sendToChannel(owner, 'vault', 'plans', 'secret plan alpha');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], principals: [member.id] }));
  const after = await sendToChannel(owner, 'vault', 'plans', 'secret plan beta');
  assert.equal(idsOf(await fetch(member, { narrow: [['channel', 'vault']] })), [after]);
  assert.equal(idsOf(await fetch(member, { narrow: [['search', 'alpha']] })), []);
  assertError(await member.get(`/api/v1/messages/${before}`), 'Invalid message(s)');
  assertSuccess(await member.get(`/api/v1/messages/${after}`));
  // Administrators see it exists, not what it says.
  assertError(await admin.get('/api/v1/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['channel', 'vault']] }), 'Invalid narrow operator: unknown channel');
  assertError(await admin.get(`/api/v1/messages/${after}`), 'Invalid message(s)');
  assert.equal(idsOf(await fetch(admin, { narrow: [['search', 'secret']] })), []);
});

access('shared history: the whole channel once subscribed', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'club', { invite_only: true, history_public_to_subscribers: true });
  const early = await sendToChannel(owner, 'club', 'talk', 'early words');
  await subscribe(member, 'club').catch(() => undefined);
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'club' }], principals: [member.id] }));
  const r = await fetch(member, { narrow: [['channel', 'club']] });
  assert.equal(idsOf(r), [early]);
  assert.equal(r.messages[0].flags, ['read', 'historical']);
  assertSuccess(await member.get(`/api/v1/messages/${early}`));
  // Personal history (no channel in the narrow) only has what the member received.
  assert.equal(idsOf(await fetch(member, { narrow: [['search', 'early']] })), []);
});

access('public channels: history for members, not for guests who are not subscribed', async () => {
  const { owner, member, guest } = cast;
  await createChannel(owner, 'lobby');
  const m = await sendToChannel(owner, 'lobby', 'hi', 'lobby talk');
  assert.equal(idsOf(await fetch(member, { narrow: [['channel', 'lobby']] })), [m]);
  assertSuccess(await member.get(`/api/v1/messages/${m}`));
  assertError(await guest.get('/api/v1/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['channel', 'lobby']] }), 'Invalid narrow operator: unknown channel');
  assertError(await guest.get(`/api/v1/messages/${m}`), 'Invalid message(s)');
  assert.equal(idsOf(await fetch(member, { narrow: [['channels', 'public'], ['search', 'lobby']] })), [m]);
  assert.equal(idsOf(await fetch(guest, { narrow: [['channels', 'public'], ['search', 'lobby']] })), []);
});

access('a direct message is only for its participants', async () => {
  const { owner, member, admin } = cast;
  const dm = await sendDirect(owner, [member], 'just us');
  assertSuccess(await member.get(`/api/v1/messages/${dm}`));
  assertError(await admin.get(`/api/v1/messages/${dm}`), 'Invalid message(s)');
  assert.equal(idsOf(await fetch(admin, { narrow: [['search', 'just']] })), []);
  assertError(await admin.get('/api/v1/messages/999999'), 'Invalid message(s)');
});

access('content and avatars per request, hostile content stays inert', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'hostile', { others: [member] });
  const id = await sendToChannel(owner, 'hostile', '<b>topic</b>', '<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>');
  const r = (await fetch(member, { narrow: [['id', id]], client_extavatar: false })).messages[0];
  assert.not.match(r.content, /<script|<img|href="javascript/i);
  assert.match(r.content, /&lt;script&gt;/);
  assert.is(r.subject, '<b>topic</b>', 'topics are plain text; clients escape them');
  assert.match(r.avatar_url, /^https:\/\//);
  const search = (await fetch(member, { narrow: [['search', 'topic']] })).messages[0];
  assert.is(search.match_subject, '&lt;b&gt;<span class="highlight">topic</span>&lt;/b&gt;');
});

access.after(async () => {
  await server.close();
});

window.run();
narrows.run();
access.run();
