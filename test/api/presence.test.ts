// Presence: POST /users/me/presence (endpoint 3: last_update_id protocol, history_limit_days,
// ping_only, slim_presence, modern and legacy formats, invisible mode), GET
// /users/{user_id_or_email}/presence, GET /realm/presence, the register members, presence
// events, batched persistence and the sequence surviving a restart.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { Role } from '../../src/domain/roles.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole } from '../helpers/roles.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const clock = new ManualClock(Date.now());
let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;

const secs = () => Math.floor(clock.now() / 1000);
const report = async (u: TestUser, params: Record<string, unknown> = {}) =>
  assertSuccess(await u.post('/api/v1/users/me/presence', { status: 'active', ...params } as never));

const setup = async () => {
  // Batches are written only when a test flushes (no timer racing the assertions).
  server ??= await startTestServer({ clock, env: { PRESENCE_FLUSH_INTERVAL_MS: '3600000' } });
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
};

const protocol = suite('POST /users/me/presence');
protocol.before(setup);

protocol('first fetch with last_update_id -1: modern entries keyed by id, including oneself', async () => {
  const r = await report(cast.member, { last_update_id: -1 });
  assert.equal(r.presences[String(cast.member.id)], { active_timestamp: secs(), idle_timestamp: secs() });
  assert.type(r.presence_last_update_id, 'number');
  assert.ok(r.presence_last_update_id > 0);
  assert.type(r.server_timestamp, 'number');
  assert.is(r.server_timestamp, clock.now() / 1000);
});

protocol('incremental fetches return only newer entries; an unchanged id means nothing new', async () => {
  const first = await report(cast.member, { last_update_id: -1 });
  const id = first.presence_last_update_id as number;
  const again = await report(cast.member, { last_update_id: id });
  assert.equal(again.presences, {});
  assert.is(again.presence_last_update_id, id);
  await report(cast.moderator, { status: 'idle' });
  const next = await report(cast.member, { last_update_id: id });
  assert.equal(Object.keys(next.presences), [String(cast.moderator.id)]);
  assert.ok(next.presence_last_update_id > id);
  assert.equal(next.presences[String(cast.moderator.id)], { active_timestamp: Math.floor(realm.handle.state.user(cast.moderator.id)!.date_joined / 1000), idle_timestamp: secs() });
});

protocol('a user who changed twice since the client\'s id is answered with the latest state', async () => {
  clock.advance(200_000);
  const start = (await report(cast.member, { last_update_id: -1 })).presence_last_update_id as number;
  await report(cast.moderator, { status: 'idle' });
  const between = (await report(cast.member, { last_update_id: start })).presence_last_update_id as number;
  clock.advance(60_000);
  await report(cast.moderator, { status: 'active' });
  const both = await report(cast.member, { last_update_id: start });
  const latest = both.presence_last_update_id as number;
  assert.ok(latest > between && between > start);
  const mod = String(cast.moderator.id);
  // (The member's own report, 60 s on, is a change too.)
  assert.equal(Object.keys(both.presences).sort(), [mod, String(cast.member.id)].sort());
  assert.is(both.presences[mod].active_timestamp, secs());
  const since = await report(cast.member, { last_update_id: between });
  assert.equal(since.presences[mod], both.presences[mod]);
  assert.ok(since.presence_last_update_id >= latest);
  const after = await report(cast.member, { last_update_id: since.presence_last_update_id });
  assert.equal(after.presences, {});
});

protocol('after more than a thousand changes (the change log is compacted) polls still answer exactly', async () => {
  clock.advance(200_000);
  const start = (await report(cast.member, { last_update_id: -1 })).presence_last_update_id as number;
  // A report a minute after the last is a change every time: well past the log's compaction point.
  let mid = start;
  for (let i = 0; i < 1100; i++) {
    clock.advance(60_000);
    const r = await report(cast.moderator, { status: i % 2 === 0 ? 'idle' : 'active', last_update_id: -1 });
    if (i === 550) mid = r.presence_last_update_id as number;
    // One change after `mid` and never again: by the end it lives in the compacted part of the log.
    if (i === 600) await report(cast.owner);
  }
  const mod = String(cast.moderator.id);
  const late = await report(cast.member, { last_update_id: mid });
  // (The member's own report, long after its last, is a change too.)
  assert.equal(Object.keys(late.presences).sort(), [mod, String(cast.member.id), String(cast.owner.id)].sort());
  assert.ok(late.presence_last_update_id > mid + 500);
  assert.equal((await report(cast.member, { last_update_id: start })).presences[mod], late.presences[mod]);
  assert.equal((await report(cast.member, { last_update_id: late.presence_last_update_id })).presences, {});
});

