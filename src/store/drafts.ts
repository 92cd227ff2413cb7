// Drafts: a user's unsent messages. Writes run in the actor that owns the user's personal data.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const draftRow = z.object({
  id: z.number(),
  type: z.enum(['', 'stream', 'private']),
  to_ids: z.array(z.number()),
  topic: z.string(),
  content: z.string(),
  last_edit_time: z.number(),
});
export type DraftRow = z.infer<typeof draftRow>;

/** A draft as written: its audience already checked and normalised. */
export interface DraftData {
  readonly type: DraftRow['type'];
  readonly to: readonly number[];
  readonly topic: string;
  readonly content: string;
  /** Epoch milliseconds. */
  readonly lastEditMs: number;
}

const columns = sql.fragment`id, type, to_ids, topic, content, last_edit_time`;

/** A user's drafts, the least recently edited first; with `limit`, only the most recent ones. */
export async function listDrafts(db: CommonQueryMethods, userId: number, limit?: number): Promise<readonly DraftRow[]> {
  if (limit === undefined) {
    return db.any(sql.type(draftRow)`SELECT ${columns} FROM drafts WHERE user_id = ${userId} ORDER BY last_edit_time, id`);
  }
  const recent = await db.any(sql.type(draftRow)`
    SELECT ${columns} FROM drafts WHERE user_id = ${userId} ORDER BY last_edit_time DESC, id DESC LIMIT ${limit}`);
  return [...recent].reverse();
}

export function insertDraft(db: CommonQueryMethods, userId: number, d: DraftData): Promise<DraftRow> {
  return db.one(sql.type(draftRow)`
    INSERT INTO drafts (user_id, type, to_ids, topic, content, last_edit_time)
    VALUES (${userId}, ${d.type}, ${sql.array(d.to, 'int4')}, ${d.topic}, ${d.content}, to_timestamp(${d.lastEditMs / 1000}))
    RETURNING ${columns}`);
}

/** The edited draft, or null when the user has none of that id. */
export function updateDraft(db: CommonQueryMethods, userId: number, id: number, d: DraftData): Promise<DraftRow | null> {
  return db.maybeOne(sql.type(draftRow)`
    UPDATE drafts SET type = ${d.type}, to_ids = ${sql.array(d.to, 'int4')}, topic = ${d.topic}, content = ${d.content},
      last_edit_time = to_timestamp(${d.lastEditMs / 1000})
    WHERE id = ${id} AND user_id = ${userId}
    RETURNING ${columns}`);
}

/** Whether the user had a draft of that id (now deleted). */
export async function deleteDraft(db: CommonQueryMethods, userId: number, id: number): Promise<boolean> {
  const r = await db.query(sql.unsafe`DELETE FROM drafts WHERE id = ${id} AND user_id = ${userId}`);
  return r.rowCount > 0;
}

export async function deleteUserDrafts(db: CommonQueryMethods, userId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM drafts WHERE user_id = ${userId}`);
}
