// Push notifications through the push service (PUSH_SERVICE_URL): new messages, their removal
// once read, and tests. Each registered end-to-end-encrypted device gets the payload encrypted
// with its own push key (cryptosystem 0x31) and labelled with its push_key_id; legacy provider
// tokens get it in the clear unless the organization requires end-to-end encryption. One POST
// per message (or per read, or test):
//
//   POST {PUSH_SERVICE_URL}/notify   Content-Type: application/json
//   {"realm_url": "...", "notifications": [
//     {"token_kind", "token_id", "bouncer_public_key", "encrypted_push_registration", "push_key_id", "encrypted_data"},
//     {"token_kind", "token", "ios_app_id", "data": {...}}   (legacy)
//   ]}
//
// The messaging layer decides who is notified and calls notifyNewMessage after its commit; the
// users notified are remembered (push_active) until they read the message, and notifyRead then
// tells their devices to drop the notification.
import type { RealmHandle } from '../actors/realm/actor.js';
import { encryptForDevice } from '../domain/push-crypto.js';
import { errors } from '../domain/errors.js';
import { devicesOfUsers, legacyTokensOfUsers, recordActivePushes, takeActivePushes, takeActivePushesOf, type DeviceRow, type LegacyTokenRow } from '../store/push.js';

export interface PushMessage {
  readonly id: number;
  readonly senderId: number;
  /** Raw Markdown; notifications carry a shortened copy. */
  readonly content: string;
  /** UNIX seconds. */
  readonly timestamp: number;
  /** For channel messages. */
  readonly channel?: { readonly id: number; readonly name: string; readonly topic: string } | undefined;
  /** For direct messages: every participant, the sender included. */
  readonly directRecipientIds?: readonly number[] | undefined;
}

const CONTENT_LIMIT = 200;
const SEND_TIMEOUT_MS = 10_000;

function shorten(content: string): string {
  const chars = [...content.trim()];
  return chars.length <= CONTENT_LIMIT ? chars.join('') : `${chars.slice(0, CONTENT_LIMIT - 1).join('')}…`;
}

/** What one recipient's devices are told about a message (before encryption). */
export function messagePayload(realm: RealmHandle, m: PushMessage, recipientId: number): Record<string, unknown> {
  const r = realm.state.realm;
  const sender = realm.state.user(m.senderId);
  const where = m.channel
    ? { recipient_type: 'channel', channel_id: m.channel.id, channel_name: m.channel.name, topic: m.channel.topic }
    : { recipient_type: 'direct', recipient_user_ids: [...(m.directRecipientIds ?? [])].sort((a, b) => a - b) };
  return {
    type: 'message',
    realm_url: r.url,
    realm_name: r.name,
    user_id: recipientId,
    message_id: m.id,
    sender_id: m.senderId,
    sender_full_name: sender?.full_name ?? '',
    time: m.timestamp,
    ...where,
    content: shorten(m.content),
  };
}

type Notification = Record<string, unknown>;

/** One end-to-end-encrypted device's notification: the payload sealed with its key. */
function deviceNotification(d: DeviceRow, payload: string): Notification {
  return {
    token_kind: d.token_kind,
    token_id: d.token_id,
    bouncer_public_key: d.bouncer_public_key,
    encrypted_push_registration: d.encrypted_push_registration,
    push_key_id: d.push_key_id,
    encrypted_data: encryptForDevice(d.push_key!, payload),
  };
}

function legacyNotification(t: LegacyTokenRow, data: Record<string, unknown>): Notification {
  return { token_kind: t.kind, token: t.token, ios_app_id: t.ios_app_id, data };
}

/** The push service answered with an error status. */
class PushServiceRefused extends Error {
  constructor(readonly status: number) {
    super(`push service answered ${status}`);
  }
}