protocol('each change takes the next id; reports inside 55 s change nothing', async () => {
  clock.advance(200_000);
  const a = await report(cast.admin, { last_update_id: -1 });
  const mine = a.presence_last_update_id as number;
  clock.advance(10_000);
  const b = await report(cast.admin, { last_update_id: mine });
  assert.is(b.presence_last_update_id, mine);
  // Such a report is answered without a turn of the presence actor: no ask, one shared answer.
  const presence = cast.admin.realm.handle.presence;
  assert.is(presence.report(cast.admin.id, 'active'), presence.report(cast.admin.id, 'active'));
  clock.advance(50_000);
  const c = await report(cast.admin, { status: 'idle', last_update_id: mine });
  assert.is(c.presence_last_update_id, mine + 1);
  assert.equal(c.presences[String(cast.admin.id)], { active_timestamp: secs() - 60, idle_timestamp: secs() });
});

protocol('legacy format without last_update_id or slim_presence; slim_presence gives the modern one', async () => {
  await report(cast.owner);
  const legacy = await report(cast.member);
  const entry = legacy.presences[cast.owner.email];
  assert.equal(Object.keys(entry).sort(), ['aggregated', 'website']);
  assert.equal(entry.website, { client: 'website', status: 'active', timestamp: entry.website.timestamp, pushable: false });
  assert.equal(entry.aggregated, { client: 'website', status: 'active', timestamp: entry.website.timestamp });
  assert.type(legacy.presence_last_update_id, 'number');
  const slim = await report(cast.member, { slim_presence: true });
  assert.ok(String(cast.owner.id) in slim.presences);
  assert.ok(!(cast.owner.email in slim.presences));
});

protocol('ping_only returns no presence data', async () => {
  const r = await report(cast.member, { ping_only: true, last_update_id: 7 });
  assert.equal(Object.keys(r).sort(), ['msg', 'presence_last_update_id', 'result']);
  assert.is(r.presence_last_update_id, 7);
  assert.is((await report(cast.member, { ping_only: true })).presence_last_update_id, -1);
});

protocol('history_limit_days limits the first fetch and is ignored once the client has an id', async () => {
  const old = await realm.createUser({ name: 'Olga Old' });
  await report(old);
  const base = (await report(cast.member, { last_update_id: -1 })).presence_last_update_id as number;
  clock.advance(20 * 86_400_000);
  const fresh = await report(cast.member, { last_update_id: -1 });
  assert.not.ok(String(old.id) in fresh.presences);
  const longer = await report(cast.member, { last_update_id: -1, history_limit_days: 30 });
  assert.ok(String(old.id) in longer.presences);
  // An id of 0 is a first fetch too: the limit (default 14 days) applies.
  assert.not.ok(String(old.id) in (await report(cast.member, { last_update_id: 0 })).presences);
  // By id: everything after the id, however old.
  await report(old);
  clock.advance(20 * 86_400_000);
  const byId = await report(cast.member, { last_update_id: base, history_limit_days: 1 });
  assert.ok(String(old.id) in byId.presences);
});

protocol('bots and deactivated users have no presence; invisible users share none', async () => {
  await report(cast.bot);
  const gone = await realm.createUser();
  await report(gone);
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  const shy = await realm.createUser({ name: 'Ivy Invisible' });
  assertSuccess(await shy.patch('/api/v1/settings', { presence_enabled: false }));
  await report(shy);
  const r = await report(cast.member, { last_update_id: -1 });
  for (const u of [cast.bot, gone, shy]) assert.not.ok(String(u.id) in r.presences, `user ${u.id} listed`);
  // Turning invisible hides data recorded before.
  const later = await realm.createUser();
  await report(later);
  assertSuccess(await later.patch('/api/v1/settings', { presence_enabled: false }));
  assert.not.ok(String(later.id) in (await report(cast.member, { last_update_id: -1 })).presences);
});

protocol('a realm with presence disabled returns no data', async () => {
  await realm.updateSettings({ presence_disabled: true });
  try {
    const r = await report(cast.member);
    assert.equal(r.presences, {});
    assert.is(r.presence_last_update_id, -1);
    assert.is((await report(cast.member, { last_update_id: 12 })).presence_last_update_id, 12);
  } finally {
    await realm.updateSettings({ presence_disabled: false });
  }
});

