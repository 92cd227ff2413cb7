// Who may send what where: resolving a send's recipients and checking the sender's rights, the
// topic and the mentions, against cached realm state (and the store for topic existence and
// participants). Called by handlers before asking the owner to store the message.
import type { CommonQueryMethods } from 'slonik';
import { checkTopicAllowed, effectiveTopicsPolicy } from '../../domain/topic-names.js';
import { errors } from '../../domain/errors.js';
import { WILDCARD_MENTION_THRESHOLD } from '../../domain/message-rules.js';
import { isGuest } from '../../domain/roles.js';
import { SystemGroup } from '../../domain/system-groups.js';
import type { RenderResult } from '../../domain/markdown/index.js';
import { dmConversationExists, topicExists, topicParticipants } from '../../store/messages.js';
import { dmKeyOf, type ChannelRecord } from '../realm/channel-index.js';
import { activeSubscriberCount, canReadChannel, canSeeChannel } from '../realm/channel-view.js';
import { activeMembers } from '../realm/group-access.js';
import type { RealmState, UserRecord } from '../realm/state.js';

/** `to` of a channel message: an id, a name, or either JSON-encoded (possibly in a list of one). */
export function parseChannelTo(raw: string): { id: number } | { name: string } {
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    // a plain name
  }
  if (Array.isArray(v) && v.length === 1) v = v[0];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return { id: v };
  if (typeof v === 'string') return /^\d{1,9}$/.test(v) ? { id: Number(v) } : { name: v };
  return { name: raw };
}

/** `to` of a direct message: JSON list of ids or emails, or emails separated by commas. */
export function parseDmTo(raw: string): Array<number | string> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }
  if (typeof v === 'number' || typeof v === 'string') v = [v];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isSafeInteger(x)))) {
    throw errors.badRequest('Invalid user ID(s)');
  }
  return v as Array<number | string>;
}

/** The channel a message is addressed to; unknown and invisible channels look the same. */
export function resolveChannel(state: RealmState, sender: UserRecord, to: { id: number } | { name: string }): ChannelRecord {
  const c = 'id' in to ? state.channels.get(to.id) : state.channels.byName(to.name);
  const owner = sender.is_bot && sender.bot_owner_id !== null ? state.user(sender.bot_owner_id) : undefined;
  // A bot may also post where its owner is subscribed. What its owner merely may see (an
  // administrator sees every private channel) stays hidden: the refusal would name the channel.
  if (c && (canSeeChannel(state, sender, c) || (owner && state.channels.isSubscribed(owner.id, c.id)))) return c;
  throw 'id' in to ? errors.channelIdDoesNotExist(to.id) : errors.channelDoesNotExist(to.name.trim());
}

function inSendGroup(state: RealmState, u: UserRecord, c: ChannelRecord): boolean {
  return state.isInGroup(u.id, c.settings.can_send_message_group);
}

/** Throws unless the sender may post in the channel (a bot also through its owner). */
export function checkCanSendToChannel(state: RealmState, sender: UserRecord, c: ChannelRecord): void {
  const owner = sender.is_bot && sender.bot_owner_id !== null ? state.user(sender.bot_owner_id) : undefined;
  if (!inSendGroup(state, sender, c) && !(owner && inSendGroup(state, owner, c))) throw errors.noPostPermission();
  if (c.is_archived) throw errors.notAuthorizedToSend(c.name);
  if (c.is_web_public) return;
  if (!c.invite_only && !isGuest(sender.role)) return;
  if (state.channels.isSubscribed(sender.id, c.id)) return;
  if (owner && state.channels.isSubscribed(owner.id, c.id)) return;
  if (c.history_public_to_subscribers && canReadChannel(state, sender, c)) return;
  throw errors.notAuthorizedToSend(c.name);
}

/** The topics policy of the channel allows this (already normalised) topic. */
export function checkTopicForChannel(state: RealmState, c: ChannelRecord, topic: string): void {
  const policy = effectiveTopicsPolicy(c.topics_policy, state.realm.settings.topics_policy);
  checkTopicAllowed(topic, policy, state.realm.settings.empty_topic_display_name);
}

