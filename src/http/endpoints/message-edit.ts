// Changing messages: PATCH /messages/{id} (endpoint 1: content, topic, channel, resolve),
// DELETE /messages/{id}, GET /messages/{id}/history (endpoint 11).
import { z } from 'zod';
import {
  checkContentEdit,
  checkEditPayload,
  checkMove,
  type EditParams,
  type MovePlan,
} from '../../actors/conversations/edit-rules.js';
import { noticeMove, noticeResolve } from '../../actors/conversations/notices.js';
import { checkMentions } from '../../actors/conversations/send-rules.js';
import { conversationKeyOf } from '../../actors/conversations/conversations.js';
import { renderData } from '../../actors/realm/markdown-context.js';
import { canReadFullHistory } from '../../actors/realm/channel-view.js';
import { errors } from '../../domain/errors.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { htmlDiff } from '../../domain/html-diff.js';
import { isMeMessage, normalizeEditedContent } from '../../domain/message-rules.js';
import { firstUnprintable } from '../../domain/channels.js';
import { NO_TOPIC_LEGACY } from '../../domain/topic-names.js';
import { editsOf, topicMessageTimes } from '../../store/message-edits.js';
import type { MessageRow } from '../../store/messages.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';
import { accessibleMessage } from '../../actors/conversations/message-view.js';
import { renderFor } from './messages.js';

/** The topic parameter as a change: stripped, the empty topic's names mapped; unchanged = undefined. */
function topicChange(ctx: UserContext, m: MessageRow, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const t = topicFromClient(raw.trim(), ctx.realm.state.realm.settings.empty_topic_display_name);
  const topic = t === NO_TOPIC_LEGACY ? '' : t;
  const bad = firstUnprintable(topic);
  if (bad !== null) throw errors.badRequest(`Invalid character in topic, at position ${bad}!`);
  return m.channel_id !== null && topic === (m.topic ?? '') ? undefined : topic;
}

export const updateMessage = userEndpoint(
  z.object({
    message_id: p.int(),
    topic: p.string().optional(),
    subject: p.string().optional(),
    propagate_mode: p.enum(['change_one', 'change_later', 'change_all']).default('change_one'),
    send_notification_to_old_thread: p.bool().default('false'),
    send_notification_to_new_thread: p.bool().default('true'),
    content: p.string({ nul: 'handler' }).optional(),
    prev_content_sha256: p.string().optional(),
    stream_id: p.int().optional(),
  }),
  async (ctx, q) => {
    const { realm, user } = ctx;
    const state = realm.state;
    const db = ctx.app.db;
    const now = ctx.app.clock.now();
    const { row } = await accessibleMessage(realm, user, q.message_id);
    const params: EditParams = {
      topic: topicChange(ctx, row, q.topic ?? q.subject),
      streamId: q.stream_id !== undefined && q.stream_id !== row.channel_id ? q.stream_id : undefined,
      content: q.content,
      propagateMode: q.propagate_mode,
      prevContentSha256: q.prev_content_sha256,
    };
    if (q.stream_id !== undefined && row.channel_id === null) throw errors.badRequest('Direct messages cannot be moved to channels.');
    if (params.content !== undefined) checkContentEdit(state, user, row, now);
    checkEditPayload(state, row, params);
    const data = renderData(realm.state);

    let content;
    if (params.content !== undefined) {
      const text = normalizeEditedContent(params.content);
      const r = renderFor(ctx, data, text);
      const where = row.channel_id !== null ? { channel: state.channels.get(row.channel_id)!, topic: row.topic ?? '' } : null;
      const mentioned = await checkMentions(db, state, user, r, where);
      content = {
        content: text,
        html: r.html,
        hasLink: r.hasLink,
        hasImage: r.hasImage,
        hasAttachment: r.hasAttachment,
        uploadPathIds: r.uploadPathIds,
        isMeMessage: isMeMessage(text, r.html),
        mentionedUserIds: mentioned,
        streamWildcard: r.streamWildcard,
        topicWildcard: r.topicWildcard,
      };
    }
    let plan: MovePlan | null = null;
    if (row.channel_id !== null && (params.topic !== undefined || params.streamId !== undefined)) {
      plan = await checkMove(db, state, user, row, params, now);
    }
    // Whether the destination already had messages the editor can see (for the notice's words).
    const destinationHadMessages = plan ? await hadMessages(ctx, plan) : false;
    const result = await realm.conversations.ask(conversationKeyOf(row), 'edit', {
      editorId: user.id,
      messageId: row.id,
      prevContentSha256: params.prevContentSha256,
      content,
      move: plan
        ? {
            toChannelId: plan.to.id,
            toTopic: plan.toTopic,
            topicChanged: plan.topicChanged,
            propagateMode: params.propagateMode,
            resolve: plan.resolve,
            onlyReceivedBy: plan.onlyReceivedBy,
          }
        : undefined,
      linkifiers: data.linkifiers,
    });
    if (plan && content === undefined) {
      if (plan.resolve && !plan.channelChanged) {
        await noticeResolve(realm, user, plan.to.id, plan.toTopic, plan.resolve === 'resolved');
      } else {
        await noticeMove(realm, {
          editor: user,
          fromChannelId: plan.from.id,
          fromTopic: plan.fromTopic,
          toChannelId: plan.to.id,
          toTopic: plan.toTopic,
          movedIds: result.changedIds,
          movedAll: result.movedAll,
          destinationHadMessages,
          toOld: q.send_notification_to_old_thread,
          toNew: q.send_notification_to_new_thread && (plan.channelChanged || (plan.topicChanged && plan.resolve === null)),
        });
      }
    }
    return { detached_uploads: result.detachedUploads };
  },
);

