// Push: POST /register_client_device (the server names a device; `device` events and register's
// `devices`), POST /mobile_push/register (endpoint 9: a registered device, groups of fields, key
// and token rotation, removal of the matching legacy token, PUSH_SERVICE_NOT_CONFIGURED), the
// deprecated APNs and
// FCM token endpoints (endpoint 14), and new-message notifications encrypted per device and
// posted to a fake push service, decrypted here with the device key.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'slonik';
import { z } from 'zod';
import { decryptOnDevice, tokenId } from '../../src/domain/push-crypto.js';
import { notifyNewMessage, type PushMessage } from '../../src/push/push-notifier.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent, registerState } from '../helpers/consistency.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole } from '../helpers/roles.js';
import { startFakePushService, type FakePushService } from '../helpers/fake-push-service.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let push: FakePushService;
let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;
let deviceCounter = 0;

/** A new device of the user's (POST /register_client_device). */
async function newDeviceId(user: TestUser): Promise<number> {
  const id = assertSuccess(await user.post('/api/v1/register_client_device', {})).device_id;
  assert.ok(Number.isSafeInteger(id) && id > 0, `device_id ${id}`);
  return id;
}

interface Device {
  readonly deviceId: number;
  readonly key: Buffer; // cryptosystem byte + key, as registered
  readonly keyId: number;
  readonly token: string;
}

const newKey = () => Buffer.concat([Buffer.from([0x31]), randomBytes(32)]);
const b64 = (s: string) => Buffer.from(s).toString('base64');

const tokenFields = (token: string, kind = 'fcm') => ({
  token_kind: kind,
  token_id: tokenId(token),
  bouncer_public_key: b64('bouncer-key-1'),
  encrypted_push_registration: b64(`sealed:${token}`),
});

async function registerDevice(user: TestUser, o: { token?: string; kind?: string } = {}): Promise<Device> {
  ++deviceCounter;
  const device: Device = { deviceId: await newDeviceId(user), key: newKey(), keyId: 1000 + deviceCounter, token: o.token ?? `tok-${deviceCounter}` };
  assertSuccess(
    await user.post('/api/v1/mobile_push/register', {
      device_id: device.deviceId,
      push_key_id: device.keyId,
      push_key: device.key.toString('base64'),
      ...tokenFields(device.token, o.kind),
    }),
  );
  return device;
}

const channelMessage = (id: number, senderId: number, content = 'Hello **there**'): PushMessage => ({
  id,
  senderId,
  content,
  timestamp: 1_800_000_000,
  channel: { id: 7, name: 'general', topic: 'greetings' },
});

/** Send and return the one request the push service got for it. */
async function sendAndReceive(message: PushMessage, recipients: number[]): Promise<Record<string, any>> {
  const before = push.received.length;
  await notifyNewMessage(realm.handle, message, recipients);
  await push.waitFor(before + 1);
  return push.received[before]!.body;
}

const setup = async () => {
  push ??= await startFakePushService();
  server ??= await startTestServer({ env: { PUSH_SERVICE_URL: push.url } });
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
};

const reg = suite('POST /mobile_push/register');
reg.before(setup);

reg('initial registration needs both groups; every role may register', async () => {
  for (const role of ROLE_NAMES) await registerDevice(cast[role]);
  const key = newKey().toString('base64');
  assertError(
    await cast.member.post('/api/v1/mobile_push/register', { device_id: await newDeviceId(cast.member), push_key_id: 1, push_key: key }),
    "A device's first registration needs both the push key fields and the token fields.",
  );
  assertError(
    await cast.member.post('/api/v1/mobile_push/register', { device_id: await newDeviceId(cast.member), ...tokenFields('t') }),
    "A device's first registration needs both the push key fields and the token fields.",
  );
});

