// PATCH /messages/{id} (rules 1–8), DELETE /messages/{id}, GET /messages/{id}/history: content
// edits, topic and channel moves with their permissions and time limits, resolving topics, the
// notices, access changes on moves into private channels, and the events of each.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { updateRealmSettings } from '../../src/store/realms.js';
import { sha256Hex } from '../../src/actors/conversations/edit-rules.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
/** A manual clock that can also move on by `step` each time it is read (time passing within a request). */
class SteppingClock extends ManualClock {
  step = 0;
  override now(): number {
    const t = super.now();
    this.advance(this.step);
    return t;
  }
}
const clock = new SteppingClock(Date.UTC(2026, 0, 1));

const TYPES = ['message', 'update_message', 'delete_message', 'update_message_flags', 'subscription', 'stream', 'user_topic', 'starred_messages', 'realm_user'];
const DELETE_TYPES = ['message', 'delete_message', 'update_message_flags'];

async function setRealm(patch: Record<string, unknown>, groups: Record<string, string> = {}): Promise<void> {
  const state = realm.handle.state;
  const settings = { ...state.realm.settings, ...patch, groups: { ...state.realm.settings.groups } };
  for (const [k, v] of Object.entries(groups)) settings.groups[k] = state.systemGroupId(v as never);
  await updateRealmSettings(server.app.db, realm.id, settings as never);
  await realm.handle.reload();
}

const message = async (u: TestUser, id: number, params: Record<string, unknown> = {}) =>
  assertSuccess(await u.get(`/api/v1/messages/${id}`, { apply_markdown: false, allow_empty_topic_name: true, ...params } as never)).message;

const topicIds = async (u: TestUser, channel: string, topic: string) =>
  (assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [['channel', channel], ['topic', topic]] })).messages as Array<{ id: number }>).map(
    (m) => m.id,
  );

const content = suite('editing content');
content.before(async () => {
  server = await startTestServer({ clock });
  realm = await server.createRealm();
  cast = await castOf(realm);
  await createChannel(cast.owner, 'edits', { others: [cast.admin, cast.moderator, cast.member, cast.guest, cast.bot] });
});

content('the sender edits; the events keep everyone current', async () => {
  const { member, owner } = cast;
  const id = await sendToChannel(member, 'edits', 'e', 'first version');
  let r: Record<string, unknown> = {};
  const events = await expectConsistent(owner, async () => {
    r = assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: 'second *version* @**Olivia Owner**' }));
  }, { types: TYPES });
  assert.equal(r.detached_uploads, []);
  const e = events.find((x) => x.type === 'update_message')!;
  assert.is(e.message_id, id);
  assert.equal(e.message_ids, [id]);
  assert.is(e.user_id, member.id);
  assert.is(e.orig_content, 'first version');
  assert.is(e.content, 'second *version* @**Olivia Owner**');
  assert.match(e.rendered_content, /<em>version<\/em>/);
  assert.is(e.rendering_only, false);
  assert.is(e.stream_id, realm.handle.state.channels.byName('edits')!.id);
  assert.is(e.stream_name, 'edits');
  assert.ok(e.flags.includes('mentioned'));
  assert.not.ok('subject' in e);
  const m = await message(owner, id);
  assert.is(m.content, 'second *version* @**Olivia Owner**');
  assert.type(m.last_edit_timestamp, 'number');
  assert.not.ok('last_moved_timestamp' in m);
  assert.ok(m.flags.includes('mentioned'));
  // Editing the mention away takes the flag away.
  await expectConsistent(owner, () => member.patch(`/api/v1/messages/${id}`, { content: 'no mention' }), { types: TYPES });
  assert.not.ok((await message(owner, id)).flags.includes('mentioned'));
  const blank = assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: '  ' }));
  assert.equal(blank.detached_uploads, []);
  assert.is((await message(owner, id)).content, '(deleted)');
});

