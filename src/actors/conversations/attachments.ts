// Upload records, owned like the rest of a user's personal data: adding one (the file is already
// on disk) and removing one (the caller removes the file after commit). Which messages reference
// an upload changes with sends, edits and deletes, in their conversations' transactions: its owner
// hears of each change (emitAttachmentUpdates).
import type { CommonQueryMethods } from 'slonik';
import { attachmentAdd, attachmentRemove, attachmentUpdate } from '../../domain/events/attachments.js';
import * as store from '../../store/attachments.js';
import type { Emit } from '../realm-events.js';
import type { WriteContext } from './conversations.js';

/** The API's attachment object. */
export function attachmentObject(a: store.AttachmentRecord): { id: number; name: string; path_id: string; size: number; create_time: number; message_ids: number[] } {
  return { id: a.id, name: a.file_name, path_id: a.path_id, size: a.size, create_time: Math.floor(a.create_time / 1000), message_ids: [...a.message_ids] };
}

export async function addAttachment(ctx: WriteContext, input: Omit<store.NewAttachment, 'nowMs'>): Promise<store.AttachmentRecord> {
  return ctx.write(async (tx, emit) => {
    const a = await store.insertAttachment(tx, { ...input, nowMs: ctx.services.clock.now() });
    emit(attachmentAdd.build({ op: 'add', attachment: attachmentObject(a), upload_space_used: await store.spaceUsed(tx, input.realmId) }, { userIds: [input.ownerId] }));
    return a;
  });
}

export async function removeAttachment(ctx: WriteContext, input: { ownerId: number; attachment: store.AttachmentRecord }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    await store.deleteAttachment(tx, input.attachment.id);
    emit(
      attachmentRemove.build(
        { op: 'remove', attachment: { id: input.attachment.id }, upload_space_used: await store.spaceUsed(tx, input.attachment.realm_id) },
        { userIds: [input.ownerId] },
      ),
    );
  });
}

/**
 * Tell the owners of these uploads which messages reference them now. Call after changing their
 * links, in the same transaction, having locked them first (store.lockAttachments).
 */
export async function emitAttachmentUpdates(tx: CommonQueryMethods, emit: Emit, realmId: number, attachmentIds: Iterable<number>): Promise<void> {
  const records = await store.attachmentsByIds(tx, [...new Set(attachmentIds)]);
  if (records.length === 0) return;
  const used = await store.spaceUsed(tx, realmId);
  for (const a of records) emit(attachmentUpdate.build({ op: 'update', attachment: attachmentObject(a), upload_space_used: used }, { userIds: [a.owner_id] }));
}