reg('fields come in groups', async () => {
  const deviceId = await newDeviceId(cast.member);
  const post = (params: Record<string, unknown>) => cast.member.post('/api/v1/mobile_push/register', { device_id: deviceId, ...params } as never);
  const key = newKey().toString('base64');
  assertError(await post({}), "Missing 'push_key' argument", 400, 'REQUEST_VARIABLE_MISSING');
  assertError(await post({ push_key: key }), "Missing 'push_key_id' argument");
  assertError(await post({ push_key_id: 3, push_key: key, token_kind: 'fcm' }), "Missing 'token_id' argument");
  const { encrypted_push_registration: _omit, ...partial } = tokenFields('x');
  assertError(await post({ push_key_id: 3, push_key: key, ...partial }), "Missing 'encrypted_push_registration' argument");
  assertError(await cast.member.post('/api/v1/mobile_push/register', { push_key_id: 3, push_key: key }), "Missing 'device_id' argument");
});

reg('field validation', async () => {
  const deviceId = await newDeviceId(cast.member);
  const post = (params: Record<string, unknown>) =>
    cast.member.post('/api/v1/mobile_push/register', { device_id: deviceId, push_key_id: 5, push_key: newKey().toString('base64'), ...tokenFields('v'), ...params } as never);
  assertError(await post({ push_key: Buffer.concat([Buffer.from([0x32]), randomBytes(32)]).toString('base64') }), 'Invalid push_key');
  assertError(await post({ push_key: Buffer.concat([Buffer.from([0x31]), randomBytes(16)]).toString('base64') }), 'Invalid push_key');
  assertError(await post({ push_key: 'not base64!' }), 'Invalid push_key');
  assertError(await post({ push_key: newKey().toString('base64url') + 'x' }), 'Invalid push_key');
  assertError(await post({ push_key_id: 2 ** 32 }), 'push_key_id is out of range');
  assertError(await post({ push_key_id: -1 }), 'push_key_id is out of range');
  assertError(await post({ token_kind: 'webpush' }), 'Invalid token_kind');
  assertError(await post({ token_id: b64('too long for an id') }), 'Invalid token_id');
  assertError(await post({ bouncer_public_key: '%%%' }), 'Invalid bouncer_public_key');
  assertError(await post({ encrypted_push_registration: '' }), 'Invalid encrypted_push_registration');
  assertSuccess(await post({ push_key_id: 2 ** 32 - 1 }));
});

reg('registering a provider token removes the same legacy token', async () => {
  assertSuccess(await cast.moderator.post('/api/v1/users/me/android_gcm_reg_id', { token: 'shared-fcm-token' }));
  assertSuccess(await cast.moderator.post('/api/v1/users/me/android_gcm_reg_id', { token: 'another-token' }));
  assertSuccess(await cast.admin.post('/api/v1/users/me/android_gcm_reg_id', { token: 'shared-fcm-token' }));
  await registerDevice(cast.moderator, { token: 'shared-fcm-token' });
  const tokensOf = (u: TestUser) =>
    server.db.pool.anyFirst(sql.type(z.object({ token: z.string() }))`SELECT token FROM push_device_tokens WHERE user_id = ${u.id} ORDER BY token`);
  assert.equal(await tokensOf(cast.moderator), ['another-token']);
  // Only the registering user's token goes.
  assert.equal(await tokensOf(cast.admin), ['shared-fcm-token']);
});

const devices = suite('POST /register_client_device');
devices.before(setup);

devices('every role registers devices, each with a new id; a device registers for push only by its owner', async () => {
  const seen = new Set<number>();
  for (const role of ROLE_NAMES) {
    for (let i = 0; i < 2; i++) seen.add(await newDeviceId(cast[role]));
  }
  assert.is(seen.size, ROLE_NAMES.length * 2);
  const mine = await newDeviceId(cast.member);
  const fields = () => ({ push_key_id: 1, push_key: newKey().toString('base64'), ...tokenFields('owned') });
  assertError(await cast.admin.post('/api/v1/mobile_push/register', { device_id: mine, ...fields() }), 'Invalid device_id', 400, 'BAD_REQUEST');
  assertError(await cast.member.post('/api/v1/mobile_push/register', { device_id: mine + 1_000_000, ...fields() }), 'Invalid device_id');
  assertSuccess(await cast.member.post('/api/v1/mobile_push/register', { device_id: mine, ...fields() }));
});

