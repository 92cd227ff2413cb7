// Realm commands for push registrations: end-to-end-encrypted devices (register, rotate the push
// key or the provider token) and the deprecated plain provider tokens. No events: nothing in a
// client's state depends on them.
import { errors } from '../../domain/errors.js';
import { tokenId } from '../../domain/push-crypto.js';
import * as store from '../../store/push.js';
import type { RealmContext } from './actor.js';

export interface RegisterDeviceInput {
  readonly userId: number;
  readonly deviceId: number;
  readonly key: store.PushKeyFields | null;
  readonly token: store.TokenFields | null;
}

async function registerDevice(ctx: RealmContext, input: RegisterDeviceInput): Promise<void> {
  const existing = await store.findDevice(ctx.services.db, input.userId, input.deviceId);
  // Rotation changes one group; a device the server does not know needs both.
  if ((!existing?.push_key && !input.key) || (!existing?.token_id && !input.token)) {
    throw errors.badRequest("A device's first registration needs both the push key fields and the token fields.");
  }
  await ctx.write(async (tx) => {
    await store.saveDevice(tx, input.userId, input.deviceId, input.key, input.token);
    const token = input.token;
    if (token) {
      // The same provider token registered the old way would deliver every notification twice.
      const legacy = await store.legacyTokensOfUsers(tx, [input.userId]);
      const same = legacy.filter((t) => t.kind === token.tokenKind && tokenId(t.token) === token.tokenId);
      await store.removeLegacyTokensById(tx, same.map((t) => t.id));
    }
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
  'push.registerDevice': registerDevice,
  'push.addLegacyToken': addLegacyToken,
  'push.removeLegacyToken': removeLegacyToken,
};