content('who may edit content, and until when', async () => {
  const { member, owner, admin, moderator } = cast;
  const id = await sendToChannel(member, 'edits', 'e', 'mine');
  for (const u of [owner, admin, moderator]) {
    assertError(await u.patch(`/api/v1/messages/${id}`, { content: 'theirs' }), "You don't have permission to edit this message");
  }
  await setRealm({ allow_message_editing: false });
  assertError(await member.patch(`/api/v1/messages/${id}`, { content: 'x' }), 'Your organization has turned off message editing');
  await setRealm({ allow_message_editing: true, message_content_edit_limit_seconds: 60 });
  clock.advance(70_000);
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: 'within the grace period' }));
  clock.advance(20_000);
  assertError(await member.patch(`/api/v1/messages/${id}`, { content: 'x' }), 'The time limit for editing this message has passed');
  await setRealm({ message_content_edit_limit_seconds: 600 });
});

content('requests that make no sense', async () => {
  const { member, owner } = cast;
  const id = await sendToChannel(member, 'edits', 'e', 'x');
  const dm = await sendDirect(member, [owner], 'dm');
  const other = realm.handle.state.channels.byName('edits')!.id;
  assertError(await member.patch(`/api/v1/messages/${id}`, {}), 'Nothing to change');
  assertError(await member.patch(`/api/v1/messages/${id}`, { topic: 'e' }), 'Nothing to change');
  assertError(await member.patch(`/api/v1/messages/${dm}`, { topic: 'x' }), 'Direct messages cannot have topics.');
  assertError(await member.patch(`/api/v1/messages/${dm}`, { stream_id: other }), 'Direct messages cannot be moved to channels.');
  assertError(await member.patch(`/api/v1/messages/${id}`, { content: 'y', propagate_mode: 'change_all' }), 'Invalid propagate_mode without topic edit');
  const second = await createChannel(owner, 'edits-2', { others: [member] });
  assertError(await member.patch(`/api/v1/messages/${id}`, { content: 'y', stream_id: second }), 'Cannot change message content while changing channel');
  assertError(await member.patch(`/api/v1/messages/${id}`, { topic: '\u2714 general chat' }), 'General chat cannot be marked as resolved');
  assertError(await member.patch(`/api/v1/messages/999999`, { content: 'y' }), 'Invalid message(s)');
  assertError(await member.patch(`/api/v1/messages/${id}`, { propagate_mode: 'change_some', topic: 'z' }), 'Invalid propagate_mode');
  // prev_content_sha256 guards against conflicting edits.
  assertError(
    await member.patch(`/api/v1/messages/${id}`, { content: 'y', prev_content_sha256: sha256Hex('stale') }),
    "'prev_content_sha256' value does not match the expected value.",
    400,
    'EXPECTATION_MISMATCH',
  );
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: 'y', prev_content_sha256: sha256Hex('x') }));
  // A direct message's content can be edited too.
  await expectConsistent(owner, () => member.patch(`/api/v1/messages/${dm}`, { content: 'dm edited' }), { types: TYPES });
});

