// POST /register and GET/DELETE /events: the register response, long-poll parking and waking,
// heartbeats, dont_block, acknowledgement, BAD_EVENT_QUEUE_ID, idle expiry, deactivation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Role } from '../../src/domain/roles.js';
import { Hangup } from '../../src/hangup.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { within } from '../helpers/load-clients.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let alice: TestUser;
let bob: TestUser;

const register = async (u: TestUser, params: Record<string, unknown> = {}) =>
  assertSuccess(await u.post('/api/v1/register', params as never));

const t = suite('POST /register');
t.before(async () => {
  server = await startTestServer({ env: { HEARTBEAT_MS: '400', QUEUE_IDLE_TIMEOUT_SECONDS: '600' } });
  realm = await server.createRealm();
  alice = await realm.createUser({ name: 'Alice' });
  bob = await realm.createUser({ name: 'Bob' });
});

t('always-present members', async () => {
  const r = await register(alice, { fetch_event_types: [] });
  assert.match(r.queue_id, /^[0-9a-f-]{36}$/);
  assert.is(r.last_event_id, -1);
  assert.is(r.idle_queue_timeout_secs, 600);
  assert.is(r.service_feature_level, 496);
  assert.is(r.max_topic_length, 60);
  assert.is(r.max_message_length, 10000);
  assert.is(r.max_channel_folder_name_length, 60);
  assert.is(r.max_channel_folder_description_length, 1024);
  assert.is(r.realm_empty_topic_display_name, 'general chat');
  assert.is(r.realm_topics_policy, 'allow_empty_topic');
  assert.is(r.has_videocall_token, false);
  assert.not.ok('realm_users' in r);
  assert.not.ok('realm_name' in r);
  assert.not.ok('user_settings' in r);
});

t('members follow fetch_event_types, else event_types, else everything', async () => {
  const only = await register(alice, { fetch_event_types: ['realm_user'] });
  assert.ok(Array.isArray(only.realm_users));
  assert.not.ok('realm_name' in only);
  const viaEventTypes = await register(alice, { event_types: ['user_settings'] });
  assert.ok('user_settings' in viaEventTypes);
  assert.not.ok('realm_users' in viaEventTypes);
  const all = await register(alice);
  for (const k of ['realm_users', 'realm_non_active_users', 'user_settings', 'realm_name', 'realm_url', 'realm_can_create_groups']) {
    assert.ok(k in all, `missing ${k}`);
  }
  const split = await register(alice, { event_types: ['realm_user'], fetch_event_types: ['realm'] });
  assert.ok('realm_name' in split);
  assert.not.ok('realm_users' in split);
});

t('unsupported event types are ignored', async () => {
  const r = await register(alice, { event_types: ['no_such_type'], fetch_event_types: ['no_such_type', 'realm_user'] });
  assert.ok(Array.isArray(r.realm_users));
});

t('realm members carry settings and group-setting values', async () => {
  const r = await register(alice, { fetch_event_types: ['realm'] });
  assert.is(r.realm_allow_message_editing, true);
  assert.is(r.realm_message_content_edit_limit_seconds, 600);
  assert.type(r.realm_can_create_groups, 'number');
  assert.is(r.realm_url, `https://${realm.host}`);
});

