// Scheduled messages and reminders: scheduled, listed, edited and deleted with their events and
// register members; checked as sends when scheduled and again when due; sent once when due (also
// when the send is repeated after a crash, and when a start finds rows that came due meanwhile);
// an unexpected failure is tried again later; a refused send marks the row failed and
// Notification Bot says why.
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RETRY_MS, ScheduledSends } from '../../src/actors/scheduled-sends.js';
import { ManualClock } from '../../src/clock.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { castOf, createChannel, deactivate, ROLE_NAMES, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type Params, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
let server: TestServer;
let realm: TestRealm;
let cast: Cast;

interface Scheduled {
  scheduled_message_id: number;
  type: string;
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

const nowSeconds = () => Math.floor(clock.now() / 1000);
const listed = async (u: TestUser): Promise<Scheduled[]> => assertSuccess(await u.get('/api/v1/scheduled_messages')).scheduled_messages as Scheduled[];
const schedule = (u: TestUser, params: Params) => u.post('/api/v1/scheduled_messages', params);
const scheduleIn = async (u: TestUser, seconds: number, params: Params): Promise<number> =>
  assertSuccess(await schedule(u, { scheduled_delivery_timestamp: nowSeconds() + seconds, ...params })).scheduled_message_id as number;
const types = { types: ['scheduled_messages'] };

/** Moves the clock on and sends what came due. */
async function passTime(seconds: number): Promise<void> {
  clock.advance(seconds * 1000);
  await server.app.scheduledSends.deliverDue();
}

async function newest(u: TestUser, narrow: object[]): Promise<Array<Record<string, unknown>>> {
  const r = assertSuccess(await u.get('/api/v1/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow }));
  return r.messages as Array<Record<string, unknown>>;
}
/** The latest direct message from Notification Bot to the user. */
async function fromBot(u: TestUser): Promise<Record<string, unknown> | undefined> {
  const botId = await u.realm.handle.ask('bot.notificationBot', null);
  return (await newest(u, [{ operator: 'dm', operand: [botId] }])).at(-1);
}

const t = suite('scheduled messages');
t.before(async () => {
  server = await startTestServer({ clock });
  realm = await server.createRealm();
  cast = await castOf(realm);
});

t('scheduled, listed by delivery time, edited and deleted, each change told to the author', async () => {
  const { member, moderator } = cast;
  const room = await createChannel(realm.owner, 'plans-room', { others: [member] });
  let later = 0;
  let sooner = 0;
  await expectConsistent(member, async () => {
    later = await scheduleIn(member, 7200, { type: 'stream', to: String(room), topic: 'agenda', content: 'see you **all**' });
    sooner = await scheduleIn(member, 3600, { type: 'direct', to: JSON.stringify([moderator.id, member.id]), content: 'ping' });
  }, types);
  const got = await listed(member);
  assert.equal(got.map((m) => m.scheduled_message_id), [sooner, later], 'the soonest first');
  assert.equal(got[1], {
    scheduled_message_id: later,
    type: 'stream',
    to: room,
    topic: 'agenda',
    content: 'see you **all**',
    rendered_content: '<p>see you <strong>all</strong></p>',
    scheduled_delivery_timestamp: nowSeconds() + 7200,
    failed: false,
  });
  assert.equal(got[0]!.to, [moderator.id], 'the other participants');
  assert.not.ok('topic' in got[0]!);
  await expectConsistent(member, async () => {
    assertSuccess(await member.patch(`/api/v1/scheduled_messages/${later}`, { content: 'changed', scheduled_delivery_timestamp: nowSeconds() + 60 }));
  }, types);
  const edited = (await listed(member))[0]!;
  assert.equal([edited.scheduled_message_id, edited.content, edited.topic, edited.scheduled_delivery_timestamp], [later, 'changed', 'agenda', nowSeconds() + 60]);
  // A change of type needs the new audience (and, for a channel, a topic).
  await expectConsistent(member, async () => {
    assertSuccess(await member.patch(`/api/v1/scheduled_messages/${sooner}`, { type: 'channel', to: String(room), topic: 'moved here' }));
  }, types);
  const retyped = (await listed(member)).find((m) => m.scheduled_message_id === sooner)!;
  assert.equal([retyped.type, retyped.to, retyped.topic, retyped.content], ['stream', room, 'moved here', 'ping']);
  assertError(await member.patch(`/api/v1/scheduled_messages/${sooner}`, { type: 'direct' }), 'Recipient required when updating type of scheduled message.');
  assertError(await member.patch(`/api/v1/scheduled_messages/${sooner}`, { type: 'stream', to: String(room) }), 'Topic required when updating scheduled message type to channel.');
  const queue = assertSuccess(await member.post('/api/v1/register', { event_types: ['scheduled_messages'] })).queue_id as string;
  await expectConsistent(member, async () => assertSuccess(await member.delete(`/api/v1/scheduled_messages/${sooner}`)), types);
  assert.equal((await drainEvents(member, queue)).map((e) => [e.op, e.scheduled_message_id]), [['remove', sooner]]);
  // Another user's scheduled messages are not there to see, edit or delete.
  assertError(await moderator.delete(`/api/v1/scheduled_messages/${later}`), 'Scheduled message does not exist', 404);
  assertError(await moderator.patch(`/api/v1/scheduled_messages/${later}`, { content: 'mine now' }), 'Scheduled message does not exist', 404);
  assert.equal(await listed(moderator), []);
  assertError(await member.delete(`/api/v1/scheduled_messages/${sooner}`), 'Scheduled message does not exist', 404);
  const register = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['scheduled_messages'] }));
  assert.equal(register.scheduled_messages, await listed(member));
  assertSuccess(await member.delete(`/api/v1/scheduled_messages/${later}`));
});

