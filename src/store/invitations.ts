// Invitations: reusable links (kind 'multiuse') and single-address invitations (kind 'email').
// Writes run inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const inviteRow = z.object({
  id: z.number(),
  kind: z.enum(['multiuse', 'email']),
  key: z.string(),
  email: z.string().nullable(),
  referred_by: z.number(),
  invited_as: z.number(),
  include_realm_default_subscriptions: z.boolean(),
  welcome_message_custom_text: z.string().nullable(),
  channel_ids: z.array(z.number()),
  group_ids: z.array(z.number()),
  created_at: z.number(),
  expires_at: z.number().nullable(),
  revoked: z.boolean(),
  used_count: z.number(),
});
export type InviteRow = z.infer<typeof inviteRow>;

const columns = sql.fragment`id, kind, key, email, referred_by, invited_as, include_realm_default_subscriptions,
  welcome_message_custom_text, channel_ids, group_ids, created_at, expires_at, revoked, used_count`;

export interface NewInvite {
  readonly realmId: number;
  readonly key: string;
  readonly referredBy: number;
  readonly invitedAs: number;
  readonly includeRealmDefaultSubscriptions: boolean;
  readonly welcomeMessageCustomText: string | null;
  readonly channelIds: readonly number[];
  readonly groupIds: readonly number[];
  readonly nowMs: number;
  readonly expiresAtMs: number | null;
}

export function insertMultiuseInvite(db: CommonQueryMethods, i: NewInvite): Promise<InviteRow> {
  return db.one(sql.type(inviteRow)`
    INSERT INTO invitations (realm_id, kind, key, referred_by, invited_as, include_realm_default_subscriptions,
      welcome_message_custom_text, channel_ids, group_ids, created_at, expires_at)
    VALUES (${i.realmId}, 'multiuse', ${i.key}, ${i.referredBy}, ${i.invitedAs}, ${i.includeRealmDefaultSubscriptions},
      ${i.welcomeMessageCustomText}, ${sql.array(i.channelIds, 'int4')}, ${sql.array(i.groupIds, 'int4')},
      to_timestamp(${i.nowMs / 1000}), ${i.expiresAtMs === null ? null : sql.fragment`to_timestamp(${i.expiresAtMs / 1000})`})
    RETURNING ${columns}`);
}

/** Invitations still usable at `nowMs` (not revoked, not expired), oldest first. */
export function listActiveInvites(db: CommonQueryMethods, realmId: number, nowMs: number): Promise<readonly InviteRow[]> {
  return db.any(sql.type(inviteRow)`
    SELECT ${columns} FROM invitations
    WHERE realm_id = ${realmId} AND NOT revoked AND (expires_at IS NULL OR expires_at > to_timestamp(${nowMs / 1000}))
    ORDER BY id`);
}

export function findInvite(db: CommonQueryMethods, realmId: number, id: number): Promise<InviteRow | null> {
  return db.maybeOne(sql.type(inviteRow)`SELECT ${columns} FROM invitations WHERE realm_id = ${realmId} AND id = ${id}`);
}

export function findInviteByKey(db: CommonQueryMethods, realmId: number, key: string): Promise<InviteRow | null> {
  return db.maybeOne(sql.type(inviteRow)`SELECT ${columns} FROM invitations WHERE realm_id = ${realmId} AND key = ${key}`);
}

export async function revokeInvite(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE invitations SET revoked = true WHERE id = ${id}`);
}

export async function countInviteUse(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE invitations SET used_count = used_count + 1 WHERE id = ${id}`);
}