content('wildcard mentions added by an edit follow the send rules', async () => {
  const { owner, member } = cast;
  const crowd: TestUser[] = [];
  for (let i = 0; i < 16; i++) crowd.push(await realm.createUser({ name: `Edit Crowd ${i}` }));
  await createChannel(owner, 'edits-busy', { others: [member, ...crowd] });
  const id = await sendToChannel(member, 'edits-busy', 't', 'quiet');
  assertError(await member.patch(`/api/v1/messages/${id}`, { content: '@**all** loud' }), 'You do not have permission to use channel wildcard mentions in this channel.', 400, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
});

const move = suite('moving messages');

move('topic moves: one, later, all', async () => {
  const { member, owner } = cast;
  await createChannel(owner, 'moves', { others: [member] });
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) ids.push(await sendToChannel(member, 'moves', 'old', `m${i}`));
  await expectConsistent(owner, () => member.patch(`/api/v1/messages/${ids[0]}`, { topic: 'one' }), { types: TYPES });
  const one = await topicIds(owner, 'moves', 'one');
  assert.is(one[0], ids[0]);
  assert.match((await message(owner, one[1]!)).content, /^\[A message\]\(.*\/near\/\d+\) was moved here from #\*\*moves>old\*\* by @_\*\*Mel Member\|\d+\*\*\.$/);
  const later = await expectConsistent(
    owner,
    () => member.patch(`/api/v1/messages/${ids[2]}`, { topic: 'later', propagate_mode: 'change_later', send_notification_to_new_thread: false }),
    { types: TYPES },
  );
  const e = later.find((x) => x.type === 'update_message')!;
  assert.equal(e.message_ids, [ids[2], ids[3]]);
  assert.is(e.orig_subject, 'old');
  assert.is(e.subject, 'later');
  assert.is(e.propagate_mode, 'change_later');
  assert.equal(e.topic_links, []);
  assertSuccess(await member.patch(`/api/v1/messages/${ids[1]}`, { topic: 'later', propagate_mode: 'change_all', send_notification_to_old_thread: true }));
  const all = await topicIds(owner, 'moves', 'later');
  assert.equal(all.slice(0, 3), [ids[1], ids[2], ids[3]]);
  // The destination had messages already: the notice counts what arrived.
  assert.match((await message(owner, all[3]!)).content, /^\[A message\]\(.*\) was moved here from #\*\*moves>old\*\*/);
  assert.match((await message(owner, (await topicIds(owner, 'moves', 'old'))[0]!)).content, /^This topic was moved to #\*\*moves>later\*\*/);
  assert.type((await message(owner, ids[1]!)).last_moved_timestamp, 'number');
});

move('who may move between topics, and the time limits', async () => {
  const { member, owner, moderator, guest, admin } = cast;
  const channelId = await createChannel(owner, 'moves-2', { others: [member, moderator, guest] });
  const id = await sendToChannel(owner, 'moves-2', 't', 'x');
  // can_move_messages_between_topics_group is role:everyone by default.
  assertSuccess(await guest.patch(`/api/v1/messages/${id}`, { topic: 't2' }));
  await setRealm({}, { can_move_messages_between_topics_group: 'role:moderators' });
  assertError(await member.patch(`/api/v1/messages/${id}`, { topic: 't3' }), "You don't have permission to edit this message");
  assertSuccess(await moderator.patch(`/api/v1/messages/${id}`, { topic: 't3' }));
  // The channel's own group grants it back.
  assertSuccess(await owner.patch(`/api/v1/streams/${channelId}`, { can_move_messages_within_channel_group: { new: { direct_members: [member.id], direct_subgroups: [] } } }));
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { topic: 't4' }));
  await setRealm({ move_messages_within_stream_limit_seconds: 3600 }, { can_move_messages_between_topics_group: 'role:everyone' });
  clock.advance(3700_000);
  assertError(await member.patch(`/api/v1/messages/${id}`, { topic: 't5' }), "The time limit for editing this message's topic has passed.");
  assertSuccess(await moderator.patch(`/api/v1/messages/${id}`, { topic: 't5' }));
  assertSuccess(await admin.patch(`/api/v1/messages/${id}`, { topic: 't6' }));
  await setRealm({ move_messages_within_stream_limit_seconds: 604800 });
});

move('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED for a whole topic with old messages', async () => {
  const { member, owner, moderator } = cast;
  await createChannel(owner, 'moves-3', { others: [member, moderator] });
  await setRealm({ move_messages_within_stream_limit_seconds: 3600 });
  const old = [await sendToChannel(member, 'moves-3', 'aging', 'a'), await sendToChannel(member, 'moves-3', 'aging', 'b'), await sendToChannel(member, 'moves-3', 'aging', 'c')];
  clock.advance(7200_000);
  const fresh = [await sendToChannel(member, 'moves-3', 'aging', 'd'), await sendToChannel(member, 'moves-3', 'aging', 'e')];
  const err = assertError(
    await member.patch(`/api/v1/messages/${fresh[1]}`, { topic: 'aged', propagate_mode: 'change_all' }),
    'You only have permission to move the 2/5 most recent messages in this topic.',
    400,
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
  );
  assert.is(err.first_message_id_allowed_to_move, fresh[0]);
  assert.is(err.total_messages_in_topic, 5);
  assert.is(err.total_messages_allowed_to_move, 2);
  assertSuccess(await member.patch(`/api/v1/messages/${err.first_message_id_allowed_to_move}`, { topic: 'aged', propagate_mode: 'change_later' }));
  assert.equal((await topicIds(owner, 'moves-3', 'aged')).filter((x) => fresh.includes(x)), fresh);
  // Moderators are not limited.
  assertSuccess(await moderator.patch(`/api/v1/messages/${old[0]}`, { topic: 'aged', propagate_mode: 'change_all' }));
  await setRealm({ move_messages_within_stream_limit_seconds: 604800 });
});

move('resolving and unresolving, with the notice and its undo', async () => {
  const { member, owner } = cast;
  await createChannel(owner, 'resolve', { others: [member] });
  const id = await sendToChannel(member, 'resolve', 'bug 1', 'it crashes');
  await expectConsistent(owner, () => member.patch(`/api/v1/messages/${id}`, { topic: '\u2714 bug 1', propagate_mode: 'change_all' }), { types: TYPES });
  const resolved = await topicIds(owner, 'resolve', '\u2714 bug 1');
  assert.is(resolved.length, 2);
  const notice = await message(owner, resolved[1]!);
  assert.is(notice.sender_full_name, 'Notification Bot');
  assert.is(notice.content, `@_**Mel Member|${member.id}** has marked this topic as resolved.`);
  assert.not.ok('last_moved_timestamp' in (await message(owner, id)), 'resolving is not a move');
  assert.equal((await message(member, resolved[1]!)).flags, ['read'], 'the resolver has read the notice');
  // Unresolving right away removes the notice instead of adding another.
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { topic: 'bug 1', propagate_mode: 'change_all' }));
  assert.equal(await topicIds(owner, 'resolve', 'bug 1'), [id]);
  await setRealm({}, { can_resolve_topics_group: 'role:administrators' });
  assertError(await member.patch(`/api/v1/messages/${id}`, { topic: '\u2714 bug 1', propagate_mode: 'change_all' }), "You don't have permission to resolve topics in this channel.");
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { topic: '\u2714 bug 1', propagate_mode: 'change_all' }));
  await setRealm({}, { can_resolve_topics_group: 'role:everyone' });
});

