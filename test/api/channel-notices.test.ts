// Notification Bot tells a channel what changed in it (PATCH /streams/{id}): a rename, a new
// description, new access; in the channel's "channel events" topic, one message a change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, type Cast } from '../helpers/messaging.js';
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
async function notices(channelId: number): Promise<string[]> {
  const narrow = [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'channel events' }];
  const r = assertSuccess(await cast.owner.get('/api/v1/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow, apply_markdown: false }));
  return (r.messages as Array<{ content: string; sender_full_name: string }>).map((m) => `${m.sender_full_name}: ${m.content}`);
}

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
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { new_name: 'quiet-board', description: 'Same', is_private: false }));
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_default_stream: true, message_retention_days: JSON.stringify(30) }));
  assert.equal(await notices(id), []);
});

t('an archived channel gets no notice', async () => {
  const { owner } = cast;
  const id = await createChannel(owner, 'old-board');
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { is_archived: true, description: 'archived now' }));
  assert.equal(await notices(id), []);
});

t.run();
