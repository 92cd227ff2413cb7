// Presence: POST /users/me/presence (endpoint 3; the last_update_id protocol), GET
// /users/{user_id_or_email}/presence and GET /realm/presence. Served from the presence actor's
// memory: no database round trip per request.
import { z } from 'zod';
import type { RealmHandle } from '../../actors/realm/actor.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import { legacyPresence, OFFLINE_THRESHOLD_MS } from '../../domain/presence.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';

export const DEFAULT_PRESENCE_HISTORY_DAYS = 14;

export const updatePresence = userEndpoint(
  z.object({
    status: p.string(),
    last_update_id: p.int().optional(),
    history_limit_days: p.int({ min: 0 }).optional(),
    new_user_input: p.bool().default('false'),
    ping_only: p.bool().default('false'),
    slim_presence: p.bool().default('false'),
  }),
  async (ctx, params) => {
    const { realm, user } = ctx;
    const status = params.status;
    if (status !== 'active' && status !== 'idle') throw errors.badRequest(`Invalid status: ${status}`);
    // new_user_input feeds usage statistics, which Parley does not keep.
    await realm.presence.report(user.id, status);
    const since = params.last_update_id ?? null;
    if (params.ping_only) return { presence_last_update_id: since ?? -1 };
    const q = {
      viewerId: user.id,
      sinceUpdateId: since,
      // A client that already holds data (an id above 0) asks by id alone.
      historyDays: since !== null && since > 0 ? null : (params.history_limit_days ?? DEFAULT_PRESENCE_HISTORY_DAYS),
    };
    // Modern entries (keyed by user id) go into the body as JSON made once per change.
    const answer = since !== null || params.slim_presence ? realm.presence.queryJson(q) : realm.presence.query({ ...q, format: 'legacy' });
    return {
      presences: answer.presences,
      server_timestamp: realm.services.clock.now() / 1000,
      presence_last_update_id: answer.lastUpdateId,
    };
  },
);

export const getRealmPresence = userEndpoint(z.object({}), async (ctx) => {
  await ctx.realm.presence.ready();
  const answer = ctx.realm.presence.query({
    viewerId: ctx.user.id,
    format: 'legacy',
    sinceUpdateId: null,
    historyDays: DEFAULT_PRESENCE_HISTORY_DAYS,
  });
  return { presences: answer.presences, server_timestamp: ctx.realm.services.clock.now() / 1000 };
});

function userByIdOrEmail(realm: RealmHandle, key: string): UserRecord | undefined {
  return /^\d+$/.test(key) ? realm.state.user(Number(key)) : realm.state.userByEmail(key);
}

export const getUserPresence = userEndpoint(z.object({ user_id_or_email: p.string() }), async (ctx, params) => {
  const { realm } = ctx;
  const target = userByIdOrEmail(realm, params.user_id_or_email);
  if (!target) throw errors.noSuchUser();
  if (target.is_bot) throw errors.badRequest('Presence is not supported for bot users.');
  if (realm.services.config.presence.limitToAccessibleUsers && !realm.state.canAccessUser(ctx.user.id, target.id)) {
    throw errors.insufficientPermission();
  }
  await realm.presence.ready();
  const record = realm.state.realm.settings.presence_disabled ? undefined : realm.presence.recordOf(target.id);
  if (!record) throw errors.badRequest(`No presence data for ${params.user_id_or_email}`);
  const { website, aggregated } = legacyPresence(record, target.date_joined);
  const now = realm.services.clock.now();
  const offline = now - aggregated.timestamp * 1000 > OFFLINE_THRESHOLD_MS;
  return {
    presence: {
      website: { status: website.status, timestamp: website.timestamp },
      aggregated: { status: offline ? 'offline' : aggregated.status, timestamp: aggregated.timestamp },
    },
  };
});
