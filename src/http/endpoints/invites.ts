// Invitations: POST /invites/multiuse (endpoint 10), GET /invites, DELETE /invites/multiuse/{id}.
// Members and administrators only (guests and bots are refused, as by the reference server).
import { z } from 'zod';
import { inviteLink, mayManageInvite } from '../../actors/realm/invitations.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import { isGuest, isRole, Role } from '../../domain/roles.js';
import { listActiveInvites } from '../../store/invitations.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';

export const MAX_WELCOME_MESSAGE_LENGTH = 8000;

function checkInviteCaller(user: UserRecord): void {
  if (isGuest(user.role)) throw errors.notAllowedForGuests();
  if (user.is_bot) throw errors.notAllowedForBots();
}

export const createMultiuseInvite = userEndpoint(
  z.object({
    // No limit in the spec; this one (about 4,000 years) keeps the expiry a valid date.
    invite_expires_in_minutes: p.json(z.number().int().min(1).max(2_147_483_647).nullable()).optional(),
    invite_as: p.int().default(String(Role.member)),
    stream_ids: p.intList().default('[]'),
    group_ids: p.intList().default('[]'),
    include_realm_default_subscriptions: p.bool().default('false'),
    // Text is sent as is; the JSON literal null asks for the organization's default.
    welcome_message_custom_text: p
      .string({ max: MAX_WELCOME_MESSAGE_LENGTH })
      .transform((v) => (v === 'null' ? null : v))
      .optional(),
  }),
  async (ctx, params) => {
    checkInviteCaller(ctx.user);
    if (!isRole(params.invite_as)) throw errors.badRequest('Invalid invite_as');
    const { link } = await ctx.realm.ask('invite.createMultiuse', {
      actorId: ctx.user.id,
      inviteAs: params.invite_as,
      channelIds: params.stream_ids,
      groupIds: params.group_ids,
      includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
      expiresInMinutes:
        params.invite_expires_in_minutes === undefined ? ctx.app.config.invitations.linkValidityMinutes : params.invite_expires_in_minutes,
      welcomeMessageCustomText: params.welcome_message_custom_text ?? null,
    });
    return { invite_link: link };
  },
);

export const getInvites = userEndpoint(z.object({}), async (ctx) => {
  checkInviteCaller(ctx.user);
  const rows = await listActiveInvites(ctx.app.db, ctx.realm.id, ctx.app.clock.now());
  const url = ctx.realm.state.realm.url;
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    invites: rows
      .filter((r) => mayManageInvite(ctx.user, r))
      .map((r) => ({
        id: r.id,
        invited_by_user_id: r.referred_by,
        invited: seconds(r.created_at),
        expiry_date: r.expires_at === null ? null : seconds(r.expires_at),
        invited_as: r.invited_as,
        is_multiuse: r.kind === 'multiuse',
        notify_referrer_on_join: false,
        ...(r.kind === 'multiuse' ? { link_url: inviteLink(url, r.key) } : { email: r.email }),
      })),
  };
});

export const revokeMultiuseInvite = userEndpoint(z.object({ invite_id: p.id() }), async (ctx, params) => {
  checkInviteCaller(ctx.user);
  await ctx.realm.ask('invite.revokeMultiuse', { actorId: ctx.user.id, inviteId: params.invite_id });
  return {};
});