move('between channels: permissions, notices, rows and access', async () => {
  const { member, owner, guest, moderator, admin } = cast;
  await createChannel(owner, 'from', { others: [member, guest, moderator] });
  const vaultId = await createChannel(owner, 'vault-to', { invite_only: true, others: [member] });
  const ids = [await sendToChannel(member, 'from', 'plan', 'one'), await sendToChannel(member, 'from', 'plan', 'two')];
  assertError(await guest.patch(`/api/v1/messages/${ids[0]}`, { stream_id: vaultId }), 'Invalid channel ID');
  await setRealm({}, { can_move_messages_between_channels_group: 'role:administrators' });
  assertError(await member.patch(`/api/v1/messages/${ids[0]}`, { stream_id: vaultId, propagate_mode: 'change_all' }), "You don't have permission to move this message");
  await setRealm({}, { can_move_messages_between_channels_group: 'role:members' });
  // The moderator, not subscribed to the private destination, loses the messages.
  const lost = await expectConsistent(moderator, () => member.patch(`/api/v1/messages/${ids[0]}`, { stream_id: vaultId, propagate_mode: 'change_all', send_notification_to_old_thread: true }), {
    types: TYPES,
  });
  const deleted = lost.filter((e) => e.type === 'delete_message').map((e) => e.message_id);
  assert.equal(deleted, ids, 'users losing access get delete_message');
  assertError(await moderator.get(`/api/v1/messages/${ids[0]}`), 'Invalid message(s)');
  const moved = await message(member, ids[0]!);
  assert.is(moved.stream_id, vaultId);
  assert.is(moved.display_recipient, 'vault-to');
  assert.type(moved.last_moved_timestamp, 'number');
  const arrived = await topicIds(member, 'vault-to', 'plan');
  assert.is(arrived.length, 3);
  assert.match((await message(member, arrived[2]!)).content, /^This topic was moved here from #\*\*from>plan\*\* by @_\*\*Mel Member\|\d+\*\*\.$/);
  const left = await topicIds(owner, 'from', 'plan');
  assert.is(left.length, 1);
  assert.match((await message(owner, left[0]!)).content, /^This topic was moved to #\*\*vault-to>plan\*\* by/);
  // History records the channel change.
  const history = assertSuccess(await member.get(`/api/v1/messages/${ids[0]}/history`)).message_history;
  assert.is(history.at(-1).prev_stream, realm.handle.state.channels.byName('from')!.id);
  assert.is(history.at(-1).stream, vaultId);
  void admin;
});

move('protected history: a move covers only what the mover can read (rule 8)', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'protected', { invite_only: true });
  const hidden = await sendToChannel(owner, 'protected', 'topic', 'before the member joined');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'protected' }], principals: [member.id] }));
  const seen = await sendToChannel(member, 'protected', 'topic', 'after');
  assertSuccess(await member.patch(`/api/v1/messages/${seen}`, { topic: 'renamed', propagate_mode: 'change_all', send_notification_to_new_thread: false }));
  assert.equal(await topicIds(owner, 'protected', 'topic'), [hidden]);
  assert.equal(await topicIds(owner, 'protected', 'renamed'), [seen]);
  // Having left, the member still reads what they received but may no longer move it.
  assertSuccess(await member.delete('/api/v1/users/me/subscriptions', { subscriptions: ['protected'] }));
  assert.is((await message(member, seen)).id, seen);
  assertError(await member.patch(`/api/v1/messages/${seen}`, { topic: 'again', send_notification_to_old_thread: false }), "You don't have permission to move this message");
  assert.equal(await topicIds(owner, 'protected', 'renamed'), [seen]);
});

