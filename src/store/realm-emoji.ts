// Custom emoji of organizations. Call writes inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const emojiRow = z.object({
  id: z.number(),
  name: z.string(),
  author_id: z.number().nullable(),
  file_name: z.string(),
  is_animated: z.boolean(),
  deactivated: z.boolean(),
});

const columns = sql.fragment`id, name, author_id, file_name, is_animated, deactivated`;

export function listRealmEmoji(db: CommonQueryMethods, realmId: number) {
  return db.any(sql.type(emojiRow)`SELECT ${columns} FROM realm_emoji WHERE realm_id = ${realmId} ORDER BY id`);
}

/** A new emoji row; its file name is set once the id is known (setEmojiFileName). */
export function insertRealmEmoji(db: CommonQueryMethods, realmId: number, name: string, authorId: number, isAnimated: boolean) {
  return db.one(sql.type(emojiRow)`
    INSERT INTO realm_emoji (realm_id, name, author_id, file_name, is_animated)
    VALUES (${realmId}, ${name}, ${authorId}, '', ${isAnimated}) RETURNING ${columns}`);
}

export async function setEmojiFileName(db: CommonQueryMethods, id: number, fileName: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE realm_emoji SET file_name = ${fileName} WHERE id = ${id}`);
}

export async function deactivateRealmEmoji(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE realm_emoji SET deactivated = true WHERE id = ${id}`);
}
