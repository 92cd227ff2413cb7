// A user's drafts: created, edited and deleted in the owner of the user's personal data, each
// change told to the user's clients (drafts events). The caller checked each draft's audience.
import { errors } from '../../domain/errors.js';
import { draftsEvent } from '../../domain/events/drafts.js';
import * as store from '../../store/drafts.js';
import type { WriteContext } from './conversations.js';

/** A draft as clients see it. */
export const formatDraft = (r: store.DraftRow) => ({
  id: r.id,
  type: r.type,
  to: r.to_ids,
  topic: r.topic,
  content: r.content,
  timestamp: Math.floor(r.last_edit_time / 1000),
});

const toUser = (userId: number) => ({ userIds: [userId] });

export async function createDrafts(ctx: WriteContext, input: { userId: number; drafts: readonly store.DraftData[] }): Promise<number[]> {
  return ctx.write(async (tx, emit) => {
    const rows: store.DraftRow[] = [];
    for (const d of input.drafts) rows.push(await store.insertDraft(tx, input.userId, d));
    if (rows.length > 0) emit(draftsEvent.build({ op: 'add', drafts: rows.map(formatDraft) }, toUser(input.userId)));
    return rows.map((r) => r.id);
  });
}

export async function editDraft(ctx: WriteContext, input: { userId: number; id: number; draft: store.DraftData }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    const row = await store.updateDraft(tx, input.userId, input.id, input.draft);
    if (!row) throw errors.draftNotFound();
    emit(draftsEvent.build({ op: 'update', draft: formatDraft(row) }, toUser(input.userId)));
  });
}

export async function deleteDraft(ctx: WriteContext, input: { userId: number; id: number }): Promise<void> {
  await ctx.write(async (tx, emit) => {
    if (!(await store.deleteDraft(tx, input.userId, input.id))) throw errors.draftNotFound();
    emit(draftsEvent.build({ op: 'remove', draft_id: input.id }, toUser(input.userId)));
  });
}
