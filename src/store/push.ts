// Push registrations: end-to-end-encrypted devices (push_devices) and legacy provider tokens
// (push_device_tokens). Writes run inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { bufferSchema } from '../domain/exact-check.js';

const deviceRow = z.object({
  id: z.number(),
  user_id: z.number(),
  device_id: z.number(),
  push_key_id: z.number().nullable(),
  push_key: bufferSchema.nullable(),
  token_kind: z.enum(['fcm', 'apns']).nullable(),
  token_id: z.string().nullable(),
  bouncer_public_key: z.string().nullable(),
  encrypted_push_registration: z.string().nullable(),
});
export type DeviceRow = z.infer<typeof deviceRow>;

const deviceColumns = sql.fragment`id, user_id, device_id, push_key_id, push_key, token_kind, token_id, bouncer_public_key,
  encrypted_push_registration`;

export function findDevice(db: CommonQueryMethods, userId: number, deviceId: number): Promise<DeviceRow | null> {
  return db.maybeOne(sql.type(deviceRow)`
    SELECT ${deviceColumns} FROM push_devices WHERE user_id = ${userId} AND device_id = ${deviceId}`);
}

export interface PushKeyFields {
  readonly pushKeyId: number;
  readonly pushKey: Buffer;
}

export interface TokenFields {
  readonly tokenKind: 'fcm' | 'apns';
  readonly tokenId: string;
  readonly bouncerPublicKey: string;
  readonly encryptedPushRegistration: string;
}

/** A new logged-in device of this user (POST /register_client_device): its id. */
export async function insertClientDevice(db: CommonQueryMethods, userId: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ id: z.number() }))`INSERT INTO client_devices (user_id) VALUES (${userId}) RETURNING id`);
}

/** Whether this user registered the device (POST /register_client_device). */
export async function isClientDevice(db: CommonQueryMethods, userId: number, deviceId: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM client_devices WHERE id = ${deviceId} AND user_id = ${userId}`);
}

const clientDeviceRow = z.object({
  device_id: z.number(),
  push_key_id: z.number().nullable(),
  token_id: z.string().nullable(),
  token_updated: z.number().nullable(),
});
export type ClientDeviceRow = z.infer<typeof clientDeviceRow>;

/** This user's devices, registered or known by their push registration, with what push knows of each. */
export function clientDevicesOfUser(db: CommonQueryMethods, userId: number): Promise<readonly ClientDeviceRow[]> {
  return db.any(sql.type(clientDeviceRow)`
    SELECT d.id AS device_id, p.push_key_id, p.token_id, p.token_updated
    FROM (SELECT id FROM client_devices WHERE user_id = ${userId}
          UNION SELECT device_id FROM push_devices WHERE user_id = ${userId}) AS d (id)
    LEFT JOIN push_devices p ON p.user_id = ${userId} AND p.device_id = d.id
    ORDER BY d.id`);
}

/** Create or update a device's registration; absent groups keep their stored values. */
export async function saveDevice(
  db: CommonQueryMethods,
  userId: number,
  deviceId: number,
  key: PushKeyFields | null,
  token: TokenFields | null,
  now: number,
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO push_devices (user_id, device_id, push_key_id, push_key, token_kind, token_id, bouncer_public_key, encrypted_push_registration,
                              token_updated)
    VALUES (${userId}, ${deviceId}, ${key?.pushKeyId ?? null}, ${key ? sql.binary(key.pushKey) : null}, ${token?.tokenKind ?? null},
            ${token?.tokenId ?? null}, ${token?.bouncerPublicKey ?? null}, ${token?.encryptedPushRegistration ?? null},
            ${token ? sql.fragment`to_timestamp(${now / 1000})` : null})
    ON CONFLICT (user_id, device_id) DO UPDATE SET
      push_key_id = coalesce(excluded.push_key_id, push_devices.push_key_id),
      push_key = coalesce(excluded.push_key, push_devices.push_key),
      token_kind = coalesce(excluded.token_kind, push_devices.token_kind),
      token_id = coalesce(excluded.token_id, push_devices.token_id),
      bouncer_public_key = coalesce(excluded.bouncer_public_key, push_devices.bouncer_public_key),
      encrypted_push_registration = coalesce(excluded.encrypted_push_registration, push_devices.encrypted_push_registration),
      token_updated = coalesce(excluded.token_updated, push_devices.token_updated),
      date_updated = now()`);
}