protocol('errors; every role may report', async () => {
  assertError(await cast.member.post('/api/v1/users/me/presence', { status: 'busy' }), 'Invalid status: busy');
  assertError(await cast.member.post('/api/v1/users/me/presence'), "Missing 'status' argument");
  assertError(await cast.member.post('/api/v1/users/me/presence', { status: 'active', last_update_id: 'x' }), 'last_update_id is not an integer');
  assertError(await realm.anonymous('POST', '/api/v1/users/me/presence', { status: 'active' }), 'Not logged in: API authentication or user session required', 401);
  for (const role of ROLE_NAMES) await report(cast[role], { ping_only: true });
});

const reads = suite('GET /users/{id}/presence, GET /realm/presence, register');
reads.before(setup);

reads('one user by id or email, without client or pushable; offline after 140 s', async () => {
  await report(cast.moderator);
  const byId = assertSuccess(await cast.member.get(`/api/v1/users/${cast.moderator.id}/presence`));
  assert.equal(byId.presence, { website: { status: 'active', timestamp: secs() }, aggregated: { status: 'active', timestamp: secs() } });
  const byEmail = assertSuccess(await cast.member.get(`/api/v1/users/${encodeURIComponent(cast.moderator.email)}/presence`));
  assert.equal(byEmail.presence, byId.presence);
  clock.advance(141_000);
  const later = assertSuccess(await cast.member.get(`/api/v1/users/${cast.moderator.id}/presence`));
  assert.is(later.presence.aggregated.status, 'offline');
  assert.is(later.presence.website.status, 'active');
});

reads('errors of the one-user read', async () => {
  const silent = await realm.createUser();
  assertError(await cast.member.get('/api/v1/users/999999/presence'), 'No such user');
  assertError(await cast.member.get('/api/v1/users/nobody@example.com/presence'), 'No such user');
  assertError(await cast.member.get(`/api/v1/users/${cast.bot.id}/presence`), 'Presence is not supported for bot users.');
  assertError(await cast.member.get(`/api/v1/users/${silent.id}/presence`), `No presence data for ${silent.id}`);
});

reads('GET /realm/presence is legacy format for every user', async () => {
  await report(cast.admin);
  const r = assertSuccess(await cast.guest.get('/api/v1/realm/presence'));
  assert.ok(cast.admin.email in r.presences);
  assert.type(r.server_timestamp, 'number');
  assert.not.ok('presence_last_update_id' in r);
});

reads('register: legacy by default, modern with slim_presence; presence_history_limit_days', async () => {
  const quiet = await realm.createUser();
  await report(quiet);
  clock.advance(3 * 86_400_000);
  await report(cast.member);
  const legacy = assertSuccess(await cast.member.post('/api/v1/register', { fetch_event_types: ['presence'] }));
  assert.ok(cast.member.email in legacy.presences);
  assert.type(legacy.presence_last_update_id, 'number');
  const slim = assertSuccess(await cast.member.post('/api/v1/register', { fetch_event_types: ['presence'], slim_presence: true }));
  assert.ok(String(cast.member.id) in slim.presences);
  assert.ok(String(quiet.id) in slim.presences);
  const short = assertSuccess(
    await cast.member.post('/api/v1/register', { fetch_event_types: ['presence'], slim_presence: true, presence_history_limit_days: 2 }),
  );
  assert.not.ok(String(quiet.id) in short.presences);
  // The register id continues the POST protocol.
  const next = await report(cast.member, { last_update_id: slim.presence_last_update_id });
  assert.equal(next.presences, {});
});

const events = suite('presence events');
events.before(setup);

const modern = { slim_presence: true, client_capabilities: { simplified_presence_events: true } };

for (const [label, registerParams] of [
  ['modern (simplified_presence_events)', modern],
  ['legacy', {}],
] as const) {
  events(`coming online is announced, consistent with register (${label})`, async () => {
    const newcomer = await realm.createUser();
    const got = await expectConsistent(cast.member, () => report(newcomer), { types: ['presence'], registerParams });
    assert.is(got.length, 1);
    if (label === 'legacy') {
      assert.equal(Object.keys(got[0]!).sort(), ['email', 'id', 'presence', 'server_timestamp', 'type', 'user_id']);
      assert.equal(got[0]!.presence.website.status, 'active');
    } else {
      assert.equal(Object.keys(got[0]!).sort(), ['id', 'presences', 'type']);
    }
    // Staying online is not news (the new idle time reaches clients through polling).
    clock.advance(60_000);
    const q = assertSuccess(await cast.member.post('/api/v1/register', { event_types: ['presence'], ...registerParams }));
    await report(newcomer, { status: 'idle' });
    assert.equal(await drainEvents(cast.member, q.queue_id), []);
    // Back after being offline is.
    clock.advance(200_000);
    const back = await expectConsistent(cast.member, () => report(newcomer), { types: ['presence'], registerParams });
    assert.is(back.length, 1);
  });
}

