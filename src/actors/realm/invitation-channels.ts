// The channel side of invitations, kept apart until the messaging layer owns channels and
// subscriptions: which channels an inviter may name, and subscribing the new account.
// TODO(messaging): replace subscribeInvitedUser with the messaging subscribe command once it
// exists, so that subscription/peer_add events and the welcome message go out; replace the
// access rule with the channel actor's permission check (can_add_subscribers_group per channel).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { errors } from '../../domain/errors.js';
import { holdsRealmPermission } from './group-access.js';
import type { RealmState } from './state.js';

const channelRow = z.object({ id: z.number(), invite_only: z.boolean(), subscribed: z.boolean() });

/**
 * Every channel must exist, be active and be visible to the inviter (public, or subscribed);
 * naming any needs permission to subscribe others. Throws the spec's errors.
 */
export async function checkInvitationChannels(
  db: CommonQueryMethods,
  state: RealmState,
  actorId: number,
  channelIds: readonly number[],
): Promise<void> {
  if (channelIds.length === 0) return;
  const rows = await db.any(sql.type(channelRow)`
    SELECT c.id, c.invite_only,
      EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.user_id = ${actorId} AND s.active) AS subscribed
    FROM channels c
    WHERE c.realm_id = ${state.id} AND NOT c.is_archived AND c.id = ANY(${sql.array(channelIds, 'int4')})`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const id of channelIds) {
    const c = byId.get(id);
    if (!c || (c.invite_only && !c.subscribed)) throw errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`);
  }
  if (!holdsRealmPermission(state, actorId, 'can_add_subscribers_group')) {
    throw errors.badRequest('You do not have permission to subscribe other users to channels.');
  }
}

/** Subscribe a new account to the invitation's channels (and the default channels if asked). */
export async function subscribeInvitedUser(
  tx: CommonQueryMethods,
  realmId: number,
  userId: number,
  channelIds: readonly number[],
  includeDefaults: boolean,
): Promise<readonly number[]> {
  return tx.anyFirst(sql.type(z.object({ channel_id: z.number() }))`
    INSERT INTO subscriptions (user_id, channel_id)
    SELECT ${userId}, c.id FROM channels c
    WHERE c.realm_id = ${realmId} AND NOT c.is_archived
      AND (c.id = ANY(${sql.array(channelIds, 'int4')})
           OR (${includeDefaults} AND c.id IN (SELECT channel_id FROM default_channels WHERE realm_id = ${realmId})))
    ON CONFLICT (user_id, channel_id) DO UPDATE SET active = true
    RETURNING channel_id`);
}
