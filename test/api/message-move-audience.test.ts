// Who hears of a moved message (found by the model test): whoever may still read it and held it or
// follows its channels gets update_message, whoever could read it and no longer can gets
// delete_message, and nobody else hears anything.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents } from '../helpers/consistency.js';
import { castOf, createChannel, deactivate, sendToChannel, subscribe, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

async function queueOf(u: TestUser): Promise<string> {
  const r = assertSuccess(await u.post('/api/v1/register', { event_types: ['update_message', 'delete_message'], fetch_event_types: [], client_capabilities: { bulk_message_deletion: true } }));
  return r.queue_id as string;
}

/** The event types the user's queue received for the message. */
async function heard(u: TestUser, queueId: string, messageId: number): Promise<string[]> {
  const events = await drainEvents(u, queueId);
  return events.filter((e) => (e.message_ids as number[]).includes(messageId)).map((e) => e.type as string);
}

const audience = suite('the audience of a move');
audience.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  await realm.updateSettings({ enable_spectator_access: true });
  cast = await castOf(realm);
});

audience('a sender who is not subscribed hears that their message moved', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'square');
  const to = await createChannel(owner, 'plaza');
  const id = await sendToChannel(member, 'square', 'news', 'from outside');
  const q = await queueOf(member);
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { stream_id: to }));
  assert.equal(await heard(member, q, id), ['update_message']);
});

audience('a guest moved into a web-public channel keeps reading it: an update, not a delete', async () => {
  const { owner, guest } = cast;
  await createChannel(owner, 'porch', { others: [guest] });
  const to = await createChannel(owner, 'window', { is_web_public: true });
  const id = await sendToChannel(owner, 'porch', 'news', 'visible to the world');
  const q = await queueOf(guest);
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { stream_id: to }));
  assert.equal(await heard(guest, q, id), ['update_message']);
  assertSuccess(await guest.get(`/api/v1/messages/${id}`));
});

audience('a subscriber who never held the message and loses sight of it gets a delete, not the new place', async () => {
  const { owner, member } = cast;
  await createChannel(owner, 'club', { invite_only: true, history_public_to_subscribers: true });
  const to = await createChannel(owner, 'vault', { invite_only: true });
  const id = await sendToChannel(owner, 'club', 'plans', 'before you came');
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'club' }], principals: [member.id] }));
  const q = await queueOf(member);
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { stream_id: to }));
  assert.equal(await heard(member, q, id), ['delete_message']);
});

audience('a plain subscriber of both channels hears one update', async () => {
  const { owner, admin } = cast;
  await createChannel(owner, 'left', { others: [admin] });
  const to = await createChannel(owner, 'right');
  await subscribe(admin, 'right');
  const id = await sendToChannel(owner, 'left', 'news', 'travelling');
  const q = await queueOf(admin);
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { stream_id: to }));
  assert.equal(await heard(admin, q, id), ['update_message']);
});

audience('a deactivated subscriber gets no row for a message moved into protected history', async () => {
  const { owner, member } = cast;
  const away = await realm.createUser({ name: 'Away Member' });
  await createChannel(owner, 'hall');
  const to = await createChannel(owner, 'bunker', { invite_only: true, others: [away, member] });
  const id = await sendToChannel(owner, 'hall', 'news', 'moved while away');
  await deactivate(away);
  assertSuccess(await owner.patch(`/api/v1/messages/${id}`, { stream_id: to }));
  assertSuccess(await owner.post(`/api/v1/users/${away.id}/reactivate`));
  assertError(await away.get(`/api/v1/messages/${id}`), 'Invalid message(s)');
  assertSuccess(await member.get(`/api/v1/messages/${id}`));
});

audience.after(async () => {
  await server.close();
});

audience.run();
