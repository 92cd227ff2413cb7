// Scheduled messages and reminders: written, rewritten, deleted and sent in the owner of their
// author's personal data, so an edit or a deletion and the send never cross. Each change is told
// to the author's clients (scheduled_messages and reminders events).
//
// Sending when due: a scheduled message is checked against its author's rights at that moment,
// as POST /messages would be; a reminder needs its message still readable. A refusal marks the
// row failed (its author may edit and reschedule it) and Notification Bot tells the author why.
// The send carries an idempotency key of the row's, so a send repeated after a crash (sent, but
// not yet marked sent) finds the message already there instead of posting it twice.
import { errors, isApiError } from '../../domain/errors.js';
import { remindersEvent, scheduledMessagesEvent } from '../../domain/events/scheduled.js';
import type { EventSpec } from '../event-sequencer.js';
import * as store from '../../store/scheduled-messages.js';
import type { RealmHandle } from '../realm/actor.js';
import { submitMessage } from './compose.js';
import type { WriteContext } from './conversations.js';
import { accessibleMessage } from './message-view.js';
import { noticeToUser } from './notices.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A scheduled message as clients see it. */
export const formatScheduledMessage = (r: store.ScheduledRow) => ({
  scheduled_message_id: r.id,
  type: r.type,
  ...(r.type === 'stream' ? { to: r.to_ids[0]!, topic: r.topic } : { to: r.to_ids }),
  content: r.content,
  rendered_content: r.rendered_content,
  scheduled_delivery_timestamp: seconds(r.deliver_at),
  failed: r.failed,
});

/** A reminder as clients see it. */
export const formatReminder = (r: store.ScheduledRow) => ({
  reminder_id: r.id,
  type: 'private' as const,
  to: [r.sender_id],
  content: r.content,
  rendered_content: r.rendered_content,
  scheduled_delivery_timestamp: seconds(r.deliver_at),
  failed: r.failed,
  reminder_target_message_id: r.target_message_id ?? 0,
});

const toUser = (userId: number) => ({ userIds: [userId] });

function addedEvent(r: store.ScheduledRow): EventSpec {
  return r.kind === 'message'
    ? scheduledMessagesEvent.build({ op: 'add', scheduled_messages: [formatScheduledMessage(r)] }, toUser(r.sender_id))
    : remindersEvent.build({ op: 'add', reminders: [formatReminder(r)] }, toUser(r.sender_id));
}

function removedEvent(r: { kind: store.ScheduledKind; id: number; sender_id: number }): EventSpec {
  return r.kind === 'message'
    ? scheduledMessagesEvent.build({ op: 'remove', scheduled_message_id: r.id }, toUser(r.sender_id))
    : remindersEvent.build({ op: 'remove', reminder_id: r.id }, toUser(r.sender_id));
}

const notFound = (kind: store.ScheduledKind) => (kind === 'message' ? errors.scheduledMessageNotFound() : errors.reminderNotFound());

export interface ScheduleInput {
  readonly userId: number;
  readonly kind: store.ScheduledKind;
  readonly data: store.ScheduledData;
  readonly readBySender: boolean;
  readonly client: string;
  readonly targetMessageId: number | null;
}

export async function createScheduled(ctx: WriteContext, input: ScheduleInput): Promise<number> {
  return ctx.write(async (tx, emit) => {
    const { userId, kind, data, readBySender, client, targetMessageId } = input;
    const row = await store.insertScheduled(tx, { ...data, realmId: ctx.realm.id, senderId: userId, kind, readBySender, client, targetMessageId });
    emit(addedEvent(row));
    return row.id;
  });
}

/** Rewrites one of the user's unsent scheduled messages (a failed one is tried again when due). */
export async function editScheduled(ctx: WriteContext, input: { userId: number; id: number; data: store.ScheduledData }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    const row = await store.updateScheduled(tx, input.userId, input.id, input.data);
    if (!row) throw errors.scheduledMessageNotFound();
    emit(scheduledMessagesEvent.build({ op: 'update', scheduled_message: formatScheduledMessage(row) }, toUser(row.sender_id)));
  });
}

export async function deleteScheduled(ctx: WriteContext, input: { userId: number; kind: store.ScheduledKind; id: number }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    if (!(await store.deletePending(tx, input.userId, input.kind, input.id))) throw notFound(input.kind);
    emit(removedEvent({ kind: input.kind, id: input.id, sender_id: input.userId }));
  });
}

/** The idempotency key of a row's send: no client's key can be it (theirs are printable ASCII). */
const sendKey = (id: number) => `\u0001scheduled ${id}`;

export type DeliveryOutcome = 'sent' | 'failed' | 'not due';

/** Sends the row if it is (still) due and unsent; a refusal marks it failed. */
export async function deliverScheduled(ctx: WriteContext, input: { id: number }): Promise<DeliveryOutcome> {
  const { realm, services } = ctx;
  const row = await store.getDue(services.db, input.id, services.clock.now());
  if (!row) return 'not due';
  const author = realm.state.user(row.sender_id);
  let messageId: number;
  try {
    if (realm.state.realm.deactivated) throw errors.badRequest('The organization is deactivated.');
    if (!author?.is_active) throw errors.badRequest('Your account is deactivated.');
    if (row.kind === 'message') {
      messageId = await submitMessage(realm, author, {
        to: row.type === 'stream' ? { channel: { id: row.to_ids[0]! }, topic: row.topic } : { dm: row.to_ids },
        content: row.content,
        readBySender: row.read_by_sender,
        client: row.client,
        idempotencyKey: sendKey(row.id),
      });
    } else {
      await accessibleMessage(realm, author, row.target_message_id ?? 0).catch((e: unknown) => {
        // Only a refusal fails the reminder; the database being away leaves it for the next try.
        throw isApiError(e) ? errors.badRequest('The message this reminder is about was deleted, or you can no longer read it.') : e;
      });
      messageId = await noticeToUser(realm, author.id, row.content, { idempotencyKey: sendKey(row.id) });
    }
  } catch (e) {
    if (!isApiError(e)) throw e; // tried again later
    await fail(ctx, row, e.message);
    if (author?.is_active && !realm.state.realm.deactivated) await tellFailure(realm, row, e.message);
    return 'failed';
  }
  await ctx.write(async (tx, emit) => {
    await store.markDelivered(tx, row.id, messageId);
    emit(removedEvent(row));
  });
  return 'sent';
}

async function fail(ctx: WriteContext, row: store.ScheduledRow, reason: string): Promise<void> {
  await ctx.write(async (tx, emit) => {
    const failed = await store.markFailed(tx, row.id, reason);
    if (failed.kind === 'message') {
      emit(scheduledMessagesEvent.build({ op: 'update', scheduled_message: formatScheduledMessage(failed) }, toUser(failed.sender_id)));
    } else {
      // Reminders have no update event: clients replace the reminder.
      emit(removedEvent(failed));
      emit(addedEvent(failed));
    }
  });
}

/** Notification Bot's message to the author of a row that could not be sent. */
async function tellFailure(realm: RealmHandle, row: store.ScheduledRow, reason: string): Promise<void> {
  const what = row.kind === 'message' ? 'message you scheduled' : 'reminder you set';
  const when = `${new Date(row.deliver_at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const text = `The ${what} for ${when} could not be sent: ${reason}`;
  try {
    await noticeToUser(realm, row.sender_id, text);
  } catch (err) {
    realm.services.log.warn({ err, scheduledMessage: row.id }, 'telling the author of a failed scheduled message failed');
  }
}