async function hadMessages(ctx: UserContext, plan: MovePlan): Promise<boolean> {
  const onlyMine = canReadFullHistory(ctx.realm.state, ctx.user, plan.to) ? null : ctx.user.id;
  return (await topicMessageTimes(ctx.app.db, plan.to.id, plan.toTopic, onlyMine)).length > 0;
}

/** Who may delete which message: any (with content access), or their own within the limit. */
function checkDelete(ctx: UserContext, m: MessageRow): void {
  const state = ctx.realm.state;
  const u = ctx.user;
  const channel = m.channel_id !== null ? state.channels.get(m.channel_id) : undefined;
  const inGroup = (groupId: number | undefined) => groupId !== undefined && state.isInGroup(u.id, groupId);
  const deleteAny = state.hasRealmPermission(u.id, 'can_delete_any_message_group') || inGroup(channel?.settings.can_delete_any_message_group);
  if (deleteAny) return;
  const deleteOwn =
    m.sender_id === u.id && (state.hasRealmPermission(u.id, 'can_delete_own_message_group') || inGroup(channel?.settings.can_delete_own_message_group));
  if (!deleteOwn) throw errors.badRequest("You don't have permission to delete this message");
  const limit = state.realm.settings.message_content_delete_limit_seconds;
  if (limit !== null && ctx.app.clock.now() - m.date_sent > (limit + 20) * 1000) {
    throw errors.badRequest('The time limit for deleting this message has passed');
  }
}

export const deleteMessage = userEndpoint(z.object({ message_id: p.int() }), async (ctx, q) => {
  const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
  checkDelete(ctx, row);
  await ctx.realm.conversations.ask(conversationKeyOf(row), 'delete', { messageId: row.id });
  return {};
});

export const getMessageHistory = userEndpoint(
  z.object({ message_id: p.int(), allow_empty_topic_name: p.bool().default('false') }),
  async (ctx, q) => {
    const settings = ctx.realm.state.realm.settings;
    if (!settings.allow_edit_history || settings.message_edit_history_visibility_policy === 'none') {
      throw errors.badRequest('Message edit history is disabled in this organization');
    }
    const { row } = await accessibleMessage(ctx.realm, ctx.user, q.message_id);
    const rows = await editsOf(ctx.app.db, row.id);
    const shown = (t: string) => (t === '' && !q.allow_empty_topic_name ? settings.empty_topic_display_name : t);
    // Walk back from the current state: each edit's "after" is the state before the next one.
    let state = { topic: row.topic ?? '', content: row.content, rendered: row.rendered_content, channel: row.channel_id };
    const snapshots: Record<string, unknown>[] = [];
    for (let i = rows.length - 1; i >= 0; i--) {
      const e = rows[i]!;
      const snap: Record<string, unknown> = { topic: shown(state.topic), content: state.content, rendered_content: state.rendered };
      const before = { ...state };
      if (e.prev_topic !== null) {
        snap.prev_topic = shown(e.prev_topic);
        before.topic = e.prev_topic;
      }
      if (e.prev_channel_id !== null) {
        snap.stream = state.channel;
        snap.prev_stream = e.prev_channel_id;
        before.channel = e.prev_channel_id;
      }
      if (e.prev_content !== null) {
        snap.prev_content = e.prev_content;
        snap.prev_rendered_content = e.prev_rendered_content ?? '';
        snap.content_html_diff = htmlDiff(e.prev_rendered_content ?? '', state.rendered);
        before.content = e.prev_content;
        before.rendered = e.prev_rendered_content ?? '';
      }
      snap.user_id = e.user_id;
      snap.timestamp = Math.floor(e.edited_at / 1000);
      if (settings.message_edit_history_visibility_policy === 'moves' && e.prev_content !== null && e.prev_topic === null && e.prev_channel_id === null) {
        state = before;
        continue;
      }
      snapshots.unshift(snap);
      state = before;
    }
    snapshots.unshift({
      topic: shown(state.topic),
      content: state.content,
      rendered_content: state.rendered,
      user_id: row.sender_id,
      timestamp: Math.floor(row.date_sent / 1000),
    });
    return { message_history: snapshots };
  },
);
