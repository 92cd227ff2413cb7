// Who may edit and move which messages, and when (PATCH /messages/{id}, rules 1–8): the
// organization's editing settings and time limits, the channels' move and resolve permissions,
// topics policies, and the change_all time-limit error. Checked before the owner runs the edit.
import { createHash } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { errors } from '../../domain/errors.js';
import { isAdmin, isModerator } from '../../domain/roles.js';
import {
  checkTopicAllowed,
  effectiveTopicsPolicy,
  RESOLVED_TOPIC_PREFIX,
  resolveChange,
  truncateTopic,
} from '../../domain/topic-names.js';
import { topicMessageTimes } from '../../store/message-edits.js';
import type { MessageRow } from '../../store/messages.js';
import type { ChannelRecord } from '../realm/channel-index.js';
import { canAdminister, canReadChannel, canReadFullHistory } from '../realm/channel-view.js';
import type { RealmState, UserRecord } from '../realm/state.js';
import { checkCanSendToChannel, checkTopicCreation } from './send-rules.js';

/** Clients may finish an edit this long after the limit they were shown. */
export const EDIT_LIMIT_BUFFER_SECONDS = 20;

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export const sha256Hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

export interface EditParams {
  /** Stripped, display name mapped to the empty topic; undefined when unchanged. */
  readonly topic: string | undefined;
  readonly streamId: number | undefined;
  readonly content: string | undefined;
  readonly propagateMode: PropagateMode;
  readonly prevContentSha256: string | undefined;
}

/** Rules 1, 2 and the request's own consistency (Zulip's "validate payload"). */
export function checkEditPayload(state: RealmState, m: MessageRow, p: EditParams): void {
  if (p.topic === undefined && p.content === undefined && p.streamId === undefined) throw errors.badRequest('Nothing to change');
  if (m.channel_id === null) {
    if (p.streamId !== undefined) throw errors.badRequest('Direct messages cannot be moved to channels.');
    if (p.topic !== undefined) throw errors.badRequest('Direct messages cannot have topics.');
  }
  if (p.propagateMode !== 'change_one' && p.topic === undefined && p.streamId === undefined) {
    throw errors.badRequest('Invalid propagate_mode without topic edit');
  }
  const display = state.realm.settings.empty_topic_display_name;
  if (p.topic === RESOLVED_TOPIC_PREFIX.trim() || p.topic === RESOLVED_TOPIC_PREFIX + display) {
    throw errors.badRequest('General chat cannot be marked as resolved');
  }
  if (p.streamId !== undefined && p.content !== undefined) throw errors.badRequest('Cannot change message content while changing channel');
  if (p.prevContentSha256 !== undefined && p.prevContentSha256 !== sha256Hex(m.content)) throw errors.editConflict();
}

const overLimit = (m: MessageRow, limitSeconds: number, nowMs: number) =>
  nowMs - m.date_sent > (limitSeconds + EDIT_LIMIT_BUFFER_SECONDS) * 1000;

/** Content edits: the organization allows them, the editor sent it, within the time limit. */
export function checkContentEdit(state: RealmState, editor: UserRecord, m: MessageRow, nowMs: number): void {
  const s = state.realm.settings;
  if (!s.allow_message_editing) throw errors.badRequest('Your organization has turned off message editing');
  if (m.sender_id !== editor.id) throw errors.badRequest("You don't have permission to edit this message");
  if (s.message_content_edit_limit_seconds !== null && overLimit(m, s.message_content_edit_limit_seconds, nowMs)) {
    throw errors.badRequest('The time limit for editing this message has passed');
  }
}

/** The channel messages are moved to: readable, not archived. */
export function targetChannel(state: RealmState, editor: UserRecord, streamId: number): ChannelRecord {
  const c = state.channels.get(streamId);
  if (!c || c.is_archived || !canReadChannel(state, editor, c)) throw errors.invalidChannelId();
  return c;
}

function canMoveWithin(state: RealmState, u: UserRecord, c: ChannelRecord): boolean {
  return isAdmin(u.role) || canAdminister(state, u, c) || state.isInGroup(u.id, c.settings.can_move_messages_within_channel_group);
}

function canMoveOut(state: RealmState, u: UserRecord, c: ChannelRecord): boolean {
  return (
    isAdmin(u.role) ||
    state.hasRealmPermission(u.id, 'can_move_messages_between_channels_group') ||
    canAdminister(state, u, c) ||
    state.isInGroup(u.id, c.settings.can_move_messages_out_of_channel_group)
  );
}

function canResolve(state: RealmState, u: UserRecord, from: ChannelRecord, to: ChannelRecord): boolean {
  return (
    state.hasRealmPermission(u.id, 'can_resolve_topics_group') ||
    state.isInGroup(u.id, from.settings.can_resolve_topics_group) ||
    (from.id !== to.id && state.isInGroup(u.id, to.settings.can_resolve_topics_group))
  );
}