devices("register's devices, kept current by device events: a new device, its registration, each rotation", async () => {
  const u = await realm.createUser();
  const types = { types: ['device'] };
  let deviceId = 0;
  const added = await expectConsistent(u, async () => (deviceId = await newDeviceId(u)), types);
  assert.equal(added.map(({ id: _id, ...e }) => e), [{ type: 'device', op: 'add', device_id: deviceId }]);
  const key = newKey();
  const before = Math.floor(Date.now() / 1000);
  const registered = await expectConsistent(
    u,
    async () =>
      assertSuccess(await u.post('/api/v1/mobile_push/register', { device_id: deviceId, push_key_id: 31, push_key: key.toString('base64'), ...tokenFields('first') })),
    types,
  );
  const { id: _id, push_token_last_updated_timestamp: at, ...update } = registered[0]!;
  assert.equal(update, { type: 'device', op: 'update', device_id: deviceId, push_key_id: 31, push_token_id: tokenId('first'), pending_push_token_id: null });
  assert.ok(at >= before && at <= Math.ceil(Date.now() / 1000), `push_token_last_updated_timestamp ${at}`);
  const keyRotated = await expectConsistent(
    u,
    async () => assertSuccess(await u.post('/api/v1/mobile_push/register', { device_id: deviceId, push_key_id: 32, push_key: newKey().toString('base64') })),
    types,
  );
  assert.equal(keyRotated.map(({ id: _id, ...e }) => e), [{ type: 'device', op: 'update', device_id: deviceId, push_key_id: 32 }]);
  await expectConsistent(u, async () => assertSuccess(await u.post('/api/v1/mobile_push/register', { device_id: deviceId, ...tokenFields('second', 'apns') })), types);
  const state = await registerState(u, types);
  assert.equal(state.devices, {
    [deviceId]: {
      push_key_id: 32,
      push_token_id: tokenId('second'),
      pending_push_token_id: null,
      push_token_last_updated_timestamp: state.devices[deviceId].push_token_last_updated_timestamp,
      push_registration_error_code: null,
    },
  });
  assert.type(state.devices[deviceId].push_token_last_updated_timestamp, 'number');
});

devices('a device registered for push before devices were named keeps working, and is listed', async () => {
  const u = await realm.createUser();
  // As migration 057 leaves one whose id another user's device had taken: a push_devices row alone.
  const legacyId = 2_000_000_000;
  await server.db.pool.query(sql.unsafe`
    INSERT INTO push_devices (user_id, device_id, push_key_id, push_key, token_kind, token_id, bouncer_public_key, encrypted_push_registration)
    VALUES (${u.id}, ${legacyId}, 7, ${sql.binary(newKey())}, 'fcm', ${tokenId('legacy')}, ${b64('bouncer-key-1')}, ${b64('sealed:legacy')})`);
  const listed = (await registerState(u, { types: ['device'] })).devices[legacyId];
  assert.equal(listed, { push_key_id: 7, push_token_id: tokenId('legacy'), pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null });
  assertSuccess(await u.post('/api/v1/mobile_push/register', { device_id: legacyId, push_key_id: 8, push_key: newKey().toString('base64') }));
  assert.is((await registerState(u, { types: ['device'] })).devices[legacyId].push_key_id, 8);
});

devices("devices are their owner's alone: others neither list them nor hear of them", async () => {
  const [u, other] = [await realm.createUser(), await realm.createUser()];
  const theirs = await registerState(other, { types: ['device'] });
  const id = await newDeviceId(u);
  assert.equal(await drainEvents(other, theirs.queue_id), []);
  assert.equal((await registerState(other, { types: ['device'] })).devices, {});
  assert.equal(Object.keys((await registerState(u, { types: ['device'] })).devices), [String(id)]);
  assert.not.ok('devices' in (await registerState(u, { types: ['realm'] })), 'only when device is fetched');
});

const notify = suite('encrypted notifications');
let ann: TestUser;
notify.before(async () => {
  await setup();
  ann = await realm.createUser({ name: 'Ann Mobile' });
});