move('topic settings follow a whole-topic move', async () => {
  const { owner, member } = cast;
  const id0 = await createChannel(owner, 'settings', { others: [member] });
  const id = await sendToChannel(owner, 'settings', 'followed', 'x');
  assertSuccess(await member.post('/api/v1/user_topics', { stream_id: id0, topic: 'followed', visibility_policy: 3 }));
  await expectConsistent(member, () => owner.patch(`/api/v1/messages/${id}`, { topic: 'still followed', propagate_mode: 'change_all' }), { types: TYPES });
  const topics = (await registerState(member, { types: ['user_topic'] })).user_topics;
  assert.ok(topics.some((t: { topic_name: string; visibility_policy: number }) => t.topic_name === 'still followed' && t.visibility_policy === 3));
  assert.not.ok(topics.some((t: { topic_name: string }) => t.topic_name === 'followed'));
});

move('permission table: editing, moving and deleting someone else\'s message, by role', async () => {
  const { owner } = cast;
  await createChannel(owner, 'table', { others: [cast.admin, cast.moderator, cast.member, cast.guest, cast.bot] });
  const elsewhere = await createChannel(owner, 'table-2', { others: [cast.admin, cast.moderator, cast.member, cast.guest, cast.bot] });
  // With the defaults: topics may be moved by everyone, channels by members, content by the
  // sender only, and any message deleted by administrators.
  const expected: Record<string, { topic: boolean; channel: boolean; content: boolean; del: boolean }> = {
    owner: { topic: true, channel: true, content: false, del: true },
    admin: { topic: true, channel: true, content: false, del: true },
    moderator: { topic: true, channel: true, content: false, del: false },
    member: { topic: true, channel: true, content: false, del: false },
    guest: { topic: true, channel: false, content: false, del: false },
    bot: { topic: true, channel: true, content: false, del: false },
  };
  const author = await realm.createUser({ name: 'Table Author' });
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'table' }], principals: [author.id] }));
  for (const [role, e] of Object.entries(expected)) {
    const u = cast[role as keyof Cast];
    const id = await sendToChannel(author, 'table', `t-${role}`, 'x');
    const check = (ok: boolean, r: Awaited<ReturnType<TestUser['patch']>>, msg: string) => (ok ? assertSuccess(r) : assertError(r, msg));
    check(e.content, await u.patch(`/api/v1/messages/${id}`, { content: 'mine now' }), "You don't have permission to edit this message");
    check(e.topic, await u.patch(`/api/v1/messages/${id}`, { topic: `moved-${role}`, send_notification_to_new_thread: false }), "You don't have permission to edit this message");
    check(e.channel, await u.patch(`/api/v1/messages/${id}`, { stream_id: elsewhere, send_notification_to_new_thread: false }), "You don't have permission to move this message");
    check(e.del, await u.delete(`/api/v1/messages/${id}`), "You don't have permission to delete this message");
  }
  // The author may do all of it to their own message.
  const own = await sendToChannel(author, 'table', 'own', 'x');
  assertSuccess(await author.patch(`/api/v1/messages/${own}`, { content: 'edited' }));
  assertSuccess(await author.delete(`/api/v1/messages/${own}`));
});

const deletion = suite('deleting messages');