function canEditTopic(state: RealmState, u: UserRecord, from: ChannelRecord, to: ChannelRecord): boolean {
  return (
    state.hasRealmPermission(u.id, 'can_move_messages_between_topics_group') ||
    canMoveWithin(state, u, from) ||
    (from.id !== to.id && canMoveWithin(state, u, to))
  );
}

export interface MovePlan {
  readonly from: ChannelRecord;
  readonly to: ChannelRecord;
  readonly fromTopic: string;
  readonly toTopic: string;
  readonly topicChanged: boolean;
  readonly channelChanged: boolean;
  readonly resolve: 'resolved' | 'unresolved' | null;
  /** The editor reads only what they received in the source channel (rule 8). */
  readonly onlyReceivedBy: number | null;
}

/** Rules 3, 4, 6 and 8 for a move (a topic and/or channel change) of a channel message. */
export async function checkMove(
  db: CommonQueryMethods,
  state: RealmState,
  editor: UserRecord,
  m: MessageRow,
  p: EditParams,
  nowMs: number,
): Promise<MovePlan> {
  const s = state.realm.settings;
  const from = state.channels.get(m.channel_id!)!;
  // Holding a message is not enough to rearrange its channel: after leaving a private channel,
  // its messages stay readable to those who received them, but moving needs the channel itself.
  if (!canReadChannel(state, editor, from)) throw errors.badRequest("You don't have permission to move this message");
  const to = p.streamId !== undefined ? targetChannel(state, editor, p.streamId) : from;
  const fromTopic = m.topic ?? '';
  const toTopic = p.topic !== undefined ? truncateTopic(p.topic) : fromTopic;
  const topicChanged = p.topic !== undefined;
  const channelChanged = to.id !== from.id;
  const resolve = topicChanged ? resolveChange(fromTopic, toTopic, p.topic!) : null;
  const policy = effectiveTopicsPolicy(to.topics_policy, s.topics_policy);
  if (toTopic === '' && policy === 'disable_empty_topic') checkTopicAllowed(toTopic, policy, s.empty_topic_display_name);
  if (toTopic !== '' && policy === 'empty_topic_only') checkTopicAllowed(toTopic, policy, s.empty_topic_display_name);

  if (topicChanged) {
    if (resolve) {
      if (!canResolve(state, editor, from, to)) throw errors.badRequest("You don't have permission to resolve topics in this channel.");
    } else {
      if (!canEditTopic(state, editor, from, to)) throw errors.badRequest("You don't have permission to edit this message");
      const limit = s.move_messages_within_stream_limit_seconds;
      if (limit !== null && !isModerator(editor.role) && overLimit(m, limit, nowMs)) {
        throw errors.badRequest("The time limit for editing this message's topic has passed.");
      }
    }
  }
  if (channelChanged) {
    if (!canMoveOut(state, editor, from)) throw errors.badRequest("You don't have permission to move this message");
    checkCanSendToChannel(state, editor, to);
    const limit = s.move_messages_between_streams_limit_seconds;
    if (limit !== null && !isModerator(editor.role) && overLimit(m, limit, nowMs)) {
      throw errors.badRequest("The time limit for editing this message's channel has passed");
    }
  }
  const onlyReceivedBy = canReadFullHistory(state, editor, from) ? null : editor.id;
  if (p.propagateMode === 'change_all' && !isModerator(editor.role) && !resolve) {
    await checkWholeTopicMovable(db, state, m, { topicChanged, channelChanged, onlyReceivedBy }, nowMs);
  }
  if (!resolve) await checkTopicCreation(db, state, editor, to, toTopic);
  return { from, to, fromTopic, toTopic, topicChanged, channelChanged, resolve, onlyReceivedBy };
}

/** Rule 4: moving a whole topic needs every (visible) message of it within the time limit. */
async function checkWholeTopicMovable(
  db: CommonQueryMethods,
  state: RealmState,
  m: MessageRow,
  o: { topicChanged: boolean; channelChanged: boolean; onlyReceivedBy: number | null },
  nowMs: number,
): Promise<void> {
  const s = state.realm.settings;
  const limits: number[] = [];
  if (o.topicChanged && s.move_messages_within_stream_limit_seconds !== null) limits.push(s.move_messages_within_stream_limit_seconds);
  if (o.channelChanged && s.move_messages_between_streams_limit_seconds !== null) limits.push(s.move_messages_between_streams_limit_seconds);
  if (limits.length === 0) return;
  const deadline = nowMs - (Math.min(...limits) + EDIT_LIMIT_BUFFER_SECONDS) * 1000;
  const all = await topicMessageTimes(db, m.channel_id!, m.topic ?? '', o.onlyReceivedBy);
  const allowed = all.filter((x) => x.date_sent > deadline);
  if (allowed.length === all.length) return;
  throw errors.moveTimeLimitExceeded(allowed[0]?.id ?? null, all.length, allowed.length);
}
