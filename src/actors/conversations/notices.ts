// Automated notices from Notification Bot after moves and resolves: "this topic was moved to …",
// "… has marked this topic as resolved" (undone within a grace period by deleting the notice),
// of new channels created with `announce` and of new members, to users someone else subscribed,
// and of a channel's archival, rename, description, access, retention period and posting
// permission, in the channel itself. Each is an ordinary message sent by the destination
// conversation's owner.
import { renderMarkdown } from '../../domain/markdown/index.js';
import { isMeMessage } from '../../domain/message-rules.js';
import { messageNarrowUrl } from '../../domain/narrow-url.js';
import type { SystemGroupName } from '../../domain/system-groups.js';
import { lastTopicMessage } from '../../store/message-edits.js';
import type { RealmHandle } from '../realm/actor.js';
import { dmKeyOf, type ChannelRecord } from '../realm/channel-index.js';
import { realmMarkdownContext, renderData } from '../realm/markdown-context.js';
import type { RealmState, UserRecord } from '../realm/state.js';
import type { ChannelChange } from '../realm/channels.js';

/** Notices of resolving a topic; one sent shortly before is deleted instead of adding another. */
export const NoticeKind = { resolve: 1 } as const;
export const RESOLVE_UNDO_GRACE_MS = 60_000;

export const silentMention = (u: UserRecord) => `@_**${u.full_name}|${u.id}**`;
const topicLink = (channel: string, topic: string) => `#**${channel}>${topic}**`;

/** A link to a stored message: in its topic for a channel message, by id for a direct one. */
export function messageLink(state: RealmState, m: { readonly id: number; readonly channel_id: number | null; readonly topic: string | null }): string {
  const c = m.channel_id !== null ? state.channels.get(m.channel_id) : undefined;
  return c ? messageNarrowUrl(c.id, c.name, m.topic ?? '', m.id) : `/#narrow/id/${m.id}`;
}