deletion('own messages, any message, and the event', async () => {
  const { owner, member, admin, moderator } = cast;
  await createChannel(owner, 'deletes', { others: [member, admin, moderator] });
  const mine = await sendToChannel(member, 'deletes', 't', 'mine');
  const theirs = await sendToChannel(owner, 'deletes', 't', 'theirs');
  await sendToChannel(owner, 'deletes', 't', 'keeps max_message_id');
  assertError(await member.delete(`/api/v1/messages/${theirs}`), "You don't have permission to delete this message");
  assertError(await moderator.delete(`/api/v1/messages/${theirs}`), "You don't have permission to delete this message");
  const events = await expectConsistent(moderator, () => member.delete(`/api/v1/messages/${mine}`), { types: DELETE_TYPES });
  assert.equal(events.map((e) => [e.type, e.message_id, e.message_type]), [['delete_message', mine, 'stream']]);
  const bulk = await expectConsistent(moderator, () => admin.delete(`/api/v1/messages/${theirs}`), {
    types: DELETE_TYPES,
    registerParams: { client_capabilities: { bulk_message_deletion: true } },
  });
  assert.equal(bulk.map((e) => e.message_ids), [[theirs]]);
  assertError(await member.get(`/api/v1/messages/${mine}`), 'Invalid message(s)');
  await setRealm({ message_content_delete_limit_seconds: 60 });
  const late = await sendToChannel(member, 'deletes', 't', 'late');
  clock.advance(120_000);
  assertError(await member.delete(`/api/v1/messages/${late}`), 'The time limit for deleting this message has passed');
  await setRealm({ message_content_delete_limit_seconds: null }, { can_delete_own_message_group: 'role:nobody' });
  assertError(await member.delete(`/api/v1/messages/${late}`), "You don't have permission to delete this message");
  await setRealm({}, { can_delete_own_message_group: 'role:everyone' });
  assertSuccess(await member.delete(`/api/v1/messages/${late}`));
});

deletion('a direct message', async () => {
  const { owner, member } = cast;
  const dm = await sendDirect(member, [owner], 'oops');
  await sendDirect(member, [owner], 'later');
  const events = await expectConsistent(owner, () => member.delete(`/api/v1/messages/${dm}`), { types: DELETE_TYPES });
  assert.equal(events.map((e) => [e.type, e.message_type]), [['delete_message', 'private']]);
});

deletion('a whole topic, by an administrator, in batches, and only what they may read of it', async () => {
  const { owner, member, admin, moderator } = cast;
  const room = await createChannel(owner, 'topic-deletes', { others: [member, admin, moderator] });
  const doomed: number[] = [];
  for (let i = 0; i < 150; i += 10) {
    doomed.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => sendToChannel(i + j < 75 ? owner : member, 'topic-deletes', 'Doomed', `m${i + j}`)))));
  }
  const kept = await sendToChannel(owner, 'topic-deletes', 'kept', 'stays');
  for (const u of [moderator, member]) {
    assertError(await u.post(`/api/v1/streams/${room}/delete_topic`, { topic_name: 'doomed' }), 'Must be an organization administrator');
  }
  let answer: Record<string, unknown> = {};
  const events = await expectConsistent(moderator, async () => (answer = assertSuccess(await admin.post(`/api/v1/streams/${room}/delete_topic`, { topic_name: 'DOOMED' }))), {
    types: DELETE_TYPES,
    registerParams: { client_capabilities: { bulk_message_deletion: true } },
  });
  assert.is(answer.complete, true);
  // Newest first, a hundred at a time.
  const batches = events.filter((e) => e.type === 'delete_message').map((e) => e.message_ids as number[]);
  assert.equal(batches.map((b) => b.length), [100, 50]);
  assert.equal(batches.flat().sort((a, b) => a - b), [...doomed].sort((a, b) => a - b));
  assert.ok(Math.min(...batches[0]!) > Math.max(...batches[1]!), 'the newest go first');
  for (const id of [doomed[0]!, doomed[149]!]) assertError(await member.get(`/api/v1/messages/${id}`), 'Invalid message(s)');
  assertSuccess(await member.get(`/api/v1/messages/${kept}`));
  assert.equal(assertSuccess(await admin.post(`/api/v1/streams/${room}/delete_topic`, { topic_name: 'doomed' })).complete, true, 'nothing left');
  // A private channel the administrator cannot read, and protected history: only what they received.
  const secret = await createChannel(owner, 'topic-secret', { invite_only: true, others: [member] });
  assertError(await admin.post(`/api/v1/streams/${secret}/delete_topic`, { topic_name: 't' }), 'Invalid channel ID');
  const before = await sendToChannel(owner, 'topic-secret', 't', 'before the administrator came');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'topic-secret' }], principals: [admin.id] }));
  const after = await sendToChannel(owner, 'topic-secret', 't', 'after');
  assertSuccess(await admin.post(`/api/v1/streams/${secret}/delete_topic`, { topic_name: 't' }));
  assertSuccess(await member.get(`/api/v1/messages/${before}`));
  assertError(await member.get(`/api/v1/messages/${after}`), 'Invalid message(s)');
  assertError(await admin.post(`/api/v1/streams/${room}/delete_topic`, {}), "Missing 'topic_name' argument");
});