t('what is scheduled is checked as a send would be', async () => {
  const { member, owner, guest } = cast;
  const secret = await createChannel(owner, 'sched-secret', { invite_only: true });
  const open = await createChannel(owner, 'sched-open');
  const at = (seconds: number) => ({ scheduled_delivery_timestamp: nowSeconds() + seconds });
  const base = { type: 'stream', to: String(open), topic: 't', content: 'c', ...at(60) };
  assertError(await schedule(member, { ...base, ...at(0) }), 'Scheduled delivery time must be in the future.');
  assertError(await schedule(member, { ...base, ...at(-60) }), 'Scheduled delivery time must be in the future.');
  assertError(await schedule(member, { ...base, scheduled_delivery_timestamp: 253_402_300_800 }), 'Scheduled delivery time must not be after the year 9999.');
  assertError(await schedule(member, { ...base, to: String(secret) }), `Channel with ID '${secret}' does not exist`);
  assertError(await schedule(member, { ...base, topic: undefined }), 'Missing topic');
  assertError(await schedule(member, { ...base, content: '  ' }), 'Message must not be empty');
  assertError(await schedule(member, { ...base, type: 'direct', to: '[999999]' }), 'Invalid user ID: 999999');
  assertError(await schedule(guest, base), `Channel with ID '${open}' does not exist`, 400);
  const missing = await schedule(member, { type: 'stream', to: String(open), content: 'c' });
  assert.is(missing.status, 400);
  assert.match(missing.json.msg as string, /scheduled_delivery_timestamp/);
  assertError(await member.patch('/api/v1/scheduled_messages/999999', { content: 'x' }), 'Scheduled message does not exist', 404);
  assert.is((await member.delete('/api/v1/scheduled_messages/99999999999')).status, 400, 'an id beyond any row is refused as a parameter');
  const id = await scheduleIn(member, 60, { type: 'stream', to: String(open), topic: 't', content: 'fine' });
  assertError(await member.patch(`/api/v1/scheduled_messages/${id}`, { to: String(secret) }), `Channel with ID '${secret}' does not exist`);
  assertError(await member.patch(`/api/v1/scheduled_messages/${id}`, { scheduled_delivery_timestamp: nowSeconds() }), 'Scheduled delivery time must be in the future.');
  assertSuccess(await member.delete(`/api/v1/scheduled_messages/${id}`));
});

