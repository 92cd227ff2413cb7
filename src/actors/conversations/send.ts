// Storing sends, batched: the sends queued in a conversation's owner, merged with other owners'
// batches by the realm's group commit (group-commit.ts), are stored in one transaction (up to
// MAX_ROWS_PER_TRANSACTION rows) — the message rows in one statement, every user_messages row
// with its flags in one INSERT … SELECT (a channel of any size) — and each emits one `message`
// event for all its recipients, with per-user flags only where they differ from the most common
// set. Everything about who may send what was checked by the caller (send-rules.ts).
import type { CommonQueryMethods } from 'slonik';
import { matchesAlertWords } from '../../domain/alert-words.js';
import { DM_BIT, FLAG_BITS, flagNames } from '../../domain/flags.js';
import { messageEvent } from '../../domain/events/messages.js';
import * as store from '../../store/messages.js';
import { lockAttachments } from '../../store/attachments.js';
import { setFirstMessageIfUnset } from '../../store/channels.js';
import { notifyAfterCommit } from '../../push/push-targets.js';
import { isDatabaseUnavailable } from '../../store/database.js';
import { fail, ok, type Reply } from '../runtime.js';
import { UNORDERED, type CommitOrder } from '../commit-order.js';
import type { WriteContext } from './conversations.js';
import { emitAttachmentUpdates } from './attachments.js';
import { emitFirstMessageChange } from './first-message.js';
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

/**
 * The most recipient rows one transaction of sends writes (a send to a channel larger than this
 * is stored alone): a batch's sends wait for all of it, and its rows come back in memory.
 */
export const MAX_ROWS_PER_TRANSACTION = 10_000;

/** The rows a send writes: its message and one per recipient (a channel's subscribers, as cached). */
export function sendWeight(ctx: Pick<WriteContext, 'realm'>, input: Pick<SendInput, 'channel' | 'dm'>): number {
  return 1 + (input.channel ? ctx.realm.state.channels.subscribers(input.channel.id).size + 1 : input.dm!.userIds.length);
}

/**
 * Store a group of sends (group commit: owners hand over the sends queued behind the one in
 * flight, and the realm merges owners' batches) in one transaction, with one statement of each
 * kind whatever their number. Each send gets its own answer. A batch that fails for a reason other
 * than the database being unreachable (a send whose idempotency key a concurrent send claimed,
 * a bug) is rolled back and retried one send per transaction, so that one send's failure is its
 * own; an unreachable database fails them all (their commit may be in doubt: never retried here).
 * With an `order` (the owner's batches pipelined, commit-order.ts) the batch's messages, events
 * and commit follow the owner's batch before it, and the retries happen before the order is
 * settled (by the caller), so the owner's next batch follows them too. Only after a failure other
 * than a duplicate key (a bug) may that next batch have taken its message ids before the retries.
 */
export async function sendMessages(ctx: WriteContext, inputs: readonly SendInput[], order: CommitOrder = UNORDERED): Promise<Array<Reply<SendResult>>> {
  const results: Array<Reply<SendResult> | undefined> = inputs.map(() => undefined);
  const fresh: number[] = [];
  const keyed = inputs.flatMap((input, i) => (input.idempotencyKey === undefined ? [] : [i]));
  const earlier = await store.findIdempotentSends(
    ctx.services.db,
    keyed.map((i) => ({ userId: inputs[i]!.senderId, key: inputs[i]!.idempotencyKey! })),
  );
  keyed.forEach((i, k) => {
    if (earlier[k] !== undefined) results[i] = ok({ id: earlier[k] });
  });
  for (let i = 0; i < inputs.length; i++) if (!results[i]) fresh.push(i);
  if (fresh.length > 0) {
    try {
      const ids = await storeSends(ctx, fresh.map((i) => inputs[i]!), order);
      fresh.forEach((i, k) => (results[i] = ok({ id: ids[k]! })));
    } catch (e) {
      if (isDatabaseUnavailable(e) || fresh.length === 1) {
        for (const i of fresh) results[i] = await afterFailure(ctx, inputs[i]!, e);
      } else {
        for (const i of fresh) results[i] = await sendAlone(ctx, inputs[i]!);
      }
    }
  }
  return results.map((r) => r!);
}

async function sendAlone(ctx: WriteContext, input: SendInput): Promise<Reply<SendResult>> {
  try {
    return ok({ id: (await storeSends(ctx, [input]))[0]! });
  } catch (e) {
    return afterFailure(ctx, input, e);
  }
}

/** A send whose transaction failed: answered by the send that claimed its key first, or failed. */
async function afterFailure(ctx: WriteContext, input: SendInput, e: unknown): Promise<Reply<SendResult>> {
  if (!(e instanceof DuplicateSend)) return fail(e);
  const [id] = await store.findIdempotentSends(ctx.services.db, [{ userId: input.senderId, key: input.idempotencyKey! }]);
  return ok({ id: id! });
}

/** Alert words of everyone a batch may alert: per channel its subscribers, else by user. */
async function alertWordsOf(tx: CommonQueryMethods, inputs: readonly SendInput[]) {
  const channels = new Map<number, ReadonlyArray<{ user_id: number; words: readonly string[] }>>();
  for (const id of new Set(inputs.flatMap((i) => (i.channel ? [i.channel.id] : [])))) channels.set(id, await store.channelAlertWords(tx, id));
  const participants = [...new Set(inputs.flatMap((i) => i.dm?.userIds ?? []))];
  const users = new Map((participants.length > 0 ? await store.usersAlertWords(tx, participants) : []).map((a) => [a.user_id, a.words]));
  return (input: SendInput) =>
    input.channel ? channels.get(input.channel.id)! : input.dm!.userIds.flatMap((id) => (users.has(id) ? [{ user_id: id, words: users.get(id)! }] : []));
}