deletion('a topic that takes longer than one request may is left partly deleted, and the answer says so', async () => {
  const { owner, admin } = cast;
  const room = await createChannel(owner, 'topic-slow', { others: [admin] });
  const ids: number[] = [];
  for (let i = 0; i < 150; i += 10) ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => sendToChannel(owner, room, 'slow', `s${i + j}`)))));
  const left = async () => (await Promise.all(ids.map((id) => admin.get(`/api/v1/messages/${id}`)))).filter((r) => r.status === 200).length;
  // Every reading of the clock from here on is 11 s later than the one before: past the budget after one batch.
  clock.step = 11_000;
  let first: Record<string, unknown>;
  try {
    first = assertSuccess(await admin.post(`/api/v1/streams/${room}/delete_topic`, { topic_name: 'slow' }));
  } finally {
    clock.step = 0;
  }
  assert.is(first.complete, false);
  assert.is(await left(), 50, 'one batch of a hundred went');
  assert.is(assertSuccess(await admin.post(`/api/v1/streams/${room}/delete_topic`, { topic_name: 'slow' })).complete, true);
  assert.is(await left(), 0);
});

const history = suite('edit history');

history('snapshots, oldest first, with exactly the documented fields', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'history', { others: [member] });
  const id = await sendToChannel(member, 'history', '', 'v1');
  clock.advance(1000);
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: 'v2' }));
  clock.advance(1000);
  assertSuccess(await member.patch(`/api/v1/messages/${id}`, { topic: 'named', send_notification_to_new_thread: false }));
  const h = assertSuccess(await owner.get(`/api/v1/messages/${id}/history`)).message_history;
  assert.is(h.length, 3);
  assert.equal(Object.keys(h[0]).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal(h[0], { topic: 'general chat', content: 'v1', rendered_content: '<p>v1</p>', user_id: member.id, timestamp: h[0].timestamp });
  assert.equal(Object.keys(h[1]).sort(), ['content', 'content_html_diff', 'prev_content', 'prev_rendered_content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.is(h[1].prev_content, 'v1');
  assert.is(h[1].content, 'v2');
  assert.match(h[1].content_html_diff, /highlight_text_inserted/);
  assert.equal(Object.keys(h[2]).sort(), ['content', 'prev_topic', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.is(h[2].prev_topic, 'general chat');
  assert.is(h[2].topic, 'named');
  assert.ok(h[0].timestamp < h[1].timestamp && h[1].timestamp < h[2].timestamp);
  const raw = assertSuccess(await owner.get(`/api/v1/messages/${id}/history`, { allow_empty_topic_name: true })).message_history;
  assert.is(raw[0].topic, '');
  assert.is(raw[2].prev_topic, '');
  assertError(await owner.get('/api/v1/messages/999999/history'), 'Invalid message(s)');
  await setRealm({ allow_edit_history: false });
  assertError(await owner.get(`/api/v1/messages/${id}/history`), 'Message edit history is disabled in this organization');
  await setRealm({ allow_edit_history: true });
});

const topics = suite('topics and topic settings');

topics('GET /users/me/{stream_id}/topics, newest first, protected history', async () => {
  const { owner, member, guest } = cast;
  const id = await createChannel(owner, 'topic-list', { invite_only: true });
  await sendToChannel(owner, 'topic-list', 'early', 'x');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'topic-list' }], principals: [member.id] }));
  const b = await sendToChannel(owner, 'topic-list', 'Late', 'x');
  const c = await sendToChannel(owner, 'topic-list', 'late', 'x');
  const d = await sendToChannel(owner, 'topic-list', '', 'x');
  const all = assertSuccess(await owner.get(`/api/v1/users/me/${id}/topics`)).topics;
  assert.equal(all.map((t: { name: string }) => t.name), ['general chat', 'late', 'early']);
  assert.equal(all[1], { name: 'late', max_id: c });
  const mine = assertSuccess(await member.get(`/api/v1/users/me/${id}/topics`, { allow_empty_topic_name: true })).topics;
  assert.equal(mine, [{ name: '', max_id: d }, { name: 'late', max_id: c }]);
  assertError(await guest.get(`/api/v1/users/me/${id}/topics`), 'Invalid channel ID');
  assertError(await owner.get('/api/v1/users/me/999999/topics'), 'Invalid channel ID');
  void b;
});

