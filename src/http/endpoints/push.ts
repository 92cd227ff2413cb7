// Push registration: a logged-in device first (POST /register_client_device, which names it),
// then POST /mobile_push/register (endpoint 9, end-to-end encrypted, in two groups of fields);
// the deprecated provider-token endpoints (endpoint 14 and its FCM twin);
// test notifications to the caller's devices (POST /mobile_push/test_notification for provider
// tokens, POST /mobile_push/e2ee/test_notification for encrypted devices).
import { z } from 'zod';
import { errors } from '../../domain/errors.js';
import { decodeStandardBase64, isTokenId, MAX_PUSH_KEY_ID, parsePushKey } from '../../domain/push-crypto.js';
import { sendTestNotification } from '../../push/push-notifier.js';
import type { PushKeyFields, TokenFields } from '../../store/push.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';

const KEY_FIELDS = ['push_key_id', 'push_key'] as const;
const TOKEN_FIELDS = ['token_kind', 'token_id', 'bouncer_public_key', 'encrypted_push_registration'] as const;

/** A group is all or nothing; returns whether it was given. */
function group(params: Record<string, unknown>, names: readonly string[]): boolean {
  const given = names.filter((n) => params[n] !== undefined);
  if (given.length === 0) return false;
  const missing = names.find((n) => params[n] === undefined);
  if (missing) throw errors.missingArgument(missing);
  return true;
}

const base64Field = (name: string, value: string): string => {
  if (!decodeStandardBase64(value)) throw errors.badRequest(`Invalid ${name}`);
  return value;
};

/** A new device of the caller's: its id, for POST /mobile_push/register. */
export const registerClientDevice = userEndpoint(z.object({}), async (ctx) => {
  return { device_id: await ctx.realm.ask('push.registerClientDevice', { userId: ctx.user.id }) };
});

export const registerPushDevice = userEndpoint(
  z.object({
    device_id: p.int({ min: 0 }),
    push_key_id: p.int({ min: 0, max: MAX_PUSH_KEY_ID }).optional(),
    push_key: p.string().optional(),
    token_kind: p.enum(['fcm', 'apns']).optional(),
    token_id: p.string().optional(),
    bouncer_public_key: p.string().optional(),
    encrypted_push_registration: p.string().optional(),
  }),
  async (ctx, params) => {
    if (!ctx.app.config.pushServiceUrl) throw errors.pushServiceNotConfigured();
    const hasKey = group(params, KEY_FIELDS);
    const hasToken = group(params, TOKEN_FIELDS);
    if (!hasKey && !hasToken) throw errors.missingArgument('push_key');
    let key: PushKeyFields | null = null;
    if (hasKey) {
      const pushKey = parsePushKey(params.push_key!);
      if (!pushKey) throw errors.badRequest('Invalid push_key');
      key = { pushKeyId: params.push_key_id!, pushKey };
    }
    let token: TokenFields | null = null;
    if (hasToken) {
      if (!isTokenId(params.token_id!)) throw errors.badRequest('Invalid token_id');
      token = {
        tokenKind: params.token_kind!,
        tokenId: params.token_id!,
        bouncerPublicKey: base64Field('bouncer_public_key', params.bouncer_public_key!),
        encryptedPushRegistration: base64Field('encrypted_push_registration', params.encrypted_push_registration!),
      };
    }
    await ctx.realm.ask('push.registerDevice', { userId: ctx.user.id, deviceId: params.device_id, key, token });
    return {};
  },
);

const MAX_TOKEN_LENGTH = 4096;

function checkToken(token: string): void {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw errors.invalidTokenLength();
}

export const addApnsToken = userEndpoint(z.object({ token: p.string(), appid: p.string() }), async (ctx, params) => {
  checkToken(params.token);
  // APNs device tokens are hexadecimal.
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(params.token)) throw errors.badRequest('Invalid APNS token');
  if (!/^[.a-zA-Z0-9-]+$/.test(params.appid)) throw errors.badRequest('Invalid app ID');
  await ctx.realm.ask('push.addLegacyToken', { userId: ctx.user.id, kind: 'apns', token: params.token, appId: params.appid });
  return {};
});

export const removeApnsToken = userEndpoint(z.object({ token: p.string() }), async (ctx, params) => {
  checkToken(params.token);
  await ctx.realm.ask('push.removeLegacyToken', { userId: ctx.user.id, kind: 'apns', token: params.token });
  return {};
});

export const addFcmToken = userEndpoint(z.object({ token: p.string() }), async (ctx, params) => {
  checkToken(params.token);
  await ctx.realm.ask('push.addLegacyToken', { userId: ctx.user.id, kind: 'fcm', token: params.token });
  return {};
});

export const removeFcmToken = userEndpoint(z.object({ token: p.string() }), async (ctx, params) => {
  checkToken(params.token);
  await ctx.realm.ask('push.removeLegacyToken', { userId: ctx.user.id, kind: 'fcm', token: params.token });
  return {};
});

/** A test notification to the caller's provider tokens: the one given, or all of them. */
export const sendLegacyTestNotification = userEndpoint(z.object({ token: p.string().optional() }), async (ctx, q) => {
  await sendTestNotification(ctx.realm, ctx.user.id, { legacy: true, token: q.token });
  return {};
});

/** A test notification to the caller's encrypted devices: the one given, or all of them. */
export const sendE2eeTestNotification = userEndpoint(z.object({ device_id: p.int({ min: 0 }).optional() }), async (ctx, q) => {
  await sendTestNotification(ctx.realm, ctx.user.id, { legacy: false, deviceId: q.device_id });
  return {};
});
