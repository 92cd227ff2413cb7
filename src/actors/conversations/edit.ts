// The edit command of a conversation's owner: a content edit (new flags for mentions and alert
// words, uploads re-linked), a move of one, later or all messages of a topic to another topic
// and/or channel (recipients' rows follow the destination's subscribers, topic settings follow a
// whole-topic move), the edit history, and the events: update_message to who can see the result,
// delete_message to who lost access. Permissions were checked by the caller (edit-rules.ts).
import { matchesAlertWords } from '../../domain/alert-words.js';
import { errors } from '../../domain/errors.js';
import { deleteMessageEvent, updateMessageEvent } from '../../domain/events/messages.js';
import { userTopicEvent } from '../../domain/events/user-topics.js';
import { FLAG_BITS, flagNames } from '../../domain/flags.js';
import { topicLinks } from '../../domain/linkifiers.js';
import { refreshFirstMessage } from '../../store/channels.js';
import * as edits from '../../store/message-edits.js';
import * as store from '../../store/messages.js';
import { setUserTopic, topicSettings } from '../../store/user-topics.js';
import { activeSubscribers, canReadFullHistory } from '../realm/channel-view.js';
import type { RealmState, UserRecord } from '../realm/state.js';
import type { ConversationContext } from './conversations.js';
import { sha256Hex } from './edit-rules.js';
import { emitAttachmentUpdates } from './attachments.js';
import { emitFirstMessageChange } from './first-message.js';
import type { Linkifiers } from './message-view.js';
import { Reroute } from './serial-actor.js';
import type { RenderedContent } from './send.js';
import type { z } from 'zod';

export interface EditInput {
  readonly editorId: number;
  readonly messageId: number;
  readonly prevContentSha256?: string | undefined;
  readonly content?:
    | (RenderedContent & {
        readonly content: string;
        readonly isMeMessage: boolean;
        readonly mentionedUserIds: readonly number[];
        readonly streamWildcard: boolean;
        readonly topicWildcard: boolean;
      })
    | undefined;
  readonly move?:
    | {
        readonly toChannelId: number;
        readonly toTopic: string;
        readonly topicChanged: boolean;
        readonly propagateMode: 'change_one' | 'change_later' | 'change_all';
        readonly resolve: 'resolved' | 'unresolved' | null;
        readonly onlyReceivedBy: number | null;
      }
    | undefined;
  readonly linkifiers: Linkifiers;
}

export interface EditResult {
  readonly changedIds: number[];
  /** Every message of the topic the editor could see moved (whole-topic move). */
  readonly movedAll: boolean;
  readonly detachedUploads: Array<Record<string, unknown>>;
  readonly fromChannelId: number | null;
  readonly fromTopic: string | null;
}

/** Locked target row, checked to belong to this owner (else the caller is rerouted). */
export async function lockTarget(ctx: ConversationContext, tx: Parameters<typeof store.messageById>[0], id: number): Promise<store.MessageRow> {
  const row = await store.messageById(tx, id, true);
  if (!row || row.realm_id !== ctx.realm.id) throw errors.invalidMessage();
  if (ctx.owner.kind === 'channel' && row.channel_id !== ctx.owner.channelId) {
    if (row.channel_id === null) throw errors.invalidMessage();
    throw new Reroute({ channelId: row.channel_id });
  }
  return row;
}

type UpdateMessagePayload = z.input<typeof updateMessageEvent.schema>;

