// Channel rules: names, permission group settings and their defaults, and who may see a
// channel's metadata (that it exists, its name, its subscribers) or its content (messages).
// Pure: callers supply group membership through `GroupLookup`.
import { errors } from './errors.js';
import { isAdmin, isGuest } from './roles.js';
import { SystemGroup, type SystemGroupName } from './system-groups.js';

export const MAX_CHANNEL_NAME_LENGTH = 60;
export const MAX_CHANNEL_DESCRIPTION_LENGTH = 1024;

/** The channel's own group settings (convention 8), in the order clients list them. */
export const CHANNEL_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
  'can_create_topic_group',
] as const;
export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

/** `creator` stands for an anonymous group holding just the channel's creator. */
export const CHANNEL_GROUP_DEFAULTS: Readonly<Record<ChannelGroupSetting, SystemGroupName | 'creator'>> = {
  can_add_subscribers_group: SystemGroup.nobody,
  can_remove_subscribers_group: SystemGroup.administrators,
  can_administer_channel_group: 'creator',
  can_delete_any_message_group: SystemGroup.nobody,
  can_delete_own_message_group: SystemGroup.nobody,
  can_move_messages_out_of_channel_group: SystemGroup.nobody,
  can_move_messages_within_channel_group: SystemGroup.nobody,
  can_send_message_group: SystemGroup.everyone,
  can_subscribe_group: SystemGroup.nobody,
  can_resolve_topics_group: SystemGroup.nobody,
  can_create_topic_group: SystemGroup.everyone,
};

/**
 * Settings that never include guests (they grant access to the channel itself), so they may not
 * be set to role:everyone or role:internet.
 */
export const NON_GUEST_SETTINGS: ReadonlySet<ChannelGroupSetting> = new Set([
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
]);

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];

/** What the rules read of a channel. */
export interface ChannelFacts {
  readonly invite_only: boolean;
  readonly is_web_public: boolean;
  readonly history_public_to_subscribers: boolean;
  readonly is_archived: boolean;
  readonly settings: Readonly<Record<ChannelGroupSetting, number>>;
}

export interface GroupLookup {
  /** Active user in the group, directly or through subgroups. */
  isInGroup(userId: number, groupId: number): boolean;
}

export interface ChannelViewer {
  readonly id: number;
  readonly role: number;
  readonly subscribed: boolean;
}

const inSetting = (g: GroupLookup, c: ChannelFacts, v: ChannelViewer, s: ChannelGroupSetting) =>
  g.isInGroup(v.id, c.settings[s]);

/** Users in these groups may subscribe themselves (or others), so they may read the channel. */
function grantsContentViaGroups(g: GroupLookup, c: ChannelFacts, v: ChannelViewer): boolean {
  return !isGuest(v.role) && (inSetting(g, c, v, 'can_subscribe_group') || inSetting(g, c, v, 'can_add_subscribers_group'));
}

/** May the viewer know the channel exists, see its settings and its subscribers? */
export function hasMetadataAccess(g: GroupLookup, c: ChannelFacts, v: ChannelViewer): boolean {
  if (c.is_web_public || v.subscribed) return true;
  if (isGuest(v.role)) return false;
  if (!c.invite_only || isAdmin(v.role)) return true;
  return inSetting(g, c, v, 'can_administer_channel_group') || grantsContentViaGroups(g, c, v);
}

/** May the viewer read the channel's messages (all of them, or for protected history, theirs)? */
export function hasContentAccess(g: GroupLookup, c: ChannelFacts, v: ChannelViewer): boolean {
  if (c.is_web_public || v.subscribed) return true;
  if (isGuest(v.role)) return false;
  if (!c.invite_only) return true;
  return grantsContentViaGroups(g, c, v);
}

/**
 * May the viewer read messages sent before they subscribed? Otherwise only the messages they
 * received (their user_messages rows) are readable.
 */
export function canAccessFullHistory(g: GroupLookup, c: ChannelFacts, v: ChannelViewer): boolean {
  if (c.is_web_public) return true;
  if (!c.invite_only && !isGuest(v.role)) return true;
  return c.history_public_to_subscribers && hasContentAccess(g, c, v);
}

/** Administer the channel (rename, settings, archive). Call after checking metadata access. */
export function canAdministerChannel(g: GroupLookup, c: ChannelFacts, v: ChannelViewer): boolean {
  return isAdmin(v.role) || (!isGuest(v.role) && inSetting(g, c, v, 'can_administer_channel_group'));
}

/** Whether the viewer may post, by can_send_message_group (a bot also by its owner's rights). */
export function inSendGroup(g: GroupLookup, c: ChannelFacts, userId: number): boolean {
  return g.isInGroup(userId, c.settings.can_send_message_group);
}

/** The deprecated stream_post_policy derived from can_send_message_group. */
export function streamPostPolicy(sendGroupName: string | null): number {
  switch (sendGroupName) {
    case SystemGroup.administrators:
      return 2;
    case SystemGroup.fullMembers:
      return 3;
    case SystemGroup.moderators:
      return 4;
    default:
      return 1;
  }
}

const CONTROL_OR_NONCHARACTER = /[\p{Cc}\p{Cs}\uFDD0-\uFDEF\uFFFE\uFFFF]|[\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

/** Position (1-based, in code points) of the first unprintable character, or null. */
export function firstUnprintable(s: string): number | null {
  let i = 0;
  for (const ch of s) {
    i++;
    if (CONTROL_OR_NONCHARACTER.test(ch)) return i;
  }
  return null;
}

/** A channel name as stored: trimmed, non-empty, bounded, printable. Throws a 400. */
export function checkChannelName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw errors.badRequest("Channel name can't be empty.");
  if ([...name].length > MAX_CHANNEL_NAME_LENGTH) {
    throw errors.badRequest(`Channel name too long (limit: ${MAX_CHANNEL_NAME_LENGTH} characters).`);
  }
  const bad = firstUnprintable(name);
  if (bad !== null) throw errors.badRequest(`Invalid character in channel name, at position ${bad}.`);
  return name;
}

export function checkChannelDescription(raw: string): string {
  const d = raw.replace(/\r\n?/g, '\n').trim();
  if ([...d].length > MAX_CHANNEL_DESCRIPTION_LENGTH) {
    throw errors.badRequest(`description is too long (limit: ${MAX_CHANNEL_DESCRIPTION_LENGTH} characters)`);
  }
  return d;
}

/** history_public_to_subscribers as stored: public channels always share history. */
export function effectiveHistoryPublic(inviteOnly: boolean, requested: boolean | undefined): boolean {
  if (!inviteOnly) return true;
  return requested ?? false;
}