t('realm_users shows what the viewer may see; own account fields', async () => {
  const r = await register(alice, { fetch_event_types: ['realm_user'] });
  const ids = r.realm_users.map((u: { user_id: number }) => u.user_id).sort();
  assert.equal(ids, [realm.owner.id, alice.id, bob.id].sort());
  assert.is(r.user_id, alice.id);
  assert.is(r.is_admin, false);
  assert.is(r.is_guest, false);
  const owner = r.realm_users.find((u: { user_id: number }) => u.user_id === realm.owner.id);
  assert.is(owner.avatar_url, null, 'client_extavatar defaults to true');
  const noExt = await register(alice, { fetch_event_types: ['realm_user'], client_extavatar: false });
  assert.match(noExt.realm_users[0].avatar_url, /^https:\/\//);
});

t('idle_queue_timeout is reported and clamped', async () => {
  assert.is((await register(alice, { idle_queue_timeout: 90, fetch_event_types: [] })).idle_queue_timeout_secs, 90);
  assert.is((await register(alice, { idle_queue_timeout: 10 ** 9, fetch_event_types: [] })).idle_queue_timeout_secs, 7 * 86400);
});

t('bad parameters', async () => {
  assertError(await alice.post('/api/v1/register', { narrow: [['search', 'x']] }), 'Operator search not supported.');
  assertError(await alice.post('/api/v1/register', { narrow: '[["is"]' }), 'Argument "narrow" is not valid JSON.');
  assertError(await alice.post('/api/v1/register', { client_capabilities: { bulk_message_deletion: 'yes' } }), 'client_capabilities["bulk_message_deletion"] is not a boolean');
  assertError(await alice.post('/api/v1/register', { event_types: 'message' }), 'Argument "event_types" is not valid JSON.');
  assertError(await alice.post('/api/v1/register', { include_subscribers: 'maybe' }), 'Invalid include_subscribers');
});

t('guests cannot ask for all_public_streams', async () => {
  const guest = await realm.createUser({ role: Role.guest });
  assertError(await guest.post('/api/v1/register', { all_public_streams: true }), 'User not authorized for this query');
  assertSuccess(await alice.post('/api/v1/register', { all_public_streams: true, fetch_event_types: [] }));
});

t('unauthenticated register needs public access, and then refuses the authenticated-only options', async () => {
  assertError(await realm.anonymous('POST', '/api/v1/register'), 'Not logged in: API authentication or user session required', 401);
  const open = await server.createRealm();
  const settings = { ...open.handle.state.realm.settings, enable_spectator_access: true };
  const { updateRealmSettings } = await import('../../src/store/realms.js');
  await updateRealmSettings(server.app.db, open.id, settings);
  await open.handle.reload();
  const r = assertSuccess(await open.anonymous('POST', '/api/v1/register', { fetch_event_types: ['realm', 'realm_user'] }));
  assert.is(r.queue_id, null);
  assert.is(r.realm_name, open.handle.state.realm.name);
  assert.not.ok('realm_users' in r);
  assertError(await open.anonymous('POST', '/api/v1/register', { client_extavatar: true }), "Invalid 'client_extavatar' parameter for anonymous request");
  assertError(await open.anonymous('POST', '/api/v1/register', { include_subscribers: 'true' }), "Invalid 'include_subscribers' parameter for anonymous request");
  assertSuccess(await open.anonymous('POST', '/api/v1/register', { include_subscribers: 'partial' }));
});

const ev = suite('GET /events');

ev('dont_block answers without parking', async () => {
  const { queue_id } = await register(alice, { fetch_event_types: [] });
  // A poll that parked instead would come back with a heartbeat event, not an empty list.
  const r = assertSuccess(await alice.get('/api/v1/events', { queue_id, dont_block: true }));
  assert.equal(r.events, []);
  assert.is(r.queue_id, queue_id);
});

ev('a long-poll parks until an event arrives', async () => {
  const { queue_id } = await register(alice, { event_types: ['realm_user'] });
  const started = Date.now();
  const parked = alice.get('/api/v1/events', { queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 100));
  const carol = await realm.createUser({ name: 'Carol' });
  const r = assertSuccess(await parked);
  assert.is(r.events.length, 1);
  assert.is(r.events[0].type, 'realm_user');
  assert.is(r.events[0].op, 'add');
  assert.is(r.events[0].person.user_id, carol.id);
  assert.is(r.events[0].person.full_name, 'Carol');
  assert.ok(Date.now() - started >= 100);
});

ev('a parked poll gets a heartbeat after a period of silence', async () => {
  const { queue_id } = await register(alice, { event_types: ['realm_user'] });
  const started = Date.now();
  const r = assertSuccess(await alice.get('/api/v1/events', { queue_id }));
  const waited = Date.now() - started;
  assert.is(r.events.length, 1);
  assert.is(r.events[0].type, 'heartbeat');
  assert.type(r.events[0].id, 'number');
  assert.ok(waited >= 340 && waited < 2000, `heartbeat after ${waited} ms`);
});

ev('events stay until acknowledged; ids strictly increase', async () => {
  const { queue_id } = await register(alice, { event_types: ['realm_user'] });
  const u1 = await realm.createUser();
  const u2 = await realm.createUser();
  const first = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: -1 })).events;
  assert.equal(first.map((e: { person: { user_id: number } }) => e.person.user_id), [u1.id, u2.id]);
  assert.ok(first[1].id > first[0].id);
  // Not acknowledged: asked again, the same events come back.
  const again = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: -1, dont_block: true })).events;
  assert.equal(again.map((e: { id: number }) => e.id), first.map((e: { id: number }) => e.id));
  // Acknowledging the first leaves the second.
  const rest = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: first[0].id, dont_block: true })).events;
  assert.equal(rest.map((e: { id: number }) => e.id), [first[1].id]);
  const none = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: first[1].id, dont_block: true })).events;
  assert.equal(none, []);
  const u3 = await realm.createUser();
  const later = assertSuccess(await alice.get('/api/v1/events', { queue_id, last_event_id: first[1].id })).events;
  assert.is(later[0].person.user_id, u3.id);
  assert.ok(later[0].id > first[1].id);
});