export async function editMessage(ctx: ConversationContext, input: EditInput): Promise<EditResult> {
  const { realm } = ctx;
  const now = ctx.services.clock.now();
  /** First message ids of channels a move changed, cached after commit. */
  const firsts = new Map<number, number | null>();
  return ctx.write(async (tx, emit) => {
    const state = realm.state;
    const row = await lockTarget(ctx, tx, input.messageId);
    if (input.prevContentSha256 !== undefined && sha256Hex(row.content) !== input.prevContentSha256) throw errors.editConflict();
    const holdersBefore = await edits.rowsOf(tx, [row.id]);
    const records = new Map<number, edits.EditRecord>();
    const record = (id: number, r: Partial<edits.EditRecord>) =>
      records.set(id, { ...(records.get(id) ?? { messageId: id, userId: input.editorId, nowMs: now }), ...r });
    const event: UpdateMessagePayload = {
      user_id: input.editorId,
      rendering_only: false,
      message_id: row.id,
      message_ids: [],
      flags: ['read'],
      edit_timestamp: Math.floor(now / 1000),
    };
    if (row.channel_id !== null) {
      event.stream_name = state.channels.get(row.channel_id)?.name ?? '';
      event.stream_id = row.channel_id;
    }
    let detached: edits.AttachmentRow[] = [];
    const c = input.content;
    if (c) {
      await edits.updateContent(tx, row.id, { ...c, renderedContent: c.html, nowMs: now });
      const relinked = await edits.relinkAttachments(tx, realm.id, row.id, input.editorId, c.uploadPathIds);
      detached = [...relinked.detached];
      await emitAttachmentUpdates(tx, emit, realm.id, relinked.changed);
      const personal = new Map<number, number>();
      const add = (u: number, bit: number) => personal.set(u, (personal.get(u) ?? 0) | bit);
      for (const u of c.mentionedUserIds) add(u, FLAG_BITS.mentioned);
      for (const a of await store.usersAlertWords(tx, holdersBefore.map((h) => h.user_id))) {
        if (a.user_id !== row.sender_id && matchesAlertWords(c.content, a.words)) add(a.user_id, FLAG_BITS.has_alert_word);
      }
      if (c.topicWildcard && row.channel_id !== null) {
        for (const u of await store.topicParticipants(tx, row.channel_id, row.topic ?? '')) add(u, FLAG_BITS.topic_wildcard_mentioned);
      }
      await edits.rewriteMentionFlags(tx, row.id, { common: c.streamWildcard ? FLAG_BITS.stream_wildcard_mentioned : 0, personal });
      record(row.id, { prevContent: row.content, prevRenderedContent: row.rendered_content });
      Object.assign(event, {
        orig_content: row.content,
        orig_rendered_content: row.rendered_content,
        content: c.content,
        rendered_content: c.html,
        is_me_message: c.isMeMessage,
      });
    }

    let changed: store.MessageRow[] = [row];
    let movedAll = false;
    let movedChannel: { fromId: number; fromTopic: string; ids: number[] } | null = null;
    const mv = input.move;
    if (mv && row.channel_id !== null) {
      const fromId = row.channel_id;
      const fromTopic = row.topic ?? '';
      const channelChanged = mv.toChannelId !== fromId;
      if (mv.propagateMode !== 'change_one') {
        const scope = { onlyReceivedBy: mv.onlyReceivedBy ?? undefined, fromId: mv.propagateMode === 'change_later' ? row.id : undefined };
        changed = [...(await edits.lockTopicMessages(tx, fromId, fromTopic, scope as { fromId?: number; onlyReceivedBy?: number }))];
        if (!changed.some((x) => x.id === row.id)) changed.push(row);
      }
      const ids = changed.map((x) => x.id).sort((a, b) => a - b);
      movedAll =
        mv.propagateMode === 'change_all' ||
        (await edits.topicMessageTimes(tx, fromId, fromTopic, mv.onlyReceivedBy)).every((x) => ids.includes(x.id));
      await edits.moveMessages(tx, ids, mv.toChannelId, mv.toTopic, now, mv.resolve === null);
      for (const id of ids) {
        record(id, {
          ...(mv.topicChanged ? { prevTopic: fromTopic, topic: mv.toTopic } : {}),
          ...(channelChanged ? { prevChannelId: fromId, channelId: mv.toChannelId } : {}),
        });
      }
      event.propagate_mode = mv.propagateMode;
      if (mv.topicChanged) Object.assign(event, { orig_subject: fromTopic, subject: mv.toTopic, topic_links: topicLinks(mv.toTopic, input.linkifiers) });
      if (channelChanged) {
        event.new_stream_id = mv.toChannelId;
        event.orig_subject = fromTopic;
        const to = state.channels.get(mv.toChannelId)!;
        await edits.dropRowsOutside(tx, ids, mv.toChannelId);
        if (!to.history_public_to_subscribers) await edits.addRowsForSubscribers(tx, ids, mv.toChannelId);
        for (const cid of [fromId, mv.toChannelId]) {
          const first = await refreshFirstMessage(tx, cid);
          firsts.set(cid, first);
          emitFirstMessageChange(state, emit, cid, first);
        }
        movedChannel = { fromId, fromTopic, ids };
      }
    }
    await edits.recordEdits(tx, [...records.values()]);

    const changedIds = changed.map((x) => x.id).sort((a, b) => a - b);
    event.message_ids = changedIds;
    const holders = await edits.rowsOf(tx, [row.id]);
    const audience = editAudience(state, {
      before: new Set(holdersBefore.map((h) => h.user_id)),
      after: new Set(holders.map((h) => h.user_id)),
      fromId: row.channel_id,
      toId: mv?.toChannelId ?? row.channel_id,
    });
    if (movedChannel !== null && audience.lost.length > 0) {
      const { fromId, fromTopic, ids } = movedChannel;
      emit({
        ...deleteMessageEvent.build({ message_ids: ids, message_type: 'stream', stream_id: fromId, topic: fromTopic }, { userIds: audience.lost }),
        span: ids.length,
      });
    }
    if (mv && row.channel_id !== null && movedAll) {
      await moveTopicSettings(ctx, tx, emit, { fromId: row.channel_id, fromTopic: row.topic ?? '', toId: mv.toChannelId, toTopic: mv.toTopic, losingAccess: audience.lost, now });
    }
    const perUser: Record<number, { flags: string[] }> = {};
    for (const h of holders) perUser[h.user_id] = { flags: flagNames(h.flags) };
    emit(updateMessageEvent.build(event, { userIds: audience.updated, perUser }));
    return {
      changedIds,
      movedAll,
      detachedUploads: detached.map((a) => ({
        id: a.id,
        name: a.file_name,
        path_id: a.path_id,
        size: a.size,
        create_time: Math.floor(a.create_time / 1000),
        message_ids: [],
      })),
      fromChannelId: row.channel_id,
      fromTopic: row.topic,
    };
  }, () => {
    for (const [id, first] of firsts) realm.state.channels.patch(id, (c) => ({ ...c, first_message_id: first }));
  });
}

