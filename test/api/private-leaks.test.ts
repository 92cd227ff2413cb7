// A private channel with protected history must not leak to anyone outside it, through any
// path: narrows, search, single messages, edit history, topics, flags, reactions, edits,
// deletes, typing, topic settings, marking read, uploads, sending. Table-driven over every role
// that is not subscribed (organization administrators included: they see that it exists, never
// what it says), then deactivated accounts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, deactivate, sendToChannel, type Cast, type RoleName } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
let insider: TestUser;
let channelId: number;
let messageId: number;
let fileUrl: string;

const OUTSIDERS: readonly RoleName[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

type Probe = (u: TestUser) => Promise<void>;

const PROBES: Record<string, Probe> = {
  'GET /messages in the channel': async (u) =>
    void assertError(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['channel', channelId]] }), 'Invalid narrow operator: unknown channel'),
  'search everywhere': async (u) => {
    const r = assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['search', 'launchcodes']] }));
    assert.equal(r.messages, []);
  },
  'public-channels search': async (u) => {
    const r = assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['channels', 'public'], ['search', 'launchcodes']] }));
    assert.equal(r.messages, []);
  },
  'GET /messages/{id}': async (u) => void assertError(await u.get(`/api/v1/messages/${messageId}`), 'Invalid message(s)'),
  'message_ids': async (u) => assert.equal(assertSuccess(await u.get('/api/v1/messages', { message_ids: [messageId] })).messages, []),
  'edit history': async (u) => void assertError(await u.get(`/api/v1/messages/${messageId}/history`), 'Invalid message(s)'),
  'topics': async (u) => void assertError(await u.get(`/api/v1/users/me/${channelId}/topics`), 'Invalid channel ID'),
  'flags': async (u) => void assertError(await u.post('/api/v1/messages/flags', { messages: [messageId], op: 'add', flag: 'starred' }), 'Invalid message(s)'),
  'reactions': async (u) => void assertError(await u.post(`/api/v1/messages/${messageId}/reactions`, { emoji_name: 'eyes' }), 'Invalid message(s)'),
  'editing': async (u) => void assertError(await u.patch(`/api/v1/messages/${messageId}`, { topic: 'stolen' }), 'Invalid message(s)'),
  'deleting': async (u) => void assertError(await u.delete(`/api/v1/messages/${messageId}`), 'Invalid message(s)'),
  'edit typing': async (u) => void assertError(await u.post(`/api/v1/messages/${messageId}/typing`, { op: 'start' }), 'Invalid message(s)'),
  'typing in the channel': async (u) => void assertError(await u.post('/api/v1/typing', { type: 'stream', op: 'start', stream_id: channelId, topic: 'x' }), 'Invalid channel ID'),
  'topic settings': async (u) => void assertError(await u.post('/api/v1/user_topics', { stream_id: channelId, topic: 'plans', visibility_policy: 1 }), 'Invalid channel ID'),
  'mark channel read': async (u) => void assertError(await u.post('/api/v1/mark_stream_as_read', { stream_id: channelId }), 'Invalid channel ID'),
  'channel id by name': async (u) => void assertError(await u.get('/api/v1/get_stream_id', { stream: 'bunker' }), "Invalid channel name 'bunker'"),
  'the uploaded file': async (u) => void assertError(await u.get(fileUrl), 'File not found', 404),
  'a temporary URL for it': async (u) => void assertError(await u.get(`/api/v1${fileUrl}`), 'File not found', 404),
  'moving a message into it': async (u) => {
    const mine = await sendToChannel(u, 'lobby', 'x', 'mine');
    assertError(await u.patch(`/api/v1/messages/${mine}`, { stream_id: channelId }), 'Invalid channel ID');
  },
};

const leaks = suite('no leaks from a private channel with protected history');
leaks.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  insider = await realm.createUser({ name: 'Ian Insider' });
  channelId = await createChannel(insider, 'bunker', { invite_only: true });
  await createChannel(cast.owner, 'lobby', { others: [cast.admin, cast.moderator, cast.member, cast.guest, cast.bot] });
  const boundary = 'leakBoundary';
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="plans.txt"\r\nContent-Type: text/plain\r\n\r\nlaunchcodes\r\n--${boundary}--\r\n`);
  const up = assertSuccess(await insider.post('/api/v1/user_uploads', {}, { body, contentType: `multipart/form-data; boundary=${boundary}` }));
  fileUrl = up.url;
  messageId = await sendToChannel(insider, 'bunker', 'plans', `launchcodes are in [here](${up.url})`);
});

for (const role of OUTSIDERS) {
  leaks(`${role}: every path is closed`, async () => {
    const u = cast[role];
    for (const [name, probe] of Object.entries(PROBES)) {
      try {
        await probe(u);
      } catch (e) {
        throw new Error(`${role} / ${name}: ${(e as Error).message}`);
      }
    }
  });
}

leaks('the insider sees it all (the probes can fail)', async () => {
  assertSuccess(await insider.get(`/api/v1/messages/${messageId}`));
  assertSuccess(await insider.get(`/api/v1/users/me/${channelId}/topics`));
  assert.is((await insider.get(fileUrl)).status, 200);
  const found = assertSuccess(await insider.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['search', 'launchcodes']] }));
  assert.equal(found.messages.map((m: { id: number }) => m.id), [messageId]);
});

leaks('an organization administrator knows it exists, not what it says', async () => {
  const s = assertSuccess(await cast.admin.get(`/api/v1/streams/${channelId}`)).stream;
  assert.is(s.name, 'bunker');
  assert.is(s.first_message_id, messageId);
  assertError(await cast.member.get(`/api/v1/streams/${channelId}`), 'Invalid channel ID');
});

leaks('deactivated accounts get nothing at all', async () => {
  const gone = await realm.createUser({ name: 'Gone Insider' });
  assertSuccess(await insider.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'bunker' }], principals: [gone.id] }));
  await deactivate(gone);
  for (const r of [
    await gone.get(`/api/v1/messages/${messageId}`),
    await gone.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0 }),
    await gone.get(fileUrl),
  ]) {
    assertError(r, 'Account is deactivated', 401, 'USER_DEACTIVATED');
  }
});

leaks.after(async () => {
  await server.close();
});

leaks.run();
