// Users' alert words. The messaging layer reads them (alertWordsByUser) to set has_alert_word;
// writes happen in the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const row = z.object({ user_id: z.number(), word: z.string() });

export async function listAlertWords(db: CommonQueryMethods, userId: number): Promise<string[]> {
  const rows = await db.any(sql.type(row)`SELECT user_id, word FROM alert_words WHERE user_id = ${userId} ORDER BY lower(word), word`);
  return rows.map((r) => r.word);
}

/** The alert words of these users (users without any are absent from the map). */
export async function alertWordsByUser(db: CommonQueryMethods, userIds: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (userIds.length === 0) return out;
  const rows = await db.any(sql.type(row)`
    SELECT user_id, word FROM alert_words WHERE user_id = ANY(${sql.array([...userIds], 'int4')}) ORDER BY user_id, lower(word)`);
  for (const r of rows) {
    const list = out.get(r.user_id);
    if (list) list.push(r.word);
    else out.set(r.user_id, [r.word]);
  }
  return out;
}

export async function addAlertWords(db: CommonQueryMethods, userId: number, words: readonly string[]): Promise<void> {
  if (words.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO alert_words (user_id, word) SELECT ${userId}, unnest(${sql.array([...words], 'text')}::text[])
    ON CONFLICT DO NOTHING`);
}

/** Removes case-insensitively. */
export async function removeAlertWords(db: CommonQueryMethods, userId: number, words: readonly string[]): Promise<void> {
  if (words.length === 0) return;
  await db.query(sql.unsafe`
    DELETE FROM alert_words WHERE user_id = ${userId}
      AND lower(word) = ANY(${sql.array(words.map((w) => w.toLowerCase()), 'text')}::text[])`);
}