// Released events reach queues once per turn of the event loop (realm-queues.ts, handOver), so
// that under load a queue gets one message for many events; a request must still see every event
// released before it.
ev('a poll sees every event released before it, within the same turn', async () => {
  const { queue_id } = await register(alice, { event_types: ['typing'] });
  // No database work in between: the typing event is released and the poll made before any
  // timer or immediate of this turn runs.
  assertSuccess(await bob.post('/api/v1/typing', { to: [alice.id], op: 'start' }));
  const r = assertSuccess(await alice.get('/api/v1/events', { queue_id, dont_block: true }));
  assert.equal(r.events.map((e: { type: string; sender: { user_id: number } }) => [e.type, e.sender.user_id]), [['typing', bob.id]]);
});

ev('events released in one turn answer a parked poll together, in order', async () => {
  const { queue_id } = await register(alice, { event_types: ['typing'] });
  const parked = alice.get('/api/v1/events', { queue_id });
  await new Promise((r) => setTimeout(r, 50));
  const ops = ['start', 'stop', 'start', 'stop', 'start'];
  for (const r of await Promise.all(ops.map((op) => bob.post('/api/v1/typing', { to: [alice.id], op })))) assertSuccess(r);
  const events = assertSuccess(await parked).events as Array<{ id: number; op: string }>;
  assert.equal(events.map((e) => e.op), ops);
  for (let i = 1; i < events.length; i++) assert.ok(events[i]!.id > events[i - 1]!.id);
});

ev('event_types filters what a queue receives', async () => {
  const { queue_id } = await register(alice, { event_types: ['user_settings'] });
  await realm.createUser();
  assert.equal(await drainEvents(alice, queue_id), []);
});