t('sent as its author when due, once; read by the sender only when asked', async () => {
  const { member, moderator } = cast;
  const room = await createChannel(realm.owner, 'due-room', { others: [member, moderator] });
  const queue = assertSuccess(await member.post('/api/v1/register', { event_types: ['scheduled_messages', 'message'] })).queue_id as string;
  const first = await scheduleIn(member, 120, { type: 'stream', to: String(room), topic: 'later', content: 'from the past', read_by_sender: false });
  const second = await scheduleIn(member, 180, { type: 'direct', to: `[${moderator.id}]`, content: 'a direct one', read_by_sender: true });
  await passTime(119);
  assert.is((await listed(member)).length, 2, 'nothing before its time');
  await passTime(1);
  assert.equal((await listed(member)).map((m) => m.scheduled_message_id), [second]);
  const [sent] = (await newest(moderator, [{ operator: 'channel', operand: room }, { operator: 'topic', operand: 'later' }])).slice(-1);
  assert.equal([sent!.sender_id, sent!.content, sent!.timestamp], [member.id, '<p>from the past</p>', nowSeconds()]);
  assert.equal((await newest(member, [{ operator: 'channel', operand: room }])).at(-1)!.flags, [], 'read_by_sender false: unread');
  await passTime(60);
  assert.equal(await listed(member), []);
  const direct = (await newest(moderator, [{ operator: 'dm', operand: [member.id] }])).at(-1)!;
  assert.equal([direct.content, direct.sender_id], ['<p>a direct one</p>', member.id]);
  assert.equal((await newest(member, [{ operator: 'dm', operand: [moderator.id] }])).at(-1)!.flags, ['read']);
  const events = await drainEvents(member, queue);
  assert.equal(
    events.filter((e) => e.type === 'scheduled_messages').map((e) => [e.op, e.scheduled_message_id ?? null]),
    [['add', null], ['add', null], ['remove', first], ['remove', second]],
  );
  assert.is(events.filter((e) => e.type === 'message').length, 2);
  await passTime(3600);
  assert.is((await newest(moderator, [{ operator: 'channel', operand: room }])).length, 1, 'sent once');
});

t('a send repeated after a crash (sent, not yet marked sent) posts nothing twice', async () => {
  const { member } = cast;
  const room = await createChannel(member, 'crash-room');
  const id = await scheduleIn(member, 30, { type: 'stream', to: String(room), topic: 'once', content: 'only once' });
  await passTime(30);
  const db = server.app.db;
  const sentAs = await db.oneFirst(sql.unsafe`SELECT delivered_message_id FROM scheduled_messages WHERE id = ${id}`);
  assert.type(sentAs, 'number');
  await db.query(sql.unsafe`UPDATE scheduled_messages SET delivered_message_id = NULL WHERE id = ${id}`);
  await server.app.scheduledSends.deliverDue();
  const messages = await newest(member, [{ operator: 'channel', operand: room }]);
  assert.equal(messages.map((m) => m.id), [sentAs]);
  assert.is(await db.oneFirst(sql.unsafe`SELECT delivered_message_id FROM scheduled_messages WHERE id = ${id}`), sentAs);
});

t('an unexpected failure leaves what is due as it is, for another try a little later', async () => {
  const { member } = cast;
  const room = await createChannel(member, 'retry-room');
  await scheduleIn(member, 10, { type: 'stream', to: String(room), topic: 'retry', content: 'after a failure' });
  clock.advance(10_000);
  const { app } = server;
  let broken = true;
  const sends = new ScheduledSends({ db: app.db, clock, log: app.log, realm: (id) => (broken ? Promise.reject(new Error('realm unavailable')) : app.realms.get(id)) });
  await sends.deliverDue();
  assert.is(sends.nextRun, clock.now() + RETRY_MS, 'tried again later');
  assert.equal((await listed(member)).map((m) => m.failed), [false], 'still scheduled, not failed');
  broken = false;
  await sends.deliverDue();
  await sends.stop();
  assert.equal(await listed(member), []);
  assert.equal((await newest(member, [{ operator: 'channel', operand: room }])).map((m) => m.content), ['<p>after a failure</p>']);
});