/**
 * Who hears of an edit or move: whoever may read the message afterwards and held it (before or
 * after) or is subscribed to the channel it left or entered gets update_message; of the others,
 * whoever could read it before gets delete_message (a move took it out of their sight).
 */
export function editAudience(
  state: RealmState,
  o: { before: ReadonlySet<number>; after: ReadonlySet<number>; fromId: number | null; toId: number | null },
): { updated: number[]; lost: number[] } {
  const candidates = new Set([...o.before, ...o.after]);
  for (const cid of [o.fromId, o.toId]) if (cid !== null) for (const u of activeSubscribers(state, cid)) candidates.add(u);
  const readsAllOf = (user: UserRecord, cid: number | null) => {
    const c = cid === null ? undefined : state.channels.get(cid);
    return c !== undefined && canReadFullHistory(state, user, c);
  };
  const updated: number[] = [];
  const lost: number[] = [];
  for (const id of candidates) {
    const user = state.user(id);
    if (!user?.is_active) continue;
    if (o.after.has(id) || readsAllOf(user, o.toId)) updated.push(id);
    else if (o.before.has(id) || readsAllOf(user, o.fromId)) lost.push(id);
  }
  return { updated: updated.sort((a, b) => a - b), lost: lost.sort((a, b) => a - b) };
}

/**
 * A whole-topic move carries each user's setting for the topic: the source setting goes, the
 * destination keeps the more visible of the two (followed > unmuted > none > muted). Users who
 * lose access to the messages just lose the setting.
 */
async function moveTopicSettings(
  ctx: ConversationContext,
  tx: Parameters<typeof setUserTopic>[0],
  emit: Parameters<Parameters<ConversationContext['write']>[0]>[1],
  o: { fromId: number; fromTopic: string; toId: number; toTopic: string; losingAccess: readonly number[]; now: number },
): Promise<void> {
  if (o.fromId === o.toId && o.fromTopic.toLowerCase() === o.toTopic.toLowerCase()) return;
  const from = await topicSettings(tx, o.fromId, o.fromTopic);
  if (from.length === 0) return;
  const to = new Map((await topicSettings(tx, o.toId, o.toTopic)).map((r) => [r.user_id, r.visibility_policy]));
  const rank = (p: number) => ({ 3: 3, 2: 2, 0: 1, 1: 0 })[p as 0 | 1 | 2 | 3];
  const lost = new Set(o.losingAccess);
  const last = Math.floor(o.now / 1000);
  for (const r of from) {
    await setUserTopic(tx, r.user_id, o.fromId, o.fromTopic, 0, o.now);
    emit(userTopicEvent.build({ stream_id: o.fromId, topic_name: o.fromTopic, last_updated: last, visibility_policy: 0 }, { userIds: [r.user_id] }));
    if (lost.has(r.user_id)) continue;
    const existing = to.get(r.user_id) ?? 0;
    const merged = rank(r.visibility_policy) >= rank(existing) ? r.visibility_policy : existing;
    if (merged === existing && to.has(r.user_id)) continue;
    await setUserTopic(tx, r.user_id, o.toId, o.toTopic, merged, o.now);
    emit(userTopicEvent.build({ stream_id: o.toId, topic_name: o.toTopic, last_updated: last, visibility_policy: merged }, { userIds: [r.user_id] }));
  }
}
