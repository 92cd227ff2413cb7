// Users' saved snippets. Writes happen in the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const snippetRow = z.object({ id: z.number(), title: z.string(), content: z.string(), date_created: z.number() });
export type SnippetRow = z.infer<typeof snippetRow>;

const columns = sql.fragment`id, title, content, date_created`;

export function listSnippets(db: CommonQueryMethods, userId: number): Promise<readonly SnippetRow[]> {
  return db.any(sql.type(snippetRow)`SELECT ${columns} FROM saved_snippets WHERE user_id = ${userId} ORDER BY id`);
}

export function getSnippet(db: CommonQueryMethods, userId: number, id: number): Promise<SnippetRow | null> {
  return db.maybeOne(sql.type(snippetRow)`SELECT ${columns} FROM saved_snippets WHERE id = ${id} AND user_id = ${userId}`);
}

export function insertSnippet(db: CommonQueryMethods, userId: number, title: string, content: string, nowMs: number): Promise<SnippetRow> {
  return db.one(sql.type(snippetRow)`
    INSERT INTO saved_snippets (user_id, title, content, date_created)
    VALUES (${userId}, ${title}, ${content}, to_timestamp(${nowMs / 1000})) RETURNING ${columns}`);
}

export function updateSnippet(db: CommonQueryMethods, id: number, title: string, content: string): Promise<SnippetRow> {
  return db.one(sql.type(snippetRow)`
    UPDATE saved_snippets SET title = ${title}, content = ${content} WHERE id = ${id} RETURNING ${columns}`);
}

export async function deleteSnippet(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM saved_snippets WHERE id = ${id}`);
}
