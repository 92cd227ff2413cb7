// The API's message object in its canonical form (both raw and rendered content, the avatar
// URL as for clients that do not compute avatars), built from a stored row and cached realm
// state. Events carry it as is; GET /messages shapes it per request (shapeMessage). Also who
// may read a stored message (accessibleMessage).
import { avatarUrl } from '../../domain/avatar.js';
import { recipientIdOf, senderRealmStr } from '../../domain/message-rules.js';
import { topicLinks } from '../../domain/linkifiers.js';
import type { CommonQueryMethods } from 'slonik';
import { rowsOf } from '../../store/message-edits.js';
import { flagsFor, messageById, type MessageRow, type ReactionRow } from '../../store/messages.js';
import { dmKeyUsers } from '../realm/channel-index.js';
import { activeSubscribers, canReadFullHistory } from '../realm/channel-view.js';
import type { RealmHandle } from '../realm/actor.js';
import type { RealmState, UserRecord } from '../realm/state.js';
import { errors } from '../../domain/errors.js';

export type Linkifiers = ReadonlyArray<{ id: number; pattern: string; urlTemplate: string }>;

export function reactionObject(r: Pick<ReactionRow, 'emoji_name' | 'emoji_code' | 'reaction_type' | 'user_id'>): Record<string, unknown> {
  return { emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id };
}

/**
 * Who may hear of activity on a message (reactions, edit typing): the users who have it and, in
 * a channel that shares its history, every active subscriber. In a channel with protected
 * history a subscriber who joined after the message has no row and hears nothing of it.
 */
export async function messageAudience(db: CommonQueryMethods, state: RealmState, row: Pick<MessageRow, 'id' | 'channel_id'>): Promise<Set<number>> {
  const audience = new Set((await rowsOf(db, [row.id])).map((r) => r.user_id));
  const channel = row.channel_id !== null ? state.channels.get(row.channel_id) : undefined;
  if (channel?.history_public_to_subscribers) for (const u of activeSubscribers(state, channel.id)) audience.add(u);
  return audience;
}

/** Participants of a direct message as display_recipient lists them. */
export function dmDisplayRecipient(state: RealmState, dmKey: string): Array<Record<string, unknown>> {
  return dmKeyUsers(dmKey).map((id) => {
    const u = state.user(id);
    return { id, email: u?.email ?? '', full_name: u?.full_name ?? 'Unknown user', is_mirror_dummy: false };
  });
}

export function messageObject(
  state: RealmState,
  row: MessageRow,
  reactions: readonly ReactionRow[],
  linkifiers: Linkifiers,
): Record<string, unknown> {
  const sender = state.user(row.sender_id);
  const isChannel = row.channel_id !== null;
  const channel = isChannel ? state.channels.get(row.channel_id!) : undefined;
  const topic = row.topic ?? '';
  const m: Record<string, unknown> = {
    id: row.id,
    sender_id: row.sender_id,
    sender_email: sender?.email ?? '',
    sender_full_name: sender?.full_name ?? 'Unknown user',
    sender_realm_str: senderRealmStr(state.realm.host),
    avatar_url: sender ? avatarUrl(sender, false) : null,
    _sender_avatar_source: sender?.avatar_source ?? 'G',
    type: isChannel ? 'stream' : 'private',
    display_recipient: isChannel ? (channel?.name ?? '') : dmDisplayRecipient(state, row.dm_key!),
    recipient_id: recipientIdOf(row.channel_id, row.dm_key),
    subject: topic,
    topic_links: isChannel ? topicLinks(topic, linkifiers) : [],
    timestamp: Math.floor(row.date_sent / 1000),
    reactions: reactions.map(reactionObject),
    submessages: [],
    is_me_message: row.is_me_message,
    client: row.client,
    content: row.content,
    rendered_content: row.rendered_content,
  };
  if (isChannel) m.stream_id = row.channel_id;
  if (row.last_edit_time !== null) m.last_edit_timestamp = Math.floor(row.last_edit_time / 1000);
  if (row.last_moved_time !== null) m.last_moved_timestamp = Math.floor(row.last_moved_time / 1000);
  return m;
}

/**
 * A message the viewer may read: one they received, or one in a channel whose whole history
 * they may read. Returns the row and the viewer's flags (null: no row of theirs).
 */
export async function accessibleMessage(realm: RealmHandle, viewer: UserRecord, id: number): Promise<{ row: MessageRow; flags: number | null }> {
  const db = realm.services.db;
  const row = await messageById(db, id);
  if (!row || row.realm_id !== realm.id) throw errors.invalidMessage();
  const flags = (await flagsFor(db, viewer.id, [id])).get(id) ?? null;
  if (flags !== null) return { row, flags };
  const c = row.channel_id !== null ? realm.state.channels.get(row.channel_id) : undefined;
  if (c && canReadFullHistory(realm.state, viewer, c)) return { row, flags: null };
  throw errors.invalidMessage();
}
