// Users' statuses (text and emoji). Writes happen in the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const statusRow = z.object({
  user_id: z.number(),
  status_text: z.string(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.string(),
});
export type StatusRow = z.infer<typeof statusRow>;

export function listStatuses(db: CommonQueryMethods, realmId: number): Promise<readonly StatusRow[]> {
  return db.any(sql.type(statusRow)`
    SELECT s.user_id, s.status_text, s.emoji_name, s.emoji_code, s.reaction_type
    FROM user_status s JOIN users u ON u.id = s.user_id
    WHERE u.realm_id = ${realmId} AND u.is_active ORDER BY s.user_id`);
}

export function getStatus(db: CommonQueryMethods, userId: number): Promise<StatusRow | null> {
  return db.maybeOne(sql.type(statusRow)`
    SELECT user_id, status_text, emoji_name, emoji_code, reaction_type FROM user_status WHERE user_id = ${userId}`);
}

export async function putStatus(db: CommonQueryMethods, s: StatusRow, nowMs: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO user_status (user_id, status_text, emoji_name, emoji_code, reaction_type, updated_at)
    VALUES (${s.user_id}, ${s.status_text}, ${s.emoji_name}, ${s.emoji_code}, ${s.reaction_type}, to_timestamp(${nowMs / 1000}))
    ON CONFLICT (user_id) DO UPDATE SET status_text = EXCLUDED.status_text, emoji_name = EXCLUDED.emoji_name,
      emoji_code = EXCLUDED.emoji_code, reaction_type = EXCLUDED.reaction_type, updated_at = EXCLUDED.updated_at`);
}
