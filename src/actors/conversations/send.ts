// The send command of a conversation's owner: store the message and one user_messages row per
// recipient with its flags (one INSERT … SELECT for a channel of any size), and emit one
// `message` event for all recipients, with per-user flags only where they differ from the most
// common set. Everything about who may send what was checked by the caller (send-rules.ts).
import { matchesAlertWords } from '../../domain/alert-words.js';
import { DM_BIT, FLAG_BITS, flagNames } from '../../domain/flags.js';
import { messageEvent } from '../../domain/events/messages.js';
import * as store from '../../store/messages.js';
import { setFirstMessageIfUnset } from '../../store/channels.js';
import { notifyAfterCommit } from '../../push/push-targets.js';
import type { ConversationContext } from './conversations.js';
import { messageObject, type Linkifiers } from './message-view.js';

/** Content as rendered, with what the message links to. */
export interface RenderedContent {
  readonly html: string;
  readonly hasLink: boolean;
  readonly hasImage: boolean;
  readonly hasAttachment: boolean;
  readonly uploadPathIds: readonly string[];
}

export interface SendInput {
  readonly senderId: number;
  /** Exactly one of: a channel and topic, or the participants of a direct message. */
  readonly channel?: { readonly id: number; readonly topic: string; readonly isPublic: boolean } | undefined;
  readonly dm?: { readonly key: string; readonly userIds: readonly number[] } | undefined;
  readonly content: string;
  readonly rendered: RenderedContent;
  readonly isMeMessage: boolean;
  /** Users mentioned directly or through a group (members already expanded). */
  readonly mentionedUserIds: readonly number[];
  readonly streamWildcard: boolean;
  readonly topicWildcard: boolean;
  readonly readBySender: boolean;
  readonly client: string;
  readonly idempotencyKey?: string | undefined;
  readonly local?: { readonly queue_id: string; readonly local_id: string } | undefined;
  readonly linkifiers: Linkifiers;
  /** Automated messages (e.g. the resolved-topic notice). */
  readonly kind?: number | undefined;
  /** A user for whom the message starts read (who caused an automated notice). */
  readonly readFor?: number | undefined;
}

export interface SendResult {
  readonly id: number;
}

/** A concurrent send holding the same idempotency key committed first. */
class DuplicateSend extends Error {}

/** The flag set most recipients share: it goes in the payload, the rest per user. */
function commonFlags(rows: readonly store.RecipientRow[]): number {
  const counts = new Map<number, number>();
  let best = 0;
  let bestCount = -1;
  for (const r of rows) {
    const n = (counts.get(r.flags) ?? 0) + 1;
    counts.set(r.flags, n);
    if (n > bestCount) {
      best = r.flags;
      bestCount = n;
    }
  }
  return best;
}

export async function sendMessage(ctx: ConversationContext, input: SendInput): Promise<SendResult> {
  const { realm } = ctx;
  const db = ctx.services.db;
  if (input.idempotencyKey !== undefined) {
    const earlier = await store.findIdempotentSend(db, input.senderId, input.idempotencyKey);
    if (earlier !== null) return { id: earlier };
  }
  try {
    const sent = await ctx.write(
      async (tx, emit) => {
        const state = realm.state;
        const personal = new Map<number, number>();
        const add = (userId: number, bit: number) => personal.set(userId, (personal.get(userId) ?? 0) | bit);
        for (const u of input.mentionedUserIds) add(u, FLAG_BITS.mentioned);
        if (input.readFor !== undefined) add(input.readFor, FLAG_BITS.read);
        const alertRows = input.channel
          ? await store.channelAlertWords(tx, input.channel.id)
          : await store.usersAlertWords(tx, input.dm!.userIds);
        for (const a of alertRows) if (a.user_id !== input.senderId && matchesAlertWords(input.content, a.words)) add(a.user_id, FLAG_BITS.has_alert_word);
        if (input.topicWildcard && input.channel) {
          for (const u of await store.topicParticipants(tx, input.channel.id, input.channel.topic)) add(u, FLAG_BITS.topic_wildcard_mentioned);
        }
        const rule: store.FlagRule = {
          common: (input.streamWildcard ? FLAG_BITS.stream_wildcard_mentioned : 0) | (input.dm ? DM_BIT : 0),
          senderId: input.senderId,
          senderBits: input.readBySender ? FLAG_BITS.read : 0,
          personal,
        };
        const row = await store.insertMessage(tx, {
          realmId: realm.id,
          senderId: input.senderId,
          channelId: input.channel?.id ?? null,
          topic: input.channel?.topic ?? null,
          dmKey: input.dm?.key ?? null,
          content: input.content,
          renderedContent: input.rendered.html,
          client: input.client,
          hasLink: input.rendered.hasLink,
          hasImage: input.rendered.hasImage,
          hasAttachment: input.rendered.hasAttachment,
          isMeMessage: input.isMeMessage,
          kind: input.kind,
          nowMs: ctx.services.clock.now(),
        });
        const recipients = input.channel
          ? await store.insertChannelRecipients(tx, row.id, input.channel.id, rule)
          : await store.insertDmRecipients(tx, row.id, input.dm!.userIds, rule);
        if (input.channel && state.channels.get(input.channel.id)?.first_message_id === null) {
          await setFirstMessageIfUnset(tx, input.channel.id, row.id);
        }
        await store.claimAttachments(tx, realm.id, input.senderId, row.id, input.rendered.uploadPathIds);
        if (input.idempotencyKey !== undefined && !(await store.claimIdempotencyKey(tx, input.senderId, input.idempotencyKey, row.id))) {
          throw new DuplicateSend();
        }
        const common = commonFlags(recipients);
        const perUser: Record<number, { flags: string[] }> = {};
        for (const r of recipients) if (r.flags !== common) perUser[r.user_id] = { flags: flagNames(r.flags) };
        emit(
          messageEvent.build(
            {
              message: messageObject(state, row, [], input.linkifiers),
              flags: flagNames(common),
              ...(input.local ? { _local: input.local } : {}),
            },
            {
              userIds: recipients.map((r) => r.user_id),
              perUser,
              publicChannelId: input.channel?.isPublic ? input.channel.id : null,
            },
          ),
        );
        return { id: row.id, recipients, dateSent: row.date_sent };
      },
      // After commit: what realm state caches about conversations.
      (result) => {
        const state = realm.state;
        if (input.channel) state.channels.patch(input.channel.id, (c) => (c.first_message_id === null ? { ...c, first_message_id: result.id } : c));
        if (input.dm) state.channels.addDmConversation(input.dm.userIds);
      },
    );
    const channel = input.channel ? realm.state.channels.get(input.channel.id) : undefined;
    notifyAfterCommit(realm, {
      id: sent.id,
      senderId: input.senderId,
      content: input.content,
      timestamp: Math.floor(sent.dateSent / 1000),
      channel: input.channel ? { id: input.channel.id, name: channel?.name ?? '', topic: input.channel.topic } : undefined,
      directRecipientIds: input.dm?.userIds,
      recipients: sent.recipients,
    });
    return { id: sent.id };
  } catch (e) {
    if (!(e instanceof DuplicateSend)) throw e;
    return { id: (await store.findIdempotentSend(db, input.senderId, input.idempotencyKey!))! };
  }
}