/** One request to the push service; throws when it cannot be reached or answers with an error. */
async function postNotifications(realm: RealmHandle, url: string, notifications: readonly Notification[]): Promise<void> {
  const res = await fetch(`${url}/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ realm_url: realm.state.realm.url, notifications }),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  if (!res.ok) throw new PushServiceRefused(res.status);
}

/**
 * Send a new message's notifications to every registered device of the recipients. Never
 * throws: failures are logged (a lost notification must not fail the send). Call after commit,
 * without awaiting on the request path.
 */
export async function notifyNewMessage(realm: RealmHandle, message: PushMessage, recipientUserIds: readonly number[]): Promise<void> {
  const { config, db, log } = realm.services;
  const url = config.pushServiceUrl;
  if (!url || recipientUserIds.length === 0) return;
  try {
    const recipients = recipientUserIds.filter((id) => realm.state.user(id)?.is_active);
    const [devices, legacy] = await Promise.all([
      devicesOfUsers(db, recipients),
      realm.state.realm.settings.require_e2ee_push_notifications ? Promise.resolve([]) : legacyTokensOfUsers(db, recipients),
    ]);
    const payloads = new Map<number, string>();
    const payloadOf = (userId: number) => {
      let p = payloads.get(userId);
      if (p === undefined) payloads.set(userId, (p = JSON.stringify(messagePayload(realm, message, userId))));
      return p;
    };
    const notifications = devices.map((d) => deviceNotification(d, payloadOf(d.user_id)));
    for (const t of legacy) notifications.push(legacyNotification(t, JSON.parse(payloadOf(t.user_id)) as Record<string, unknown>));
    if (notifications.length === 0) return;
    await postNotifications(realm, url, notifications);
    const notified = new Set([...devices.map((d) => d.user_id), ...legacy.map((t) => t.user_id)]);
    await recordActivePushes(db, message.id, [...notified]);
  } catch (err) {
    if (err instanceof PushServiceRefused) log.warn({ status: err.status, message: message.id }, 'push service refused notifications');
    else log.warn({ err, message: message.id }, 'push notifications not sent');
  }
}

/** The most message ids one removal names; more go in further removals of the same request. */
const MAX_IDS_PER_REMOVAL = 1000;

/**
 * Removals for the users' devices, one query for all their devices: each payload names at most
 * MAX_IDS_PER_REMOVAL of a user's messages.
 */
async function removals(realm: RealmHandle, byUser: ReadonlyMap<number, readonly number[]>): Promise<Notification[]> {
  const { db } = realm.services;
  const userIds = [...byUser.keys()];
  const [devices, legacy] = await Promise.all([
    devicesOfUsers(db, userIds),
    realm.state.realm.settings.require_e2ee_push_notifications ? Promise.resolve([]) : legacyTokensOfUsers(db, userIds),
  ]);
  const r = realm.state.realm;
  const out: Notification[] = [];
  for (const [userId, messageIds] of byUser) {
    const mine = devices.filter((d) => d.user_id === userId);
    const tokens = legacy.filter((t) => t.user_id === userId);
    for (let i = 0; i < messageIds.length; i += MAX_IDS_PER_REMOVAL) {
      const payload = { type: 'remove', event: 'remove', realm_url: r.url, realm_name: r.name, user_id: userId, message_ids: messageIds.slice(i, i + MAX_IDS_PER_REMOVAL) };
      const json = JSON.stringify(payload);
      for (const d of mine) out.push(deviceNotification(d, json));
      for (const t of tokens) out.push(legacyNotification(t, payload));
    }
  }
  return out;
}

/**
 * After the user read messages: their devices drop the notifications of those that were pushed
 * (a removal: `type` and `event` "remove", `message_ids`). Never throws; does nothing without a
 * push service. Call after the commit, without awaiting on the request path.
 */
export async function notifyRead(realm: RealmHandle, userId: number, messageIds: readonly number[]): Promise<void> {
  const url = realm.services.config.pushServiceUrl;
  if (!url || messageIds.length === 0) return;
  try {
    const pushed = [...(await takeActivePushes(realm.services.db, userId, messageIds))].sort((a, b) => a - b);
    if (pushed.length === 0) return;
    const notifications = await removals(realm, new Map([[userId, pushed]]));
    if (notifications.length > 0) await postNotifications(realm, url, notifications);
  } catch (err) {
    realm.services.log.warn({ err, user: userId }, 'push removals not sent');
  }
}

/** After messages were deleted: every device still showing one of them drops it. As notifyRead. */
export async function notifyDeleted(realm: RealmHandle, messageIds: readonly number[]): Promise<void> {
  const url = realm.services.config.pushServiceUrl;
  if (!url || messageIds.length === 0) return;
  try {
    const byUser = new Map<number, number[]>();
    for (const r of await takeActivePushesOf(realm.services.db, messageIds)) {
      let ids = byUser.get(r.user_id);
      if (!ids) byUser.set(r.user_id, (ids = []));
      ids.push(r.message_id);
    }
    if (byUser.size === 0) return;
    for (const ids of byUser.values()) ids.sort((a, b) => a - b);
    const notifications = await removals(realm, byUser);
    if (notifications.length > 0) await postNotifications(realm, url, notifications);
  } catch (err) {
    realm.services.log.warn({ err, messages: messageIds.length }, 'push removals of deleted messages not sent');
  }
}

/** What a test notification says (before encryption, or as a legacy token's data). */
function testPayload(realm: RealmHandle, userId: number, nowMs: number): Record<string, unknown> {
  const r = realm.state.realm;
  return { type: 'test', event: 'test', realm_url: r.url, realm_name: r.name, user_id: userId, time: Math.floor(nowMs / 1000) };
}

/**
 * A test notification to some of the user's devices, sent now: `which` picks legacy provider
 * tokens (one token, or all) or end-to-end-encrypted devices (one device id, or all). Throws the
 * API's errors: no such device, none at all, the push service unset, unreachable or failing.
 */
export async function sendTestNotification(
  realm: RealmHandle,
  userId: number,
  which: { readonly legacy: true; readonly token?: string | undefined } | { readonly legacy: false; readonly deviceId?: number | undefined },
): Promise<void> {
  const { config, db, clock } = realm.services;
  const url = config.pushServiceUrl;
  if (!url) throw errors.pushServiceNotConfigured();
  const payload = testPayload(realm, userId, clock.now());
  let notifications: Notification[];
  if (which.legacy) {
    // Where end-to-end encryption is required, the legacy tokens get nothing, tests included.
    let tokens = realm.state.realm.settings.require_e2ee_push_notifications ? [] : await legacyTokensOfUsers(db, [userId]);
    if (which.token !== undefined) {
      tokens = tokens.filter((t) => t.token === which.token);
      if (tokens.length === 0) throw errors.pushDeviceNotRecognized();
    }
    notifications = tokens.map((t) => legacyNotification(t, payload));
  } else {
    const devices = (await devicesOfUsers(db, [userId])).filter((d) => which.deviceId === undefined || d.device_id === which.deviceId);
    const json = JSON.stringify(payload);
    notifications = devices.map((d) => deviceNotification(d, json));
  }
  if (notifications.length === 0) throw errors.noActivePushDevice();
  try {
    await postNotifications(realm, url, notifications);
  } catch (err) {
    if (err instanceof PushServiceRefused && err.status >= 500) throw errors.pushServiceFailed();
    if (err instanceof PushServiceRefused) throw errors.pushServiceRefused();
    throw errors.pushServiceUnreachable();
  }
}
