// Notification Bot tells a channel what changed in it (PATCH and DELETE /streams/{id}): its archival
// or unarchival, a rename, a new description, new access, who may post; in the channel's
// "channel events" topic, one message a change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents } from '../helpers/consistency.js';
import { castOf, topicLog, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const t = suite('channel change notices');

t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
});

t.after(() => server.close());

/** The channel's "channel events" topic, oldest first, as "sender: content". */
const notices = (channelId: number) => topicLog(cast.owner, channelId, 'channel events');

/** A public channel of the owner's, with a description (and others subscribed). */
async function channelWith(name: string, description: string, others: Array<{ id: number }> = []): Promise<number> {
  const principals = [cast.owner.id, ...others.map((u) => u.id)];
  assertSuccess(await cast.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name, description }], principals }));
  return realm.handle.state.channels.byName(name)!.id;
}

const mention = (u: { id: number }) => `@_**${realm.handle.state.user(u.id)!.full_name}|${u.id}**`;

t('a rename, a description and new access are each told in the channel, by whom', async () => {
  const { owner, admin } = cast;
  const id = await channelWith('notice-board', 'Pins and **posters**', [admin]);
  assertSuccess(await admin.patch(`/api/v1/streams/${id}`, { new_name: 'notice-wall' }));
  assertSuccess(await admin.patch(`/api/v1/streams/${id}`, { description: 'Only `posters`' }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_private: true, history_public_to_subscribers: false }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { description: '' }));
  assert.equal(await notices(id), [
    `Notification Bot: ${mention(admin)} renamed this channel from **notice-board** to **notice-wall**.`,
    `Notification Bot: ${mention(admin)} changed this channel's description.\n\nBefore:\n\`\`\`quote\nPins and **posters**\n\`\`\`\n\nNow:\n\`\`\`quote\nOnly \`posters\`\n\`\`\``,
    `Notification Bot: ${mention(owner)} made this channel private, with protected history (it was public).`,
    `Notification Bot: ${mention(owner)} changed this channel's description.\n\nBefore:\n\`\`\`quote\nOnly \`posters\`\n\`\`\`\n\nNow:\n*No description.*`,
  ]);
});

t('changes that change nothing are not told, nor anything else a PATCH does', async () => {
  const { owner } = cast;
  const id = await channelWith('quiet-board', 'Same');
  const everyone = realm.handle.state.systemGroupId('role:everyone');
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { new_name: 'quiet-board', description: 'Same', is_private: false }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_default_stream: true, message_retention_days: 'realm_default' }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { can_send_message_group: { new: everyone } }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { can_remove_subscribers_group: { new: realm.handle.state.systemGroupId('role:moderators') } }));
  assert.equal(await notices(id), []);
});

t('a new retention period is told in words', async () => {
  const { owner } = cast;
  const id = await channelWith('archive-room', 'Old things');
  for (const days of [30, 1, 'unlimited', 'realm_default']) assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { message_retention_days: days }));
  const by = mention(owner);
  assert.equal(await notices(id), [
    `Notification Bot: ${by} changed how long this channel keeps messages to 30 days (it was the organization's period).`,
    `Notification Bot: ${by} changed how long this channel keeps messages to 1 day (it was 30 days).`,
    `Notification Bot: ${by} changed how long this channel keeps messages to forever (it was 1 day).`,
    `Notification Bot: ${by} changed how long this channel keeps messages to the organization's period (it was forever).`,
  ]);
});

t('who may post is told in words: a role, a user group, the users and groups listed, nobody', async () => {
  const { owner, admin, member } = cast;
  const id = await channelWith('stage', 'Talks', [member]);
  const state = realm.handle.state;
  const group = assertSuccess(await owner.post('/api/v1/user_groups/create', { name: 'speakers', description: '', members: [member.id] })).group_id as number;
  const set = (by: typeof owner, value: unknown) => by.patch(`/api/v1/streams/${id}`, { can_send_message_group: { new: value } });
  assertSuccess(await set(admin, state.systemGroupId('role:administrators')));
  assertSuccess(await set(admin, group));
  assertSuccess(await set(owner, { direct_members: [member.id, admin.id], direct_subgroups: [state.systemGroupId('role:moderators')] }));
  assertSuccess(await set(owner, { direct_members: [], direct_subgroups: [] }));
  assert.equal(await notices(id), [
    `Notification Bot: ${mention(admin)} changed who may post in this channel to administrators (it was everyone, guests included).`,
    `Notification Bot: ${mention(admin)} changed who may post in this channel to @_*speakers* (it was administrators).`,
    `Notification Bot: ${mention(owner)} changed who may post in this channel to moderators, ${mention(admin)} and ${mention(member)} (it was @_*speakers*).`,
    `Notification Bot: ${mention(owner)} changed who may post in this channel to nobody (it was moderators, ${mention(admin)} and ${mention(member)}).`,
  ]);
});

t('archiving is told in the archived channel, whichever way it is asked; later changes are not', async () => {
  const { owner, admin, member } = cast;
  const patched = await channelWith('old-board', 'Old', [member]);
  assertSuccess(await owner.patch(`/api/v1/streams/${patched}`, { is_archived: true, description: 'archived now' }));
  assertSuccess(await owner.patch(`/api/v1/streams/${patched}`, { new_name: 'older-board' }));
  assert.equal(await notices(patched), [`Notification Bot: ${mention(owner)} archived this channel.`]);

  const deleted = await channelWith('gone-board', 'Gone', [member]);
  const queue = assertSuccess(await member.post('/api/v1/register', { event_types: ['message'] })).queue_id as string;
  assertSuccess(await admin.delete(`/api/v1/streams/${deleted}`));
  assert.equal(await notices(deleted), [`Notification Bot: ${mention(admin)} archived this channel.`]);
  const heard = (await drainEvents(member, queue)).map((e) => (e.message as { stream_id: number; content: string }).content);
  assert.equal(heard, [`${mention(admin)} archived this channel.`], 'its subscribers hear of it');
});

t('unarchiving is told first, then the changes asked with it; a refused request unarchives nothing', async () => {
  const { owner } = cast;
  const id = await channelWith('back-board', 'Back');
  await channelWith('taken-board', 'Taken');
  assertSuccess(await owner.delete(`/api/v1/streams/${id}`));
  assertError(await owner.patch(`/api/v1/streams/${id}`, { is_archived: false, new_name: 'taken-board' }), "Channel 'taken-board' already exists", 400, 'CHANNEL_ALREADY_EXISTS');
  assert.is(realm.handle.state.channels.get(id)!.is_archived, true);
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_archived: false }));
  assertSuccess(await owner.delete(`/api/v1/streams/${id}`));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_archived: false, new_name: 'front-board' }));
  assert.equal(await notices(id), [
    `Notification Bot: ${mention(owner)} archived this channel.`,
    `Notification Bot: ${mention(owner)} unarchived this channel.`,
    `Notification Bot: ${mention(owner)} archived this channel.`,
    `Notification Bot: ${mention(owner)} unarchived this channel.`,
    `Notification Bot: ${mention(owner)} renamed this channel from **back-board** to **front-board**.`,
  ]);
});

t.run();