/** The text as a Markdown quote block, fenced longer than any run of backticks in it. */
export function quoteBlock(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}quote\n${text}\n${fence}`;
}

/** "a", "a and b", "a, b and c". */
const listWords = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

type AutomatedOptions = { readFor?: number; kind?: number; idempotencyKey?: string };

/** Notification Bot's message to a channel's topic. */
export async function sendNotice(realm: RealmHandle, channelId: number, topic: string, content: string, o: AutomatedOptions = {}): Promise<number> {
  const botId = await realm.ask('bot.notificationBot', null);
  return sendAutomated(realm, botId, { channelId, topic }, content, o);
}

/** Notification Bot's direct message to one user. */
export async function noticeToUser(realm: RealmHandle, userId: number, content: string, o: AutomatedOptions = {}): Promise<number> {
  const botId = await realm.ask('bot.notificationBot', null);
  return sendAutomated(realm, botId, { dmUserIds: [botId, userId] }, content, o);
}

export type AutomatedTarget = { readonly channelId: number; readonly topic: string } | { readonly dmUserIds: readonly number[] };

/** The conversation owner to ask, and where the send goes. */
function conversationOf(state: RealmState, to: AutomatedTarget) {
  if ('channelId' in to) {
    const isPublic = !state.channels.get(to.channelId)!.invite_only;
    return { key: { kind: 'channel', channelId: to.channelId } as const, where: { channel: { id: to.channelId, topic: to.topic, isPublic } } };
  }
  const dmKey = dmKeyOf(to.dmUserIds);
  return { key: { kind: 'dm', dmKey } as const, where: { dm: { key: dmKey, userIds: to.dmUserIds } } };
}

/** A message from a system bot to a channel topic or a direct conversation, rendered here. */
export async function sendAutomated(
  realm: RealmHandle,
  botId: number,
  to: AutomatedTarget,
  content: string,
  o: AutomatedOptions = {},
): Promise<number> {
  const state = realm.state;
  const bot = state.user(botId)!;
  const data = renderData(realm.state);
  const r = renderMarkdown(content, realmMarkdownContext(state, data, bot));
  const { key, where } = conversationOf(state, to);
  const { id } = await realm.conversations.ask(key, 'send', {
    senderId: botId,
    ...where,
    content,
    rendered: { html: r.html, hasLink: r.hasLink, hasImage: r.hasImage, hasAttachment: r.hasAttachment, uploadPathIds: r.uploadPathIds },
    isMeMessage: isMeMessage(content, r.html),
    mentionedUserIds: [],
    streamWildcard: false,
    topicWildcard: false,
    readBySender: true,
    client: 'Internal',
    linkifiers: data.linkifiers,
    readFor: o.readFor,
    kind: o.kind,
    idempotencyKey: o.idempotencyKey,
  });
  return id;
}

/** After a resolve or unresolve: the notice, or the removal of the one just sent. */
export async function noticeResolve(realm: RealmHandle, editor: UserRecord, channelId: number, topic: string, resolved: boolean): Promise<void> {
  const last = await lastTopicMessage(realm.services.db, channelId, topic);
  if (last && last.kind === NoticeKind.resolve && realm.services.clock.now() - last.date_sent < RESOLVE_UNDO_GRACE_MS) {
    await realm.conversations.ask({ kind: 'channel', channelId }, 'delete', { messageId: last.id });
    return;
  }
  const text = `${silentMention(editor)} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.`;
  await sendNotice(realm, channelId, topic, text, { readFor: editor.id, kind: NoticeKind.resolve });
}

export interface MoveNotice {
  readonly editor: UserRecord;
  readonly fromChannelId: number;
  readonly fromTopic: string;
  readonly toChannelId: number;
  readonly toTopic: string;
  readonly movedIds: readonly number[];
  readonly movedAll: boolean;
  /** The destination had messages (that the editor can see) before the move. */
  readonly destinationHadMessages: boolean;
  readonly toOld: boolean;
  readonly toNew: boolean;
}

export async function noticeMove(realm: RealmHandle, n: MoveNotice): Promise<void> {
  const state = realm.state;
  const from = state.channels.get(n.fromChannelId)!;
  const to = state.channels.get(n.toChannelId)!;
  const who = silentMention(n.editor);
  const count = n.movedIds.length;
  const oldPlace = topicLink(from.name, n.fromTopic);
  const newPlace = topicLink(to.name, n.toTopic);
  if (n.toNew) {
    let text: string;
    if (n.movedAll && !n.destinationHadMessages) text = `This topic was moved here from ${oldPlace} by ${who}.`;
    else if (count === 1) text = `[A message](${messageNarrowUrl(to.id, to.name, n.toTopic, n.movedIds[0]!)}) was moved here from ${oldPlace} by ${who}.`;
    else text = `${count} messages were moved here from ${oldPlace} by ${who}.`;
    await sendNotice(realm, to.id, n.toTopic, text, { readFor: n.editor.id });
  }
  if (n.toOld) {
    let text: string;
    if (n.movedAll) text = `This topic was moved to ${newPlace} by ${who}.`;
    else if (count === 1) text = `A message was moved from this topic to ${newPlace} by ${who}.`;
    else text = `${count} messages were moved from this topic to ${newPlace} by ${who}.`;
    await sendNotice(realm, from.id, n.fromTopic, text, { readFor: n.editor.id });
  }
}

/**
 * Send a notice about something already done: a failure is logged (with `context`), not thrown,
 * since what it tells of stands either way.
 */
async function noticeOrLog(realm: RealmHandle, send: () => Promise<unknown>, failure: string, context: Record<string, unknown>): Promise<void> {
  try {
    await send();
  } catch (err) {
    realm.services.log.warn({ err, ...context }, failure);
  }
}

/** The channel an organization setting names for announcements, unless there is none or it is archived. */
function announcementChannel(state: RealmState, channelId: number): ChannelRecord | null {
  const c = state.channels.get(channelId);
  return c && !c.is_archived ? c : null;
}

/** Where new channels are announced, in the organization's announcements channel. */
export const NEW_CHANNELS_TOPIC = 'new channels';

/**
 * After channels were created with `announce`: Notification Bot names the public ones (a private
 * channel's name is not for everyone) in the organization's new-channel announcements channel,
 * if it has one. Never throws: the channels exist either way.
 */
export async function announceNewChannels(realm: RealmHandle, creator: UserRecord, channelIds: readonly number[]): Promise<void> {
  const state = realm.state;
  const target = announcementChannel(state, state.realm.settings.new_stream_announcements_stream_id);
  const named = channelIds.map((id) => state.channels.get(id)).filter((c) => c !== undefined && !c.invite_only);
  if (!target || named.length === 0) return;
  const text = `${silentMention(creator)} created the channel${named.length === 1 ? '' : 's'} ${listWords(named.map((c) => `#**${c!.name}**`))}.`;
  await noticeOrLog(realm, () => sendNotice(realm, target.id, NEW_CHANNELS_TOPIC, text), 'announcing new channels failed', { channels: channelIds });
}

/** Where new members are announced, in the organization's sign-up announcements channel. */
export const SIGNUPS_TOPIC = 'signups';

/**
 * After a person's account was made (a sign-up, POST /users): Notification Bot names them in the
 * organization's sign-up announcements channel, if it has one. Never throws: the account exists
 * either way.
 */
export async function announceNewMember(realm: RealmHandle, user: UserRecord): Promise<void> {
  const state = realm.state;
  const target = announcementChannel(state, state.realm.settings.signup_announcements_stream_id);
  if (!target) return;
  const text = `${silentMention(user)} joined this organization.`;
  await noticeOrLog(realm, () => sendNotice(realm, target.id, SIGNUPS_TOPIC, text), 'announcing a new member failed', { user: user.id });
}

/** Where Notification Bot tells a channel's subscribers what changed in the channel itself. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

/** Who may reach a channel's messages, in words. */
function accessOf(c: ChannelRecord): string {
  if (c.is_web_public) return 'web-public';
  if (!c.invite_only) return 'public';
  return c.history_public_to_subscribers ? 'private, with shared history' : 'private, with protected history';
}

/** A description as a quote, or the words for none. */
const describe = (description: string) => (description.trim() === '' ? '*No description.*' : quoteBlock(description));

/** A message_retention_days value in words. */
function retentionWords(days: number | null): string {
  if (days === null) return "the organization's period";
  if (days === -1) return 'forever';
  return days === 1 ? '1 day' : `${days} days`;
}

/** The system groups in words, as a setting's value. */
const SYSTEM_GROUP_WORDS: Readonly<Record<SystemGroupName, string>> = {
  'role:internet': 'everyone on the internet',
  'role:everyone': 'everyone, guests included',
  'role:members': 'everyone but guests',
  'role:fullmembers': 'full members',
  'role:moderators': 'moderators',
  'role:administrators': 'administrators',
  'role:owners': 'owners',
  'role:nobody': 'nobody',
};

/** A group in words: a system group by its role, a user group by a silent mention. */
function groupWords(state: RealmState, groupId: number): string {
  const g = state.groups.get(groupId);
  if (!g || g.name === null) return 'a group of users';
  return g.is_system_group ? (SYSTEM_GROUP_WORDS[g.name as SystemGroupName] ?? g.name) : `@_*${g.name}*`;
}

/** A group-setting value (convention 8) in words: its group, or the groups and users it lists. */
export function groupSettingWords(state: RealmState, value: ReturnType<RealmState['groupSettingValue']>): string {
  if (typeof value === 'number') return groupWords(state, value);
  const users = value.direct_members.map((id) => state.user(id)).filter((u) => u !== undefined);
  const parts = [...value.direct_subgroups.map((id) => groupWords(state, id)), ...users.map(silentMention)];
  return parts.length === 0 ? 'nobody' : listWords(parts);
}

/**
 * Notification Bot's messages for what `actor` changed in a channel: archived or unarchived it,
 * its name, description, access, retention period, who may post. Nothing else is told of an
 * archived channel.
 */
export function channelChangeNotices(state: RealmState, actor: UserRecord, { before, after, senders }: ChannelChange): string[] {
  const by = silentMention(actor);
  if (after.is_archived) return before.is_archived ? [] : [`${by} archived this channel.`];
  const out: string[] = [];
  if (before.is_archived) out.push(`${by} unarchived this channel.`);
  if (before.name !== after.name) out.push(`${by} renamed this channel from **${before.name}** to **${after.name}**.`);
  if (before.description !== after.description) {
    out.push(`${by} changed this channel's description.\n\nBefore:\n${describe(before.description)}\n\nNow:\n${describe(after.description)}`);
  }
  if (accessOf(before) !== accessOf(after)) out.push(`${by} made this channel ${accessOf(after)} (it was ${accessOf(before)}).`);
  if (before.message_retention_days !== after.message_retention_days) {
    out.push(`${by} changed how long this channel keeps messages to ${retentionWords(after.message_retention_days)} (it was ${retentionWords(before.message_retention_days)}).`);
  }
  if (senders) {
    out.push(`${by} changed who may post in this channel to ${groupSettingWords(state, senders.after)} (it was ${groupSettingWords(state, senders.before)}).`);
  }
  return out;
}