notify('each device gets the payload encrypted with its own key and labelled with its key id', async () => {
  const phone = await registerDevice(ann);
  const tablet = await registerDevice(ann, { kind: 'apns' });
  const body = await sendAndReceive(channelMessage(501, cast.member.id), [ann.id]);
  assert.is(body.realm_url, realm.handle.state.realm.url);
  const mine = (body.notifications as Record<string, any>[]).filter((n) => n.push_key_id === phone.keyId || n.push_key_id === tablet.keyId);
  assert.is(mine.length, 2);
  for (const d of [phone, tablet]) {
    const n = mine.find((x) => x.push_key_id === d.keyId)!;
    assert.is(n.token_id, tokenId(d.token));
    assert.is(n.encrypted_push_registration, b64(`sealed:${d.token}`));
    assert.not.ok('data' in n);
    const plain = decryptOnDevice(d.key, n.encrypted_data);
    assert.ok(plain !== null, 'decrypts with the device key');
    const payload = JSON.parse(plain!);
    assert.equal(payload, {
      type: 'message',
      realm_url: realm.handle.state.realm.url,
      realm_name: realm.handle.state.realm.name,
      user_id: ann.id,
      message_id: 501,
      sender_id: cast.member.id,
      sender_full_name: 'Mel Member',
      time: 1_800_000_000,
      recipient_type: 'channel',
      channel_id: 7,
      channel_name: 'general',
      topic: 'greetings',
      content: 'Hello **there**',
    });
  }
  // Another device's key does not open it.
  const n = mine.find((x) => x.push_key_id === phone.keyId)!;
  assert.is(decryptOnDevice(tablet.key, n.encrypted_data), null);
});

notify('key rotation: later notifications use the new key', async () => {
  const d = await registerDevice(cast.owner);
  const rotated = newKey();
  assertSuccess(await cast.owner.post('/api/v1/mobile_push/register', { device_id: d.deviceId, push_key_id: 77, push_key: rotated.toString('base64') }));
  const body = await sendAndReceive(channelMessage(502, cast.member.id), [cast.owner.id]);
  const n = (body.notifications as Record<string, any>[]).find((x) => x.push_key_id === 77)!;
  assert.ok(decryptOnDevice(rotated, n.encrypted_data));
  assert.is(decryptOnDevice(d.key, n.encrypted_data), null);
  assert.is(n.token_id, tokenId(d.token));
});

notify('token rotation: later notifications go to the new token', async () => {
  const u = await realm.createUser();
  const d = await registerDevice(u);
  assertSuccess(await u.post('/api/v1/mobile_push/register', { device_id: d.deviceId, ...tokenFields('fresh-token', 'apns') }));
  const body = await sendAndReceive(channelMessage(503, cast.member.id), [u.id]);
  assert.equal(
    (body.notifications as Record<string, any>[]).map((n) => [n.token_kind, n.token_id, n.push_key_id]),
    [['apns', tokenId('fresh-token'), d.keyId]],
  );
});

notify('direct messages, long content, legacy tokens and deactivated recipients', async () => {
  const u = await realm.createUser();
  const d = await registerDevice(u);
  assertSuccess(await u.post('/api/v1/users/me/apns_device_token', { token: 'abcdef0123', appid: 'org.example.app' }));
  const gone = await realm.createUser();
  await registerDevice(gone);
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  const message: PushMessage = { id: 504, senderId: cast.member.id, content: 'x'.repeat(300), timestamp: 1, directRecipientIds: [u.id, cast.member.id] };
  const body = await sendAndReceive(message, [u.id, gone.id]);
  const list = body.notifications as Record<string, any>[];
  assert.is(list.length, 2, 'the deactivated recipient gets nothing');
  const e2ee = JSON.parse(decryptOnDevice(d.key, list.find((n) => n.push_key_id === d.keyId)!.encrypted_data)!);
  assert.is(e2ee.recipient_type, 'direct');
  assert.equal(e2ee.recipient_user_ids, [u.id, cast.member.id].sort((a, b) => a - b));
  assert.is([...e2ee.content].length, 200);
  assert.ok(e2ee.content.endsWith('…'));
  const legacy = list.find((n) => n.token === 'abcdef0123')!;
  assert.equal([legacy.token_kind, legacy.ios_app_id, legacy.data.message_id], ['apns', 'org.example.app', 504]);
  // An organization that requires end-to-end encryption sends nothing in the clear.
  await realm.updateSettings({ require_e2ee_push_notifications: true });
  try {
    const strict = await sendAndReceive({ ...message, id: 505 }, [u.id]);
    assert.equal((strict.notifications as Record<string, any>[]).map((n) => n.push_key_id), [d.keyId]);
  } finally {
    await realm.updateSettings({ require_e2ee_push_notifications: false });
  }
});