events('invisible users and disabled organizations announce nothing', async () => {
  const shy = await realm.createUser();
  assertSuccess(await shy.patch('/api/v1/settings', { presence_enabled: false }));
  const q = assertSuccess(await cast.member.post('/api/v1/register', { event_types: ['presence'] }));
  await report(shy);
  await realm.updateSettings({ presence_disabled: true });
  const other = await realm.createUser();
  await report(other);
  await realm.updateSettings({ presence_disabled: false });
  assert.equal(await drainEvents(cast.member, q.queue_id), []);
});

const persist = suite('batched persistence and restart');
persist.before(setup);

const rowSchema = z.object({ user_id: z.number(), last_update_id: z.number() });

persist('rows are written in batches; the sequence survives a restart', async () => {
  const u = await realm.createUser();
  await report(u);
  const rowsBefore = await server.db.pool.any(sql.type(rowSchema)`SELECT user_id, last_update_id FROM user_presence WHERE user_id = ${u.id}`);
  assert.is(rowsBefore.length, 0, 'written on the request path');
  await realm.handle.presence.flush();
  const written = await server.db.pool.one(sql.type(rowSchema)`SELECT user_id, last_update_id FROM user_presence WHERE user_id = ${u.id}`);
  const before = assertSuccess(await u.post('/api/v1/users/me/presence', { status: 'active', last_update_id: -1 }));
  assert.ok(written.last_update_id > 0 && written.last_update_id <= before.presence_last_update_id);

  // A second process on the same database (the first one is not asked to flush again).
  const config = parseConfig({ DATA_DIR: '/tmp', LOG_LEVEL: 'silent' });
  const app2 = await createApp({ config, log: pino({ level: 'silent' }), clock, database: server.db, secret: server.app.secret });
  try {
    const realm2 = await app2.realms.get(realm.id);
    await realm2.presence.ready();
    const carried = realm2.presence.query({ viewerId: u.id, format: 'modern', sinceUpdateId: null, historyDays: null });
    assert.ok(String(u.id) in carried.presences, 'written rows are loaded');
    clock.advance(300_000);
    await realm2.presence.report(u.id, 'active');
    const after = realm2.presence.query({ viewerId: u.id, format: 'modern', sinceUpdateId: before.presence_last_update_id, historyDays: null });
    assert.ok(after.lastUpdateId > before.presence_last_update_id, 'ids continue above every id handed out before');
  } finally {
    await app2.close();
  }
});

persist.after(async () => {
  await server.close();
});

const limited = suite('event size limit and CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE');

let limitedServer: TestServer;
limited.before(async () => {
  limitedServer = await startTestServer({ clock, env: { PRESENCE_EVENT_USER_LIMIT: '2', CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: 'true' } });
});

limited('no events above PRESENCE_EVENT_USER_LIMIT active users', async () => {
  const r = await limitedServer.createRealm();
  const a = await r.createUser();
  const q = assertSuccess(await a.post('/api/v1/register', { event_types: ['presence'] }));
  await report(r.owner);
  const b = await r.createUser();
  await report(b);
  const got = await drainEvents(a, q.queue_id);
  assert.equal(got.map((e) => e.user_id), [r.owner.id], 'only the arrival in a two-user organization is announced');
});

limited('a deactivated user no longer counts toward PRESENCE_EVENT_USER_LIMIT', async () => {
  const r = await limitedServer.createRealm();
  const a = await r.createUser();
  const gone = await r.createUser();
  await r.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  const q = assertSuccess(await a.post('/api/v1/register', { event_types: ['presence'] }));
  await report(r.owner);
  const got = await drainEvents(a, q.queue_id);
  assert.equal(got.map((e) => e.user_id), [r.owner.id], 'two active users of three: the arrival is announced');
});

limited('presence limited to users the viewer may access', async () => {
  const r = await limitedServer.createRealm();
  const guest = await r.createUser({ role: Role.guest });
  await r.setGroupSetting('can_access_all_users_group', 'role:members');
  await report(r.owner);
  const seen = await report(guest, { last_update_id: -1 });
  assert.equal(Object.keys(seen.presences), [String(guest.id)]);
  assertError(await guest.get(`/api/v1/users/${r.owner.id}/presence`), 'Insufficient permission');
  assert.ok(String(guest.id) in (await report(r.owner, { last_update_id: -1 })).presences);
});

limited.after(async () => {
  await limitedServer.close();
});

protocol.run();
reads.run();
events.run();
persist.run();
limited.run();