/** Store the sends in one transaction; their message ids, in order. */
async function storeSends(ctx: WriteContext, inputs: readonly SendInput[], order: CommitOrder = UNORDERED): Promise<number[]> {
  const { realm } = ctx;
  const nowMs = ctx.services.clock.now();
  const sent = await ctx.write(
    async (tx, emit) => {
      const state = realm.state;
      const alertWords = await alertWordsOf(tx, inputs);
      const rules: store.FlagRule[] = [];
      for (const input of inputs) {
        const personal = new Map<number, number>();
        const add = (userId: number, bit: number) => personal.set(userId, (personal.get(userId) ?? 0) | bit);
        for (const u of input.mentionedUserIds) add(u, FLAG_BITS.mentioned);
        if (input.readFor !== undefined) add(input.readFor, FLAG_BITS.read);
        // Read on arrival for whoever muted the sender (no unread count, no notification).
        for (const u of state.mutes.mutedBy(input.senderId)) add(u, FLAG_BITS.read);
        for (const a of alertWords(input)) if (a.user_id !== input.senderId && matchesAlertWords(input.content, a.words)) add(a.user_id, FLAG_BITS.has_alert_word);
        if (input.topicWildcard && input.channel) {
          for (const u of await store.topicParticipants(tx, input.channel.id, input.channel.topic)) add(u, FLAG_BITS.topic_wildcard_mentioned);
        }
        rules.push({
          common: (input.streamWildcard ? FLAG_BITS.stream_wildcard_mentioned : 0) | (input.dm ? DM_BIT : 0),
          senderId: input.senderId,
          senderBits: input.readBySender ? FLAG_BITS.read : 0,
          personal,
        });
      }
      await order.wait('messages');
      const rows = await store.insertMessages(
        tx,
        inputs.map((input) => ({
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
          nowMs,
        })),
      );
      // A batch holding idempotency keys may fail on a duplicate and be retried send by send,
      // with new ids: the batch after it then starts (and takes its ids) only once it is over.
      if (!inputs.some((input) => input.idempotencyKey !== undefined)) order.pass('messages');
      const recipients = await store.insertRecipients(
        tx,
        inputs.map((input, i) => ({ messageId: rows[i]!.id, channelId: input.channel?.id ?? null, userIds: input.dm?.userIds ?? null, rule: rules[i]! })),
      );
      // Row locks from here on (a channel's first message, attachments, idempotency keys): only
      // once the batch before has written all it writes, else each could wait for the other.
      await order.wait('events');
      const firsts = new Map<number, number>();
      for (const [i, input] of inputs.entries()) {
        if (input.channel && state.channels.get(input.channel.id)?.first_message_id === null && !firsts.has(input.channel.id)) {
          firsts.set(input.channel.id, rows[i]!.id);
        }
      }
      const firstSet: Array<[number, number]> = [];
      for (const [channelId, messageId] of firsts) if (await setFirstMessageIfUnset(tx, channelId, messageId)) firstSet.push([channelId, messageId]);
      await lockAttachments(tx, realm.id, { pathIds: inputs.flatMap((input) => input.rendered.uploadPathIds) });
      const claimed: number[] = [];
      for (const [i, input] of inputs.entries()) {
        const row = rows[i]!;
        claimed.push(...(await store.claimAttachments(tx, realm.id, input.senderId, row.id, input.rendered.uploadPathIds)));
        if (input.idempotencyKey !== undefined && !(await store.claimIdempotencyKey(tx, input.senderId, input.idempotencyKey, row.id))) {
          throw new DuplicateSend();
        }
        const mine = recipients.get(row.id)!;
        const common = commonFlags(mine);
        const perUser: Record<number, { flags: string[] }> = {};
        for (const r of mine) if (r.flags !== common) perUser[r.user_id] = { flags: flagNames(r.flags) };
        emit(
          messageEvent.build(
            {
              message: messageObject(state, row, [], input.linkifiers),
              flags: flagNames(common),
              ...(input.local ? { _local: input.local } : {}),
            },
            {
              userIds: mine.map((r) => r.user_id),
              perUser,
              publicChannelId: input.channel?.isPublic ? input.channel.id : null,
            },
          ),
        );
      }
      // After the message events: the first message's own event tells its recipients first.
      for (const [channelId, messageId] of firstSet) emitFirstMessageChange(state, emit, channelId, messageId);
      await emitAttachmentUpdates(tx, emit, realm.id, claimed);
      return rows.map((row) => ({ id: row.id, recipients: recipients.get(row.id)!, dateSent: row.date_sent }));
    },
    // After commit: what realm state caches about conversations.
    (result) => {
      const state = realm.state;
      for (const [i, input] of inputs.entries()) {
        if (input.channel) state.channels.patch(input.channel.id, (c) => (c.first_message_id === null ? { ...c, first_message_id: result[i]!.id } : c));
        if (input.dm) state.channels.addDmConversation(input.dm.userIds);
      }
    },
    order,
  );
  for (const [i, input] of inputs.entries()) {
    const channel = input.channel ? realm.state.channels.get(input.channel.id) : undefined;
    notifyAfterCommit(realm, {
      id: sent[i]!.id,
      senderId: input.senderId,
      content: input.content,
      timestamp: Math.floor(sent[i]!.dateSent / 1000),
      channel: input.channel ? { id: input.channel.id, name: channel?.name ?? '', topic: input.channel.topic } : undefined,
      directRecipientIds: input.dm?.userIds,
      recipients: sent[i]!.recipients,
    });
  }
  return sent.map((s) => s.id);
}