notify('no devices, no request', async () => {
  const u = await realm.createUser();
  const before = push.received.length;
  await notifyNewMessage(realm.handle, channelMessage(506, cast.member.id), [u.id]);
  await new Promise((r) => setTimeout(r, 50));
  assert.is(push.received.length, before);
});

const tests = suite('test notifications');
tests.before(setup);

tests('encrypted devices: all of the caller\'s, or the one named; each sealed with its key', async () => {
  const u = await realm.createUser({ name: 'Tess Tester' });
  const phone = await registerDevice(u);
  const tablet = await registerDevice(u, { kind: 'apns' });
  assertSuccess(await u.post('/api/v1/users/me/apns_device_token', { token: 'abcdef0777', appid: 'org.example.app' }));
  let before = push.received.length;
  assertSuccess(await u.post('/api/v1/mobile_push/e2ee/test_notification'));
  await push.waitFor(before + 1);
  const all = push.received[before]!.body.notifications as Record<string, any>[];
  assert.equal(all.map((n) => n.push_key_id).sort(), [phone.keyId, tablet.keyId].sort(), 'the encrypted devices only');
  const payload = JSON.parse(decryptOnDevice(phone.key, all.find((n) => n.push_key_id === phone.keyId)!.encrypted_data)!);
  assert.equal({ ...payload, time: 0 }, {
    type: 'test',
    event: 'test',
    realm_url: realm.handle.state.realm.url,
    realm_name: realm.handle.state.realm.name,
    user_id: u.id,
    time: 0,
  });
  before = push.received.length;
  assertSuccess(await u.post('/api/v1/mobile_push/e2ee/test_notification', { device_id: tablet.deviceId }));
  await push.waitFor(before + 1);
  assert.equal((push.received[before]!.body.notifications as Record<string, any>[]).map((n) => n.push_key_id), [tablet.keyId]);
  assertError(await u.post('/api/v1/mobile_push/e2ee/test_notification', { device_id: phone.deviceId + 100_000 }), 'No active registered push device', 400, 'NO_ACTIVE_PUSH_DEVICE');
  // Another user's device is not the caller's to test.
  assertError(await cast.member.post('/api/v1/mobile_push/e2ee/test_notification', { device_id: phone.deviceId }), 'No active registered push device');
});

tests('provider tokens: all, or the one given; in the clear unless encryption is required', async () => {
  const u = await realm.createUser({ name: 'Lee Legacy' });
  await registerDevice(u);
  assertSuccess(await u.post('/api/v1/users/me/apns_device_token', { token: 'abcdef0888', appid: 'org.example.app' }));
  assertSuccess(await u.post('/api/v1/users/me/android_gcm_reg_id', { token: 'lee-fcm-2' }));
  let before = push.received.length;
  assertSuccess(await u.post('/api/v1/mobile_push/test_notification'));
  await push.waitFor(before + 1);
  const all = push.received[before]!.body.notifications as Record<string, any>[];
  assert.equal(all.map((n) => n.token).sort(), ['abcdef0888', 'lee-fcm-2']);
  assert.equal([all[0]!.data.event, all[0]!.data.user_id], ['test', u.id]);
  before = push.received.length;
  assertSuccess(await u.post('/api/v1/mobile_push/test_notification', { token: 'lee-fcm-2' }));
  await push.waitFor(before + 1);
  assert.equal((push.received[before]!.body.notifications as Record<string, any>[]).map((n) => [n.token, n.token_kind]), [['lee-fcm-2', 'fcm']]);
  assertError(await u.post('/api/v1/mobile_push/test_notification', { token: 'not-lees' }), 'Device not recognized', 400, 'INVALID_PUSH_DEVICE_TOKEN');
  await realm.updateSettings({ require_e2ee_push_notifications: true });
  try {
    assertError(await u.post('/api/v1/mobile_push/test_notification'), 'No active registered push device', 400, 'NO_ACTIVE_PUSH_DEVICE');
  } finally {
    await realm.updateSettings({ require_e2ee_push_notifications: false });
  }
  const none = await realm.createUser();
  assertError(await none.post('/api/v1/mobile_push/test_notification'), 'No active registered push device');
  assertError(await none.post('/api/v1/mobile_push/e2ee/test_notification'), 'No active registered push device');
});

