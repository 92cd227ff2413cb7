// Realm commands for logged-in devices and their push registrations: a new device
// (POST /register_client_device), its end-to-end-encrypted registration (register, rotate the
// push key or the provider token), each told to the user's clients as `device` events; and the
// deprecated plain provider tokens, which no client state shows.
import { errors } from '../../domain/errors.js';
import { deviceEvent } from '../../domain/events/devices.js';
import { tokenId } from '../../domain/push-crypto.js';
import * as store from '../../store/push.js';
import type { RealmContext } from './actor.js';

const toUser = (userId: number) => ({ userIds: [userId] });

async function registerClientDevice(ctx: RealmContext, input: { readonly userId: number }): Promise<number> {
  return ctx.write(async (tx, emit) => {
    const deviceId = await store.insertClientDevice(tx, input.userId);
    emit(deviceEvent.build({ op: 'add', device_id: deviceId }, toUser(input.userId)));
    return deviceId;
  });
}

export interface RegisterDeviceInput {
  readonly userId: number;
  readonly deviceId: number;
  readonly key: store.PushKeyFields | null;
  readonly token: store.TokenFields | null;
}

async function registerDevice(ctx: RealmContext, input: RegisterDeviceInput): Promise<void> {
  const { db, clock } = ctx.services;
  const existing = await store.findDevice(db, input.userId, input.deviceId);
  // A device registered for push before devices were registered keeps its registration.
  if (!existing && !(await store.isClientDevice(db, input.userId, input.deviceId))) throw errors.badRequest('Invalid device_id');
  // Rotation changes one group; a device the server does not know needs both.
  if ((!existing?.push_key && !input.key) || (!existing?.token_id && !input.token)) {
    throw errors.badRequest("A device's first registration needs both the push key fields and the token fields.");
  }
  const now = clock.now();
  await ctx.write(async (tx, emit) => {
    await store.saveDevice(tx, input.userId, input.deviceId, input.key, input.token, now);
    const token = input.token;
    if (token) {
      // The same provider token registered the old way would deliver every notification twice.
      const legacy = await store.legacyTokensOfUsers(tx, [input.userId]);
      const same = legacy.filter((t) => t.kind === token.tokenKind && tokenId(t.token) === token.tokenId);
      await store.removeLegacyTokensById(tx, same.map((t) => t.id));
    }
    // Parley hands the token to the push service with each notification: it is in use at once,
    // never pending.
    const pushed = token ? { push_token_id: token.tokenId, pending_push_token_id: null, push_token_last_updated_timestamp: Math.floor(now / 1000) } : {};
    const keyed = input.key ? { push_key_id: input.key.pushKeyId } : {};
    emit(deviceEvent.build({ op: 'update', device_id: input.deviceId, ...keyed, ...pushed }, toUser(input.userId)));
  });
}

export interface LegacyTokenInput {
  readonly userId: number;
  readonly kind: 'apns' | 'fcm';
  readonly token: string;
  readonly appId?: string | undefined;
}

async function addLegacyToken(ctx: RealmContext, input: LegacyTokenInput): Promise<void> {
  await ctx.write((tx) => store.addLegacyToken(tx, input.userId, input.kind, input.token, input.appId ?? null));
}

async function removeLegacyToken(ctx: RealmContext, input: LegacyTokenInput): Promise<void> {
  const removed = await ctx.write((tx) => store.removeLegacyToken(tx, input.userId, input.kind, input.token));
  if (!removed) throw errors.badRequest('Token does not exist');
}

export const pushCommands = {
  'push.registerClientDevice': registerClientDevice,
  'push.registerDevice': registerDevice,
  'push.addLegacyToken': addLegacyToken,
  'push.removeLegacyToken': removeLegacyToken,
};
