// Users' settings for topics (muted, unmuted, followed). Written by the owner of the user's
// personal data, and by channel owners when a move carries a topic's settings along.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Policy 0 (inherit) removes the row. Returns the time recorded (ms). */
export async function setUserTopic(
  db: CommonQueryMethods,
  userId: number,
  channelId: number,
  topic: string,
  policy: number,
  nowMs: number,
): Promise<void> {
  if (policy === 0) {
    await db.query(sql.unsafe`
      DELETE FROM user_topics WHERE user_id = ${userId} AND channel_id = ${channelId} AND lower(topic) = lower(${topic})`);
    return;
  }
  await db.query(sql.unsafe`
    INSERT INTO user_topics (user_id, channel_id, topic, visibility_policy, last_updated)
    VALUES (${userId}, ${channelId}, ${topic}, ${policy}, to_timestamp(${nowMs / 1000}))
    ON CONFLICT (user_id, channel_id, lower(topic))
    DO UPDATE SET visibility_policy = EXCLUDED.visibility_policy, last_updated = EXCLUDED.last_updated, topic = EXCLUDED.topic`);
}

const row = z.object({ user_id: z.number(), visibility_policy: z.number() });

/** Every user's setting for one topic. */
export function topicSettings(db: CommonQueryMethods, channelId: number, topic: string): Promise<readonly z.infer<typeof row>[]> {
  return db.any(sql.type(row)`
    SELECT user_id, visibility_policy FROM user_topics WHERE channel_id = ${channelId} AND lower(topic) = lower(${topic})`);
}