ev('BAD_EVENT_QUEUE_ID: unknown, malformed, another user\u2019s, deleted', async () => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  const e1 = assertError(await alice.get('/api/v1/events', { queue_id: unknown }), `Bad event queue ID: ${unknown}`, 400, 'BAD_EVENT_QUEUE_ID');
  assert.is(e1.queue_id, unknown);
  assertError(await alice.get('/api/v1/events', { queue_id: 'not-a-queue' }), 'Bad event queue ID: not-a-queue', 400, 'BAD_EVENT_QUEUE_ID');
  const { queue_id } = await register(alice, { fetch_event_types: [] });
  assertError(await bob.get('/api/v1/events', { queue_id, dont_block: true }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
  assertError(await bob.delete('/api/v1/events', { queue_id }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
  assertSuccess(await alice.delete('/api/v1/events', { queue_id }));
  assertError(await alice.get('/api/v1/events', { queue_id, dont_block: true }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
  assertError(await alice.get('/api/v1/events'), "Missing 'queue_id' argument", 400, 'REQUEST_VARIABLE_MISSING');
});

ev('deleting a queue answers its parked poll', async () => {
  const { queue_id } = await register(alice, { fetch_event_types: [] });
  const parked = alice.get('/api/v1/events', { queue_id });
  await new Promise((r) => setTimeout(r, 50));
  assertSuccess(await alice.delete('/api/v1/events', { queue_id }));
  assertError(await parked, `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
});

ev('a client that goes away releases its parked poll; the queue stays', async () => {
  const { queue_id } = await register(alice, { event_types: ['realm_user'] });
  const hangup = new Hangup();
  const parked = alice.get('/api/v1/events', { queue_id }, { hangup });
  await new Promise((r) => setTimeout(r, 50));
  hangup.fire();
  await parked; // the in-process dispatcher still resolves; over HTTP the socket is gone
  const u = await realm.createUser();
  const r = assertSuccess(await alice.get('/api/v1/events', { queue_id, dont_block: true }));
  assert.is(r.events.at(-1).person.user_id, u.id);
});

ev('deactivating a user ends their queues at once', async () => {
  const dave = await realm.createUser({ name: 'Dave' });
  const { queue_id } = await register(dave, { fetch_event_types: [] });
  const parked = dave.get('/api/v1/events', { queue_id });
  await new Promise((r) => setTimeout(r, 50));
  await realm.handle.ask('user.setActive', { userId: dave.id, active: false, actorId: null });
  assertError(await parked, `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
  await realm.handle.ask('user.setActive', { userId: dave.id, active: true, actorId: null });
  assertError(await dave.get('/api/v1/events', { queue_id, dont_block: true }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
});

ev('a user with several queues: each gets the events, one can go, deactivation ends the rest', async () => {
  const erin = await realm.createUser({ name: 'Erin' });
  const queues = [];
  for (let i = 0; i < 3; i++) queues.push((await register(erin, { event_types: ['realm_user'] })).queue_id as string);
  const newcomer = async () => (await realm.createUser()).id;
  const lastOn = async (queue_id: string) => assertSuccess(await erin.get('/api/v1/events', { queue_id, dont_block: true })).events.at(-1)?.person?.user_id;
  let id = await newcomer();
  for (const q of queues) assert.is(await lastOn(q), id, 'three queues, each told');
  // One goes (the user's queues drop from three to two, then to one): the others still hear.
  assertSuccess(await erin.delete('/api/v1/events', { queue_id: queues[1] }));
  id = await newcomer();
  assert.is(await lastOn(queues[0]!), id);
  assert.is(await lastOn(queues[2]!), id);
  assertSuccess(await erin.delete('/api/v1/events', { queue_id: queues[0] }));
  id = await newcomer();
  assert.is(await lastOn(queues[2]!), id, 'the last queue left is still told');
  // A new one beside it, then deactivation: every queue of the user ends at once.
  const fourth = (await register(erin, { event_types: ['realm_user'] })).queue_id as string;
  const parked = [queues[2]!, fourth].map((queue_id) => erin.get('/api/v1/events', { queue_id, last_event_id: 1e15 }));
  await new Promise((r) => setTimeout(r, 50));
  await realm.handle.ask('user.setActive', { userId: erin.id, active: false, actorId: null });
  for (const [i, q] of [queues[2]!, fourth].entries()) assertError(await parked[i]!, `Bad event queue ID: ${q}`, 400, 'BAD_EVENT_QUEUE_ID');
  await realm.handle.ask('user.setActive', { userId: erin.id, active: true, actorId: null });
});

ev('idle queues expire; a parked poll keeps its queue alive', async () => {
  const { queue_id: idle } = await register(alice, { idle_queue_timeout: 1, fetch_event_types: [] });
  const { queue_id: busy } = await register(alice, { idle_queue_timeout: 1, event_types: ['realm_user'] });
  // busy parks (heartbeats every ~0.4 s re-park it) for longer than its idle timeout
  const until = Date.now() + 1600;
  let last = -1;
  while (Date.now() < until) {
    const r = assertSuccess(await alice.get('/api/v1/events', { queue_id: busy, last_event_id: last }));
    last = r.events.at(-1)?.id ?? last;
  }
  assertError(await alice.get('/api/v1/events', { queue_id: idle, dont_block: true }), `Bad event queue ID: ${idle}`, 400, 'BAD_EVENT_QUEUE_ID');
  assertSuccess(await alice.get('/api/v1/events', { queue_id: busy, last_event_id: last, dont_block: true }));
});

ev('a queue nothing ever touches again still expires (its first deadline is armed at registration)', async () => {
  // An organization of its own: no other queue's heartbeat or event wakes this one.
  const quiet = await server.createRealm();
  const carol = await quiet.createUser({ name: 'Carol' });
  // Carol's creation events are released before the queue exists, so none of them reaches it.
  await new Promise((r) => setTimeout(r, 300));
  const { queue_id } = await register(carol, { idle_queue_timeout: 1, event_types: ['realm_user'], fetch_event_types: [] });
  // Its deadline comes a second after registration; a busy machine may run the timer late.
  assert.ok(await within(6000, () => quiet.handle.queues.counts().queues === 0), 'the queue expired');
  assertError(await carol.get('/api/v1/events', { queue_id, dont_block: true }), `Bad event queue ID: ${queue_id}`, 400, 'BAD_EVENT_QUEUE_ID');
});

const consistency = suite('register + events == fresh register');
consistency.after(() => server.close());

consistency('user created', async () => {
  const events = await expectConsistent(alice, () => realm.createUser({ name: 'Erin' }), { types: ['realm_user'] });
  assert.is(events.length, 1);
});

consistency('role changed', async () => {
  await expectConsistent(alice, () => realm.handle.ask('user.setRole', { userId: bob.id, role: Role.moderator, actorId: null }), { types: ['realm_user'] });
  await expectConsistent(bob, () => realm.handle.ask('user.setRole', { userId: bob.id, role: Role.member, actorId: null }), { types: ['realm_user'] });
});

consistency('user deactivated and reactivated', async () => {
  const frank = await realm.createUser({ name: 'Frank' });
  await expectConsistent(alice, () => realm.handle.ask('user.setActive', { userId: frank.id, active: false, actorId: null }), { types: ['realm_user'] });
  await expectConsistent(alice, () => realm.handle.ask('user.setActive', { userId: frank.id, active: true, actorId: null }), { types: ['realm_user'] });
});

// The answer interval itself is tested message by message in test/actors/queue-actor.test.ts;
// here, that the setting reaches the queues.
const paced = suite('GET /events with QUEUE_ANSWER_INTERVAL_MS');
let pacedServer: TestServer;
paced.before(async () => {
  // The longest interval allowed: the two events after the first answer must come within it, even
  // on a busy machine.
  pacedServer = await startTestServer({ env: { QUEUE_ANSWER_INTERVAL_MS: '1000', HEARTBEAT_MS: '60000' } });
});
paced.after(() => pacedServer.close());

paced('events that come within the interval after an answer wait for its end, and go out together', async () => {
  const r = await pacedServer.createRealm();
  const [dana, eli] = [await r.createUser({ name: 'Dana' }), await r.createUser({ name: 'Eli' })];
  const { queue_id } = await register(dana, { event_types: ['typing'] });
  const typing = async (op: string) => assertSuccess(await eli.post('/api/v1/typing', { to: [dana.id], op }));
  const parked = dana.get('/api/v1/events', { queue_id });
  await new Promise((done) => setTimeout(done, 50));
  // The first answer goes out after this moment, and the second at least 1,000 ms after the first.
  const before = Date.now();
  await typing('start');
  const first = assertSuccess(await parked).events as Array<{ id: number; op: string }>;
  assert.equal(first.map((e) => e.op), ['start']);
  const next = dana.get('/api/v1/events', { queue_id, last_event_id: first[0]!.id });
  await typing('stop');
  await typing('start');
  const second = assertSuccess(await next).events as Array<{ op: string }>;
  assert.equal(second.map((e) => e.op), ['stop', 'start']);
  const waited = Date.now() - before;
  assert.ok(waited >= 1000, `second answer ${waited} ms after the first event was sent`);
});

t.run();
ev.run();
consistency.run();
paced.run();
