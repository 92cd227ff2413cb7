// Channels, default channels and subscriptions. Writes run inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const channelRow = z.object({
  id: z.number(),
  realm_id: z.number(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  date_created: z.number(),
  creator_id: z.number().nullable(),
  invite_only: z.boolean(),
  is_web_public: z.boolean(),
  history_public_to_subscribers: z.boolean(),
  message_retention_days: z.number().nullable(),
  topics_policy: z.enum(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']),
  folder_id: z.number().nullable(),
  is_archived: z.boolean(),
  first_message_id: z.number().nullable(),
  settings: z.unknown(),
});
export type ChannelRow = z.infer<typeof channelRow>;

const columns = sql.fragment`id, realm_id, name, description, rendered_description, date_created, creator_id,
  invite_only, is_web_public, history_public_to_subscribers, message_retention_days, topics_policy, folder_id,
  is_archived, first_message_id, settings`;

export function listChannels(db: CommonQueryMethods, realmId: number): Promise<readonly ChannelRow[]> {
  return db.any(sql.type(channelRow)`SELECT ${columns} FROM channels WHERE realm_id = ${realmId} ORDER BY id`);
}

export interface NewChannel {
  readonly realmId: number;
  readonly name: string;
  readonly description: string;
  readonly renderedDescription: string;
  readonly creatorId: number | null;
  readonly inviteOnly: boolean;
  readonly isWebPublic: boolean;
  readonly historyPublicToSubscribers: boolean;
  readonly messageRetentionDays: number | null;
  readonly topicsPolicy: ChannelRow['topics_policy'];
  readonly folderId: number | null;
  readonly settings: Readonly<Record<string, number>>;
  readonly nowMs: number;
}

export function insertChannel(db: CommonQueryMethods, c: NewChannel): Promise<ChannelRow> {
  return db.one(sql.type(channelRow)`
    INSERT INTO channels (realm_id, name, description, rendered_description, date_created, creator_id, invite_only,
                          is_web_public, history_public_to_subscribers, message_retention_days, topics_policy,
                          folder_id, settings)
    VALUES (${c.realmId}, ${c.name}, ${c.description}, ${c.renderedDescription}, to_timestamp(${c.nowMs / 1000}),
            ${c.creatorId}, ${c.inviteOnly}, ${c.isWebPublic}, ${c.historyPublicToSubscribers},
            ${c.messageRetentionDays}, ${c.topicsPolicy}, ${c.folderId}, ${sql.jsonb(c.settings as never)})
    RETURNING ${columns}`);
}

/** The columns a channel update may set. */
export interface ChannelPatch {
  name?: string;
  description?: string;
  rendered_description?: string;
  invite_only?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: number | null;
  topics_policy?: ChannelRow['topics_policy'];
  folder_id?: number | null;
  is_archived?: boolean;
  settings?: Readonly<Record<string, number>>;
}

const PATCHABLE: ReadonlyArray<keyof ChannelPatch> = [
  'name',
  'description',
  'rendered_description',
  'invite_only',
  'is_web_public',
  'history_public_to_subscribers',
  'message_retention_days',
  'topics_policy',
  'folder_id',
  'is_archived',
  'settings',
];

export async function updateChannel(db: CommonQueryMethods, id: number, patch: ChannelPatch): Promise<void> {
  const sets = PATCHABLE.filter((k) => patch[k] !== undefined).map((k) => {
    const v = patch[k];
    const value = k === 'settings' ? sql.jsonb(v as never) : (v as string | number | boolean | null);
    return sql.fragment`${sql.identifier([k])} = ${value}`;
  });
  if (sets.length === 0) return;
  await db.query(sql.unsafe`UPDATE channels SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

export function channelNameTaken(db: CommonQueryMethods, realmId: number, name: string, exceptId = 0): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM channels WHERE realm_id = ${realmId} AND lower(name) = lower(${name}) AND id <> ${exceptId}`);
}

/** Record the first message of a channel that had none (sends); whether it had none. */
export async function setFirstMessageIfUnset(db: CommonQueryMethods, channelId: number, messageId: number): Promise<boolean> {
  const r = await db.query(sql.unsafe`
    UPDATE channels SET first_message_id = ${messageId} WHERE id = ${channelId} AND first_message_id IS NULL`);
  return r.rowCount > 0;
}

/** Recompute first_message_id (after deletes and moves); returns the new value. */
export function refreshFirstMessage(db: CommonQueryMethods, channelId: number): Promise<number | null> {
  return db.oneFirst(sql.type(z.object({ first_message_id: z.number().nullable() }))`
    UPDATE channels SET first_message_id = (SELECT min(id) FROM messages WHERE channel_id = ${channelId})
    WHERE id = ${channelId} RETURNING first_message_id`);
}

export function channelHasNamedTopics(db: CommonQueryMethods, channelId: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM messages WHERE channel_id = ${channelId} AND topic <> ''`);
}

export function folderExists(db: CommonQueryMethods, realmId: number, folderId: number): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM channel_folders WHERE id = ${folderId} AND realm_id = ${realmId} AND NOT is_archived`);
}

// Default channels

export function listDefaultChannels(db: CommonQueryMethods, realmId: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ channel_id: z.number() }))`
    SELECT channel_id FROM default_channels WHERE realm_id = ${realmId} ORDER BY channel_id`);
}