tests('a push service that fails, refuses or is missing is a clear error', async () => {
  const u = await realm.createUser();
  await registerDevice(u);
  try {
    push.status = 503;
    assertError(await u.post('/api/v1/mobile_push/e2ee/test_notification'), 'Internal server error on the push notification service, retry later.', 502, 'INTERNAL_SERVER_ERROR_ON_BOUNCER');
    push.status = 401;
    assertError(
      await u.post('/api/v1/mobile_push/e2ee/test_notification'),
      'Push notification configuration issue on server, contact the server administrator or retry later.',
      403,
      'ADMIN_ACTION_REQUIRED',
    );
  } finally {
    push.status = 200;
  }
  const closed = await startFakePushService();
  await closed.close();
  const unreachable = await startTestServer({ env: { PUSH_SERVICE_URL: closed.url } });
  const unconfigured = await startTestServer();
  try {
    const far = await unreachable.createRealm();
    const d = await registerDevice(far.owner);
    assertError(await far.owner.post('/api/v1/mobile_push/e2ee/test_notification', { device_id: d.deviceId }), 'Network error while connecting to the push notification service.', 502, 'FAILED_TO_CONNECT_BOUNCER');
    const plain = await unconfigured.createRealm();
    assertError(await plain.owner.post('/api/v1/mobile_push/test_notification'), 'Server is not configured to use push notification service.', 400, 'PUSH_SERVICE_NOT_CONFIGURED');
  } finally {
    await unreachable.close();
    await unconfigured.close();
  }
});

tests('every role may test its own devices', async () => {
  for (const role of ROLE_NAMES) {
    const d = await registerDevice(cast[role]);
    const before = push.received.length;
    assertSuccess(await cast[role].post('/api/v1/mobile_push/e2ee/test_notification', { device_id: d.deviceId }));
    await push.waitFor(before + 1);
    assert.equal((push.received[before]!.body.notifications as Record<string, any>[]).map((n) => n.push_key_id), [d.keyId], role);
  }
});

tests.run();

const sends = suite('sending a message notifies its recipients');
sends.before(setup);

/** Notifications the push service got for this message id (decrypting with the given device keys). */
async function pushedFor(messageId: number, devices: Device[], waitMs = 300): Promise<Array<{ user: number; keyId: number }>> {
  await new Promise((r) => setTimeout(r, waitMs));
  const out: Array<{ user: number; keyId: number }> = [];
  for (const req of push.received) {
    for (const n of req.body.notifications as Record<string, any>[]) {
      const d = devices.find((x) => x.keyId === n.push_key_id);
      if (!d || !n.encrypted_data) continue;
      const payload = JSON.parse(decryptOnDevice(d.key, n.encrypted_data) ?? '{}');
      if (payload.message_id === messageId) out.push({ user: payload.user_id, keyId: d.keyId });
    }
  }
  return out;
}

sends('direct messages reach an offline recipient, and an active one only if asked (the default)', async () => {
  const rita = await realm.createUser({ name: 'Rita Recipient' });
  const phone = await registerDevice(rita);
  assertSuccess(await rita.patch('/api/v1/settings', { enable_online_push_notifications: false }));
  const send = async () =>
    assertSuccess(await cast.member.post('/api/v1/messages', { type: 'direct', to: [rita.id], content: 'ping' })).id as number;
  assert.equal(await pushedFor(await send(), [phone]), [{ user: rita.id, keyId: phone.keyId }]);
  assertSuccess(await rita.post('/api/v1/users/me/presence', { status: 'active', ping_only: true }));
  assert.equal(await pushedFor(await send(), [phone]), []);
  assertSuccess(await rita.patch('/api/v1/settings', { enable_online_push_notifications: true }));
  assert.equal(await pushedFor(await send(), [phone]), [{ user: rita.id, keyId: phone.keyId }]);
  assertSuccess(await rita.patch('/api/v1/settings', { enable_offline_push_notifications: false }));
  assert.equal(await pushedFor(await send(), [phone]), []);
});