/** A new topic needs can_create_topic_group (a bot's owner's right counts). */
export async function checkTopicCreation(db: CommonQueryMethods, state: RealmState, sender: UserRecord, c: ChannelRecord, topic: string): Promise<void> {
  const group = c.settings.can_create_topic_group;
  if (group === state.systemGroupId(SystemGroup.everyone)) return;
  if (await topicExists(db, c.id, topic)) return;
  const owner = sender.is_bot && sender.bot_owner_id !== null ? state.user(sender.bot_owner_id) : undefined;
  if (state.isInGroup(sender.id, group) || (owner && state.isInGroup(owner.id, group))) return;
  throw errors.noNewTopicPermission();
}

/** The participants of a direct message, the sender included, as active users. */
export function resolveDmRecipients(state: RealmState, sender: UserRecord, to: ReadonlyArray<number | string>): UserRecord[] {
  if (to.length === 0) throw errors.badRequest('Message must have recipients');
  const users = new Map<number, UserRecord>([[sender.id, sender]]);
  for (const t of to) {
    const u = typeof t === 'number' ? state.user(t) : (state.userByEmail(t) ?? state.userByDeliveryEmail(t));
    const visible = u !== undefined && state.canAccessUser(sender.id, u.id);
    if (!visible) throw typeof t === 'number' ? errors.invalidUserId(t) : errors.invalidEmail(t);
    if (!u.is_active && !u.is_bot) throw errors.badRequest(`'${u.email}' is no longer using this organization.`);
    users.set(u.id, u);
  }
  return [...users.values()];
}

export function dmKeyFor(users: readonly UserRecord[]): string {
  return dmKeyOf(users.map((u) => u.id));
}

/** direct_message_permission_group and direct_message_initiator_group. */
export async function checkDmPermission(db: CommonQueryMethods, state: RealmState, sender: UserRecord, users: readonly UserRecord[], key: string): Promise<void> {
  const others = users.filter((u) => u.id !== sender.id);
  if (others.length === 0) return; // notes to self are always allowed
  const permission = state.realm.settings.groups.direct_message_permission_group;
  if (permission !== undefined && !users.some((u) => !u.is_bot && state.isInGroup(u.id, permission))) {
    throw errors.badRequest('This conversation does not include any users who can authorize it.');
  }
  const initiator = state.realm.settings.groups.direct_message_initiator_group;
  if (initiator !== undefined && !state.isInGroup(sender.id, initiator) && !(await dmConversationExists(db, state.id, key))) {
    throw errors.badRequest('You do not have permission to initiate direct message conversations.');
  }
}

/**
 * Mention checks (wildcards in busy channels and topics need can_mention_many_users_group;
 * group mentions need the group's can_mention_group) and the users mentioned, groups expanded.
 */
export async function checkMentions(
  db: CommonQueryMethods,
  state: RealmState,
  sender: UserRecord,
  r: RenderResult,
  where: { channel: ChannelRecord; topic: string } | null,
): Promise<number[]> {
  const mayMentionMany = state.hasRealmPermission(sender.id, 'can_mention_many_users_group');
  if (where && r.streamWildcard && !mayMentionMany && activeSubscriberCount(state, where.channel.id) > WILDCARD_MENTION_THRESHOLD) {
    throw errors.streamWildcardNotAllowed();
  }
  if (where && r.topicWildcard && !mayMentionMany && (await topicParticipants(db, where.channel.id, where.topic)).length > WILDCARD_MENTION_THRESHOLD) {
    throw errors.topicWildcardNotAllowed();
  }
  const mentioned = new Set(r.mentionedUserIds);
  for (const groupId of r.mentionedGroupIds) {
    const g = state.groups.get(groupId);
    if (!g) continue;
    const allowed = g.settings.can_mention_group;
    if (allowed !== undefined && !state.isInGroup(sender.id, allowed)) {
      throw errors.badRequest(`You are not allowed to mention user group '${g.name}'.`);
    }
    // The group's members, not every user asked about the group: 6-13 ms a mention at 100,000 users.
    for (const id of activeMembers(state, groupId)) mentioned.add(id);
  }
  return [...mentioned];
}

/** The client name a message records: the product of the User-Agent, or "API". */
export function clientName(userAgent: string | undefined): string {
  const product = /^([A-Za-z][A-Za-z0-9_.-]{0,29})\//.exec(userAgent ?? '');
  return product ? product[1]! : 'API';
}

/** Interactive clients mark their own messages read; API clients (scripts, bots) do not. */
export function defaultReadBySender(client: string): boolean {
  return !['API', 'curl', 'python-requests', 'ZulipPython', 'node-fetch', 'axios'].includes(client);
}