t('a start sends what came due while the server was down', async () => {
  const { member } = cast;
  const room = await createChannel(member, 'downtime-room');
  await scheduleIn(member, 10, { type: 'stream', to: String(room), topic: 'meanwhile', content: 'sent at start' });
  clock.advance(3_600_000); // no run: the server is "down"
  assert.is((await listed(member)).length, 1);
  const { app } = server;
  const restarted = new ScheduledSends({ db: app.db, clock, log: app.log, realm: (id) => app.realms.get(id) });
  await restarted.start();
  for (let i = 0; i < 100 && (await listed(member)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  await restarted.stop();
  assert.equal(await listed(member), []);
  assert.equal((await newest(member, [{ operator: 'channel', operand: room }])).map((m) => m.content), ['<p>sent at start</p>']);
});

t('a send refused when due marks it failed, Notification Bot says why, and a new time tries again', async () => {
  const { member, owner } = cast;
  const room = await createChannel(owner, 'closing-room', { others: [member], invite_only: true });
  const id = await scheduleIn(member, 60, { type: 'stream', to: String(room), topic: 'too late', content: 'will it go?' });
  // By the time it is due, its author has left the private channel.
  assertSuccess(await owner.delete('/api/v1/users/me/subscriptions', { subscriptions: JSON.stringify(['closing-room']), principals: JSON.stringify([member.id]) }));
  const queue = assertSuccess(await member.post('/api/v1/register', { event_types: ['scheduled_messages'] })).queue_id as string;
  await passTime(60);
  const [failed] = await listed(member);
  assert.equal([failed!.scheduled_message_id, failed!.failed], [id, true]);
  const events = await drainEvents(member, queue);
  assert.equal(events.map((e) => [e.op, (e.scheduled_message as Scheduled | undefined)?.failed]), [['update', true]]);
  const notice = (await fromBot(member))!;
  assert.match(notice.content as string, /could not be sent/);
  assert.match(notice.content as string, new RegExp(`Channel with ID '${room}' does not exist`));
  assert.is((await newest(owner, [{ operator: 'channel', operand: room }])).length, 0);
  assertSuccess(await owner.post('/api/v1/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'closing-room' }]), principals: JSON.stringify([member.id]) }));
  await passTime(3600);
  assert.is((await listed(member))[0]!.failed, true, 'not tried again by itself, though it could be sent now');
  assertError(await member.patch(`/api/v1/scheduled_messages/${id}`, { content: 'again' }), 'Scheduled delivery time must be in the future.');
  await expectConsistent(member, async () => {
    assertSuccess(await member.patch(`/api/v1/scheduled_messages/${id}`, { scheduled_delivery_timestamp: nowSeconds() + 5 }));
  }, types);
  assert.is((await listed(member))[0]!.failed, false);
  await passTime(5);
  assert.equal(await listed(member), []);
  assert.equal((await newest(owner, [{ operator: 'channel', operand: room }])).map((m) => m.content), ['<p>will it go?</p>']);
});

t("a deactivated author's messages fail without a notice", async () => {
  const u = await realm.createUser({ name: 'Leaving Soon' });
  const id = await scheduleIn(u, 60, { type: 'direct', to: `[${cast.member.id}]`, content: 'after I left' });
  await deactivate(u);
  await passTime(60);
  const row = await server.app.db.one(sql.unsafe`SELECT failed, failure_message, delivered_message_id FROM scheduled_messages WHERE id = ${id}`);
  assert.equal(row, { failed: true, failure_message: 'Your account is deactivated.', delivered_message_id: null });
});

t('every role schedules messages of its own where it may send', async () => {
  const room = await createChannel(realm.owner, 'all-roles', { others: ROLE_NAMES.map((r) => cast[r]) });
  for (const role of ROLE_NAMES) {
    const id = await scheduleIn(cast[role], 60, { type: 'stream', to: String(room), topic: 'roles', content: `${role} was here` });
    assert.equal((await listed(cast[role])).map((m) => m.scheduled_message_id), [id], role);
  }
  await passTime(60);
  const sent = await newest(realm.owner, [{ operator: 'channel', operand: room }]);
  assert.equal(sent.map((m) => m.content).sort(), ROLE_NAMES.map((r) => `<p>${r} was here</p>`).sort());
});

t.after(async () => {
  await server.close();
});

t.run();

interface Reminder {
  reminder_id: number;
  type: string;
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
}

const r = suite('reminders');
let rServer: TestServer;
let rRealm: TestRealm;
const reminders = async (u: TestUser): Promise<Reminder[]> => assertSuccess(await u.get('/api/v1/reminders')).reminders as Reminder[];

r.before(async () => {
  rServer = await startTestServer({ clock });
  rRealm = await rServer.createRealm();
});

r('set on a readable message, listed, and sent by Notification Bot to its author when due', async () => {
  const author = await rRealm.createUser({ name: 'Rem Author' });
  const reader = await rRealm.createUser({ name: 'Rem Reader' });
  const outsider = await rRealm.createUser({ name: 'Rem Outsider' });
  const room = await createChannel(author, 'remind-room', { others: [reader], invite_only: true });
  const message = await sendToChannel(author, room, 'notes', 'the thing with ``` fences');
  assertError(await outsider.post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() + 60 }), 'Invalid message(s)');
  assertError(await reader.post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() - 1 }), 'Scheduled delivery time must be in the future.');
  assertError(
    await reader.post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() + 60, note: 'n'.repeat(1001) }),
    'note is too long (limit: 1000 characters)',
  );
  let id = 0;
  await expectConsistent(reader, async () => {
    id = assertSuccess(await reader.post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() + 60, note: 'bring snacks' }))
      .reminder_id as number;
  }, { types: ['reminders'] });
  const [listedReminder] = await reminders(reader);
  assert.equal({ ...listedReminder!, content: '', rendered_content: '' }, {
    reminder_id: id,
    type: 'private',
    to: [reader.id],
    content: '',
    rendered_content: '',
    scheduled_delivery_timestamp: nowSeconds() + 60,
    failed: false,
    reminder_target_message_id: message,
  });
  assert.match(listedReminder!.content, /````quote\nthe thing with ``` fences\n````/);
  assert.match(listedReminder!.content, /bring snacks/);
  assert.match(listedReminder!.rendered_content, /<blockquote>\n<p>the thing with ``` fences<\/p>\n<\/blockquote>/);
  assert.equal(await reminders(author), [], "nobody else's");
  assertError(await author.delete(`/api/v1/reminders/${id}`), 'Reminder does not exist', 404);
  const queue = assertSuccess(await reader.post('/api/v1/register', { event_types: ['reminders'] })).queue_id as string;
  clock.advance(60_000);
  await rServer.app.scheduledSends.deliverDue();
  assert.equal(await reminders(reader), []);
  assert.equal((await drainEvents(reader, queue)).map((e) => [e.op, e.reminder_id]), [['remove', id]]);
  const sent = (await fromBot(reader))!;
  assert.match(sent.content as string, /the thing with/);
  assert.match(sent.content as string, /bring snacks/);
  assert.equal(sent.flags, [], 'unread: it is there to remind');
});

