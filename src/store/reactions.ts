// Emoji reactions. Writes run in the owning conversation actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { FLAG_BITS } from '../domain/flags.js';

export interface ReactionKey {
  readonly messageId: number;
  readonly userId: number;
  readonly emojiCode: string;
  readonly reactionType: string;
}

/** Returns false when the user already reacted with this emoji. */
export async function addReaction(db: CommonQueryMethods, k: ReactionKey, emojiName: string, nowMs: number): Promise<boolean> {
  const rows = await db.anyFirst(sql.type(z.object({ message_id: z.number() }))`
    INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type, created_at)
    VALUES (${k.messageId}, ${k.userId}, ${emojiName}, ${k.emojiCode}, ${k.reactionType}, to_timestamp(${nowMs / 1000}))
    ON CONFLICT DO NOTHING RETURNING message_id`);
  return rows.length === 1;
}

/** Returns the removed reaction's name, or null when there was none. */
export function removeReaction(db: CommonQueryMethods, k: ReactionKey): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ emoji_name: z.string() }))`
    DELETE FROM reactions
    WHERE message_id = ${k.messageId} AND user_id = ${k.userId} AND emoji_code = ${k.emojiCode} AND reaction_type = ${k.reactionType}
    RETURNING emoji_name`);
}

/** A reactor who had no row for the message gets a historical one (it is in their history now). */
export async function ensureHistoricalRow(db: CommonQueryMethods, userId: number, messageId: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO user_messages (user_id, message_id, flags)
    VALUES (${userId}, ${messageId}, ${FLAG_BITS.read | FLAG_BITS.historical}) ON CONFLICT DO NOTHING`);
}