sends('channel messages follow the subscription’s push setting; mentions always count', async () => {
  const sam = await realm.createUser({ name: 'Sam Subscriber' });
  const phone = await registerDevice(sam);
  assertSuccess(await cast.member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'pushy' }], principals: [sam.id, cast.member.id] }));
  const channelId = assertSuccess(await sam.get('/api/v1/get_stream_id', { stream: 'pushy' })).stream_id as number;
  const post = async (content: string) =>
    assertSuccess(await cast.member.post('/api/v1/messages', { type: 'stream', to: 'pushy', topic: 'news', content })).id as number;
  assert.equal(await pushedFor(await post('quiet news'), [phone]), []);
  assert.equal(await pushedFor(await post('hey @**Sam Subscriber**'), [phone]), [{ user: sam.id, keyId: phone.keyId }]);
  assertSuccess(await sam.patch(`/api/v1/users/me/subscriptions/${channelId}`, { property: 'push_notifications', value: true }));
  assert.equal(await pushedFor(await post('loud news'), [phone]), [{ user: sam.id, keyId: phone.keyId }]);
  assertSuccess(await sam.patch(`/api/v1/users/me/subscriptions/${channelId}`, { property: 'is_muted', value: true }));
  assert.equal(await pushedFor(await post('muted news'), [phone]), []);
  // The sender's own devices are never notified.
  const own = await registerDevice(cast.member);
  assert.equal(await pushedFor(await post('from me'), [own]), []);
});

/** The message ids of the removals the push service got for this device since request `from`. */
async function removalsFor(device: Device, from: number, waitMs = 300): Promise<number[][]> {
  await new Promise((r) => setTimeout(r, waitMs));
  const out: number[][] = [];
  for (const req of push.received.slice(from)) {
    for (const n of req.body.notifications as Record<string, any>[]) {
      if (n.push_key_id !== device.keyId) continue;
      const payload = JSON.parse(decryptOnDevice(device.key, n.encrypted_data) ?? '{}');
      if (payload.type === 'remove') out.push(payload.message_ids as number[]);
    }
  }
  return out;
}

sends('reading or deleting a pushed message removes its notification from the devices, once', async () => {
  const rob = await realm.createUser({ name: 'Rob Reader' });
  const phone = await registerDevice(rob);
  const dm = async (from: TestUser, content: string) => assertSuccess(await from.post('/api/v1/messages', { type: 'direct', to: [rob.id], content })).id as number;
  const first = await dm(cast.member, 'one');
  const second = await dm(cast.member, 'two');
  const third = await dm(cast.moderator, 'three');
  assert.is((await pushedFor(third, [phone])).length, 1, 'pushed');
  // Marked read one by one (the flags endpoint): a removal naming it.
  let from = push.received.length;
  assertSuccess(await rob.post('/api/v1/messages/flags', { messages: [first], op: 'add', flag: 'read' }));
  assert.equal(await removalsFor(phone, from), [[first]]);
  // Read again, or starred: nothing more to remove.
  from = push.received.length;
  assertSuccess(await rob.post('/api/v1/messages/flags', { messages: [first], op: 'remove', flag: 'read' }));
  assertSuccess(await rob.post('/api/v1/messages/flags', { messages: [first, second], op: 'add', flag: 'starred' }));
  assertSuccess(await rob.post('/api/v1/messages/flags', { messages: [first], op: 'add', flag: 'read' }));
  assert.equal(await removalsFor(phone, from), []);
  // Muting a sender marks their messages read: theirs go.
  from = push.received.length;
  assertSuccess(await rob.post(`/api/v1/users/me/muted_users/${cast.moderator.id}`));
  assert.equal(await removalsFor(phone, from), [[third]]);
  // Everything read: the rest.
  from = push.received.length;
  assertSuccess(await rob.post('/api/v1/mark_all_as_read'));
  assert.equal(await removalsFor(phone, from), [[second]]);
  const payload = (() => {
    const n = (push.received.at(-1)!.body.notifications as Record<string, any>[]).find((x) => x.push_key_id === phone.keyId)!;
    return JSON.parse(decryptOnDevice(phone.key, n.encrypted_data)!);
  })();
  assert.equal(payload, {
    type: 'remove',
    event: 'remove',
    realm_url: realm.handle.state.realm.url,
    realm_name: realm.handle.state.realm.name,
    user_id: rob.id,
    message_ids: [second],
  });
  // A pushed message deleted before it was read: its notification goes too.
  const regretted = await dm(cast.member, 'oops');
  assert.is((await pushedFor(regretted, [phone])).length, 1);
  from = push.received.length;
  assertSuccess(await cast.member.delete(`/api/v1/messages/${regretted}`));
  assert.equal(await removalsFor(phone, from), [[regretted]]);
});