/** Complete E2EE registrations (key and token) of these users. */
export function devicesOfUsers(db: CommonQueryMethods, userIds: readonly number[]): Promise<readonly DeviceRow[]> {
  return db.any(sql.type(deviceRow)`
    SELECT ${deviceColumns} FROM push_devices
    WHERE user_id = ANY(${sql.array(userIds, 'int4')}) AND push_key IS NOT NULL AND token_id IS NOT NULL
    ORDER BY user_id, device_id`);
}

const tokenRow = z.object({
  id: z.number(),
  user_id: z.number(),
  kind: z.enum(['apns', 'fcm']),
  token: z.string(),
  ios_app_id: z.string().nullable(),
});
export type LegacyTokenRow = z.infer<typeof tokenRow>;

export function legacyTokensOfUsers(db: CommonQueryMethods, userIds: readonly number[]): Promise<readonly LegacyTokenRow[]> {
  return db.any(sql.type(tokenRow)`
    SELECT id, user_id, kind, token, ios_app_id FROM push_device_tokens
    WHERE user_id = ANY(${sql.array(userIds, 'int4')}) ORDER BY id`);
}

export async function addLegacyToken(db: CommonQueryMethods, userId: number, kind: 'apns' | 'fcm', token: string, iosAppId: string | null): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO push_device_tokens (user_id, kind, token, ios_app_id) VALUES (${userId}, ${kind}, ${token}, ${iosAppId})
    ON CONFLICT (user_id, kind, token) DO UPDATE SET ios_app_id = excluded.ios_app_id`);
}

/** Returns whether a token was removed. */
export async function removeLegacyToken(db: CommonQueryMethods, userId: number, kind: 'apns' | 'fcm', token: string): Promise<boolean> {
  const r = await db.query(sql.unsafe`DELETE FROM push_device_tokens WHERE user_id = ${userId} AND kind = ${kind} AND token = ${token}`);
  return r.rowCount > 0;
}

export async function removeLegacyTokensById(db: CommonQueryMethods, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`DELETE FROM push_device_tokens WHERE id = ANY(${sql.array(ids, 'int4')})`);
}

/** The notifications of this message that went to these users' devices, to be removed once read. */
export async function recordActivePushes(db: CommonQueryMethods, messageId: number, userIds: readonly number[]): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO push_active (user_id, message_id)
    SELECT u, ${messageId} FROM unnest(${sql.array(userIds, 'int4')}::int4[]) AS u
    ON CONFLICT DO NOTHING`);
}

/** Of these messages, the ones whose notification the user's devices may still show (now forgotten). */
export function takeActivePushes(db: CommonQueryMethods, userId: number, messageIds: readonly number[]): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ message_id: z.number() }))`
    DELETE FROM push_active WHERE user_id = ${userId} AND message_id = ANY(${sql.array(messageIds, 'int8')})
    RETURNING message_id`);
}

/** Of these (deleted) messages, whose devices may still show a notification of which (now forgotten). */
export function takeActivePushesOf(db: CommonQueryMethods, messageIds: readonly number[]): Promise<ReadonlyArray<{ user_id: number; message_id: number }>> {
  return db.any(sql.type(z.object({ user_id: z.number(), message_id: z.number() }))`
    DELETE FROM push_active WHERE message_id = ANY(${sql.array(messageIds, 'int8')})
    RETURNING user_id, message_id`);
}