/**
 * Send channelChangeNotices to the channel's CHANNEL_EVENTS_TOPIC (an archival's into the archived
 * channel, where only Notification Bot still posts); a failure is logged, the change stands.
 */
export async function tellChannelChanges(realm: RealmHandle, actor: UserRecord, change: ChannelChange): Promise<void> {
  const channel = change.after;
  for (const text of channelChangeNotices(realm.state, actor, change)) {
    await noticeOrLog(realm, () => sendNotice(realm, channel.id, CHANNEL_EVENTS_TOPIC, text), 'telling a channel of its change failed', { channel: channel.id });
  }
}

/** The most users a subscription request tells of their new subscriptions (register's max_bulk_new_subscription_messages). */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/**
 * After `actor` subscribed others: Notification Bot tells each (not bots, not the actor) which
 * existing channels they were added to; channels the request created are left out. Nothing when
 * more than MAX_BULK_NEW_SUBSCRIPTION_MESSAGES users would be told. Returns whether it sent them.
 */
export async function tellNewSubscribers(
  realm: RealmHandle,
  actor: UserRecord,
  subscribed: Readonly<Record<string, readonly string[]>>,
  createdIds: readonly number[],
): Promise<boolean> {
  const state = realm.state;
  const created = new Set(createdIds.map((id) => state.channels.get(id)?.name));
  const told: Array<[number, string[]]> = [];
  for (const [key, names] of Object.entries(subscribed)) {
    const u = state.user(Number(key));
    const existing = names.filter((n) => !created.has(n));
    if (u && u.id !== actor.id && !u.is_bot && existing.length > 0) told.push([u.id, existing]);
  }
  if (told.length > MAX_BULK_NEW_SUBSCRIPTION_MESSAGES) return false;
  for (const [userId, names] of told) {
    const links = names.map((n) => `#**${n}**`);
    const text =
      links.length === 1
        ? `${silentMention(actor)} subscribed you to the channel ${links[0]}.`
        : `${silentMention(actor)} subscribed you to these channels:\n${links.map((l) => `* ${l}`).join('\n')}`;
    await noticeOrLog(realm, () => noticeToUser(realm, userId, text), 'telling a user of new subscriptions failed', { user: userId });
  }
  return true;
}