r('a reminder whose message is gone fails and says so; deleting one cancels it', async () => {
  const u = await rRealm.createUser({ name: 'Rem Forgetful' });
  const room = await createChannel(u, 'forget-room');
  const message = await sendToChannel(u, room, 'gone', 'soon deleted');
  const keep = await sendToChannel(u, room, 'kept', 'stays');
  const doomed = assertSuccess(await u.post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() + 30 })).reminder_id as number;
  const cancelled = assertSuccess(await u.post('/api/v1/reminders', { message_id: keep, scheduled_delivery_timestamp: nowSeconds() + 30 })).reminder_id as number;
  assertSuccess(await u.delete(`/api/v1/reminders/${cancelled}`));
  assertError(await u.delete(`/api/v1/reminders/${cancelled}`), 'Reminder does not exist', 404);
  assertSuccess(await rRealm.owner.delete(`/api/v1/messages/${message}`));
  await expectConsistent(u, async () => {
    clock.advance(30_000);
    await rServer.app.scheduledSends.deliverDue();
  }, { types: ['reminders'] });
  const [failed] = await reminders(u);
  assert.equal([failed!.reminder_id, failed!.failed], [doomed, true]);
  assert.match((await fromBot(u))!.content as string, /was deleted, or you can no longer read it/);
  assert.equal((await newest(u, [{ operator: 'dm', operand: [u.id] }, { operator: 'search', operand: 'stays' }])).length, 0, 'the cancelled one was not sent');
});

r('every role sets reminders of its own', async () => {
  const c = await castOf(rRealm);
  const room = await createChannel(rRealm.owner, 'remind-all', { others: ROLE_NAMES.map((role) => c[role]) });
  const message = await sendToChannel(rRealm.owner, room, 'all', 'remember this');
  for (const role of ROLE_NAMES) {
    const id = assertSuccess(await c[role].post('/api/v1/reminders', { message_id: message, scheduled_delivery_timestamp: nowSeconds() + 60 })).reminder_id;
    assert.equal((await reminders(c[role])).map((x) => x.reminder_id), [id], role);
  }
});

r.after(async () => {
  await rServer.close();
});

r.run();