export async function addDefaultChannel(db: CommonQueryMethods, realmId: number, channelId: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO default_channels (realm_id, channel_id) VALUES (${realmId}, ${channelId}) ON CONFLICT DO NOTHING`);
}

export async function removeDefaultChannel(db: CommonQueryMethods, realmId: number, channelId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM default_channels WHERE realm_id = ${realmId} AND channel_id = ${channelId}`);
}

// Subscriptions

const pairRow = z.object({ channel_id: z.number(), user_id: z.number() });

/** Every active subscription of the realm (the cached subscriber sets). */
export function listActiveSubscriptions(db: CommonQueryMethods, realmId: number): Promise<readonly z.infer<typeof pairRow>[]> {
  return db.any(sql.type(pairRow)`
    SELECT s.channel_id, s.user_id FROM subscriptions s JOIN channels c ON c.id = s.channel_id
    WHERE c.realm_id = ${realmId} AND s.active`);
}

export const subscriptionRow = z.object({
  channel_id: z.number(),
  active: z.boolean(),
  is_muted: z.boolean(),
  pin_to_top: z.boolean(),
  color: z.string(),
  desktop_notifications: z.boolean().nullable(),
  email_notifications: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  audible_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
});
export type SubscriptionRow = z.infer<typeof subscriptionRow>;

const subColumns = sql.fragment`channel_id, active, is_muted, pin_to_top, color, desktop_notifications,
  email_notifications, push_notifications, audible_notifications, wildcard_mentions_notify`;

/** A user's subscription rows, active and former. */
export function userSubscriptions(db: CommonQueryMethods, userId: number): Promise<readonly SubscriptionRow[]> {
  return db.any(sql.type(subscriptionRow)`SELECT ${subColumns} FROM subscriptions WHERE user_id = ${userId}`);
}

export function subscriptionsFor(
  db: CommonQueryMethods,
  channelId: number,
  userIds: readonly number[],
): Promise<readonly (SubscriptionRow & { user_id: number })[]> {
  return db.any(sql.type(subscriptionRow.extend({ user_id: z.number() }))`
    SELECT user_id, ${subColumns} FROM subscriptions
    WHERE channel_id = ${channelId} AND user_id = ANY(${sql.array(userIds, 'int4')})`);
}

/**
 * Subscribe users (new rows get their colour; former subscribers keep their settings). Returns
 * the users whose subscription became active.
 */
export async function activateSubscriptions(
  db: CommonQueryMethods,
  channelId: number,
  users: ReadonlyArray<{ readonly userId: number; readonly color: string }>,
): Promise<number[]> {
  if (users.length === 0) return [];
  const ids = users.map((u) => u.userId);
  const colors = users.map((u) => u.color);
  const rows = await db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    INSERT INTO subscriptions (user_id, channel_id, color)
    SELECT u, ${channelId}, c FROM unnest(${sql.array(ids, 'int4')}::int[], ${sql.array(colors, 'text')}::text[]) AS t(u, c)
    ON CONFLICT (user_id, channel_id) DO UPDATE SET active = true, date_subscribed = now()
      WHERE NOT subscriptions.active
    RETURNING user_id`);
  return [...rows];
}

/** Returns the users whose subscription was active. */
export async function deactivateSubscriptions(db: CommonQueryMethods, channelId: number, userIds: readonly number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    UPDATE subscriptions SET active = false
    WHERE channel_id = ${channelId} AND user_id = ANY(${sql.array(userIds, 'int4')}) AND active
    RETURNING user_id`);
  return [...rows];
}

export type SubscriptionColumn =
  | 'is_muted'
  | 'pin_to_top'
  | 'color'
  | 'desktop_notifications'
  | 'email_notifications'
  | 'push_notifications'
  | 'audible_notifications'
  | 'wildcard_mentions_notify';

export async function setSubscriptionProperty(
  db: CommonQueryMethods,
  userId: number,
  channelId: number,
  column: SubscriptionColumn,
  value: string | boolean | null,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE subscriptions SET ${sql.identifier([column])} = ${value} WHERE user_id = ${userId} AND channel_id = ${channelId}`);
}

/** Colours a user already uses (to pick a fresh one for a new subscription). */
export function usedColors(db: CommonQueryMethods, userIds: readonly number[]): Promise<readonly { user_id: number; color: string }[]> {
  return db.any(sql.type(z.object({ user_id: z.number(), color: z.string() }))`
    SELECT user_id, color FROM subscriptions WHERE user_id = ANY(${sql.array(userIds, 'int4')})`);
}

/** Users active in the last `days` days among these (partial subscriber lists). */
export function recentlyActive(db: CommonQueryMethods, userIds: readonly number[], sinceMs: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    SELECT user_id FROM user_presence
    WHERE user_id = ANY(${sql.array(userIds, 'int4')}) AND last_active_time >= to_timestamp(${sinceMs / 1000})`);
}

/** Does the organization have a web-public channel that is not archived? */
export function hasWebPublicChannel(db: CommonQueryMethods, realmId: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM channels WHERE realm_id = ${realmId} AND is_web_public AND NOT is_archived`);
}