const legacy = suite('deprecated token endpoints');
legacy.before(setup);

legacy('APNs token: add, validation, remove', async () => {
  const u = cast.member;
  assertSuccess(await u.post('/api/v1/users/me/apns_device_token', { token: 'c0ffee00', appid: 'org.example.chat' }));
  assertSuccess(await u.post('/api/v1/users/me/apns_device_token', { token: 'c0ffee00', appid: 'org.example.chat' }));
  assertError(await u.post('/api/v1/users/me/apns_device_token', { token: '', appid: 'a' }), 'Empty or invalid length token');
  assertError(await u.post('/api/v1/users/me/apns_device_token', { token: 'a'.repeat(4098), appid: 'a' }), 'Empty or invalid length token');
  assertError(await u.post('/api/v1/users/me/apns_device_token', { token: 'not-hex', appid: 'a' }), 'Invalid APNS token');
  assertError(await u.post('/api/v1/users/me/apns_device_token', { token: 'c0ffee00' }), "Missing 'appid' argument");
  assertError(await u.post('/api/v1/users/me/apns_device_token', { token: 'c0ffee00', appid: 'bad app id' }), 'Invalid app ID');
  assertSuccess(await u.delete('/api/v1/users/me/apns_device_token', { token: 'c0ffee00' }));
  assertError(await u.delete('/api/v1/users/me/apns_device_token', { token: 'c0ffee00' }), 'Token does not exist');
  assertError(await u.delete('/api/v1/users/me/apns_device_token', { token: '' }), 'Empty or invalid length token');
});

legacy('FCM token: add, remove; tokens are per user', async () => {
  assertSuccess(await cast.guest.post('/api/v1/users/me/android_gcm_reg_id', { token: 'fcm-guest-token' }));
  assertError(await cast.bot.delete('/api/v1/users/me/android_gcm_reg_id', { token: 'fcm-guest-token' }), 'Token does not exist');
  assertSuccess(await cast.guest.delete('/api/v1/users/me/android_gcm_reg_id', { token: 'fcm-guest-token' }));
  assertError(await cast.guest.post('/api/v1/users/me/android_gcm_reg_id', { token: '' }), 'Empty or invalid length token');
  assertError(await cast.guest.delete('/api/v1/users/me/android_gcm_reg_id', { token: 'never-added' }), 'Token does not exist');
});

legacy('server settings report push notifications', async () => {
  assert.is(assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings')).push_notifications_enabled, true);
  assert.is(assertSuccess(await cast.member.post('/api/v1/register', { fetch_event_types: ['realm'] })).realm_push_notifications_enabled, true);
});

legacy.after(async () => {
  await server.close();
  await push.close();
});

const unconfigured = suite('without a push service');

unconfigured('E2EE registration is refused; legacy tokens still register; nothing is sent', async () => {
  const s = await startTestServer();
  try {
    const r = await s.createRealm();
    const res = await r.owner.post('/api/v1/mobile_push/register', {
      device_id: 1,
      push_key_id: 1,
      push_key: newKey().toString('base64'),
      ...tokenFields('t'),
    });
    assertError(res, 'Server is not configured to use push notification service.', 400, 'PUSH_SERVICE_NOT_CONFIGURED');
    assertSuccess(await r.owner.post('/api/v1/users/me/android_gcm_reg_id', { token: 'still-works' }));
    assert.is(assertSuccess(await r.anonymous('GET', '/api/v1/server_settings')).push_notifications_enabled, false);
    await notifyNewMessage(r.handle, channelMessage(1, r.owner.id), [r.owner.id]);
  } finally {
    await s.close();
  }
});

reg.run();
devices.run();
notify.run();
sends.run();
legacy.run();
unconfigured.run();