topics('muting, unmuting and following topics', async () => {
  const { owner, member, guest } = cast;
  const id = await createChannel(owner, 'mutes', { others: [member] });
  await sendToChannel(owner, 'mutes', 'noisy', 'unread 1');
  await sendToChannel(owner, 'mutes', 'noisy', 'unread 2');
  const set = (policy: number, topic = 'noisy') => member.post('/api/v1/user_topics', { stream_id: id, topic, visibility_policy: policy });
  const muted = await expectConsistent(member, () => set(1), { types: TYPES });
  assert.equal(muted.map((e) => [e.type, e.topic_name, e.visibility_policy]), [['user_topic', 'noisy', 1]]);
  assert.type(muted[0]!.last_updated, 'number');
  await expectConsistent(member, () => set(3), { types: TYPES });
  await expectConsistent(member, () => set(0), { types: TYPES });
  await expectConsistent(member, () => set(1, 'no such topic yet'), { types: TYPES });
  await expectConsistent(member, () => set(0, ''), { types: TYPES });
  // Muting a channel; a followed topic inside stays counted.
  await expectConsistent(member, () => member.patch(`/api/v1/users/me/subscriptions/${id}`, { property: 'is_muted', value: true }), { types: TYPES });
  await expectConsistent(member, () => set(2), { types: TYPES });
  assertError(await member.post('/api/v1/user_topics', { stream_id: id, topic: 'x', visibility_policy: 7 }), 'Invalid visibility_policy');
  assertError(await member.post('/api/v1/user_topics', { stream_id: id, topic: 'x'.repeat(61), visibility_policy: 1 }), 'topic is too long (limit: 60 characters)');
  assertError(await guest.post('/api/v1/user_topics', { stream_id: id, topic: 'x', visibility_policy: 1 }), 'Invalid channel ID');
  assertError(await owner.post('/api/v1/user_topics', { stream_id: 999999, topic: 'x', visibility_policy: 1 }), 'Invalid channel ID');
});

topics('the deprecated muted_topics endpoint', async () => {
  const { owner, member, admin } = cast;
  const id = await createChannel(owner, 'mutes-2', { others: [member] });
  const op = (params: Record<string, unknown>, u = member) => u.patch('/api/v1/users/me/subscriptions/muted_topics', params as never);
  const events = await expectConsistent(member, () => op({ stream_id: id, topic: 'chatter', op: 'add' }), { types: ['user_topic'] });
  assert.equal(events.map((e) => e.visibility_policy), [1]);
  assertSuccess(await op({ stream_id: id, topic: 'chatter', op: 'add' }));
  await expectConsistent(member, () => op({ stream: 'mutes-2', topic: 'chatter', op: 'remove' }), { types: ['user_topic'] });
  assertSuccess(await op({ stream: 'mutes-2', topic: 'never muted', op: 'remove' }));
  assertError(await op({ stream_id: id, stream: 'mutes-2', topic: 'x', op: 'add' }), 'Unsupported parameter combination: stream_id, stream');
  assertError(await op({ topic: 'x', op: 'add' }), "Missing 'stream_id' argument");
  assertError(await op({ stream_id: id, topic: 'x', op: 'toggle' }), 'Invalid op');
  assertError(await op({ stream_id: id, topic: 'x', op: 'add' }, admin), `Not subscribed to channel ID ${id}`);
  assertError(await op({ stream: 'nope', topic: 'x', op: 'add' }), "Invalid channel name 'nope'");
});

topics.after(async () => {
  await server.close();
});

content.run();
move.run();
deletion.run();
history.run();
topics.run();

